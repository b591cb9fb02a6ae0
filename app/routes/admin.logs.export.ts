import type { LoaderFunctionArgs } from "@remix-run/node";
import { LogFiltersSchema } from "~/schemas/access-log";
import { accessLogCsv } from "~/services/access-log-export.server";
import { filtersFromQuery } from "~/utils/api.server";
import { requireAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";

// GET /admin/logs/export?status&doorId&dateRange&search: the screen's "Exportar CSV" download.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const filters = filtersFromQuery(LogFiltersSchema, new URL(request.url).searchParams);
  return downloadResponse(accessLogCsv(filters), { acceptEncoding: request.headers.get("Accept-Encoding") });
}
