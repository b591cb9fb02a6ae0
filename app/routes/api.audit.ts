import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { AuditListQuerySchema } from "~/schemas/audit";
import { listAuditEventsPage } from "~/services/audit.server";
import { apiSuccess, methodNotAllowed, parseQuery } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/audit?page&limit&actor&entityType&action&from&to&search (admin): the audit trail, newest first.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  const { page, limit, ...filters } = parseQuery(request, AuditListQuerySchema);
  const result = await listAuditEventsPage(filters, { page, limit });
  return apiSuccess({ events: result.events, pagination: { page, limit, total: result.total, pages: result.pages } });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}
