import type { LoaderFunctionArgs } from "@remix-run/node";
import { LogFiltersSchema } from "~/schemas/access-log";
import { accessLogCsvResponse } from "~/services/access-log-export.server";
import { filtersFromQuery } from "~/utils/api.server";
import { requireAdmin } from "~/utils/auth.server";

// GET /admin/logs/export?status&doorId&dateRange&search: the screen's "Exportar CSV" download.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return accessLogCsvResponse(filtersFromQuery(LogFiltersSchema, new URL(request.url).searchParams), { acceptEncoding: request.headers.get("Accept-Encoding") });
}
