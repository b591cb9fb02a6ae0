import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AuditExportQuerySchema } from "~/schemas/audit";
import { auditCsv } from "~/services/audit.server";
import { methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { downloadResponse } from "~/utils/download.server";

// GET /api/audit/export?format=csv&actor&entityType&action&from&to&search (admin): the filtered events as CSV.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { format: _format, ...filters } = parseQuery(request, AuditExportQuerySchema);
  return downloadResponse(auditCsv(filters), { acceptEncoding: request.headers.get("Accept-Encoding") });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
