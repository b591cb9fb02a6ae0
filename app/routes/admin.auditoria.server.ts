// /admin/auditoria: the filtered audit trail, newest first, the open modal's
// event and, when asked, the chain's verification, through
// app/services/audit.server.ts.
import { AUDIT_PAGE_SIZE, AuditFiltersSchema, type AuditFilters } from "~/schemas/audit";
import { auditFiltersQuery, getAuditEvent, listAuditEventsPage, verifyAuditChain } from "~/services/audit.server";
import { filtersFromQuery } from "~/utils/api.server";
import { modalOf } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";

export const AUDIT_MODALS = ["detail"] as const;

/** The screen's filters from its query; a value nobody could pick drops only itself. */
export function auditFiltersOf(params: URLSearchParams): AuditFilters {
  return filtersFromQuery(AuditFiltersSchema, params);
}

export async function loadAuditPage(request: Request) {
  const url = new URL(request.url);
  const filters = auditFiltersOf(url.searchParams);
  const list = await listAuditEventsPage(filters, { page: requestedPage(url.searchParams), limit: AUDIT_PAGE_SIZE, clamp: true });
  const modalName = modalOf(url.searchParams, AUDIT_MODALS);
  const event = modalName ? await getAuditEvent(url.searchParams.get("event")) : null;
  const verification = url.searchParams.get("verify") === "1" ? await verifyAuditChain() : null;
  return { filters, ...list, exportQuery: auditFiltersQuery(filters), modal: { name: modalName, event }, verification };
}
