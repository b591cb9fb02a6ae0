import type { LoaderFunctionArgs } from "@remix-run/node";
import { auditCsv } from "~/services/audit.server";
import { requireAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";
import { auditFiltersOf } from "./admin.auditoria.server";

// GET /admin/auditoria/export?actor&entityType&action&from&to&search: the screen's "Exportar CSV" download.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return downloadResponse(auditCsv(auditFiltersOf(new URL(request.url).searchParams)), { acceptEncoding: request.headers.get("Accept-Encoding") });
}
