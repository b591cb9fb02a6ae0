import type { LoaderFunctionArgs } from "@remix-run/node";
import { accessLogCsvResponse } from "~/services/access-log-export.server";
import { parseLogFilters } from "~/services/access-log-review.server";
import { requireAdmin } from "~/utils/auth.server";

// GET /admin/logs/export?status&doorId&dateRange&search: the screen's "Exportar CSV" download.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return accessLogCsvResponse(parseLogFilters(new URL(request.url).searchParams), { acceptEncoding: request.headers.get("Accept-Encoding") });
}
