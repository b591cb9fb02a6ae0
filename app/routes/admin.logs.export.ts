import type { LoaderFunctionArgs } from "@remix-run/node";
import { accessLogCsvResponse, parseLogFilters } from "~/services/access-log-admin.server";
import { requireAdmin } from "~/utils/auth.server";

// GET /admin/logs/export?status&doorId&dateRange&search: the screen's "Exportar CSV" download.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return accessLogCsvResponse(parseLogFilters(new URL(request.url).searchParams));
}
