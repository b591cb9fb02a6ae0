// /admin/logs: the screen's page of merged lines with its stats, and
// approving a card from a denied row (`?approve=<row id>` opens the cards
// screen's confirmation; issue 40, point 15), through app/services/access-log-review.server.ts.
import { parseWithZod } from "@conform-to/zod/v4";
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import type { LogLine } from "~/components/admin/log-table";
import { LOG_PAGE_SIZE, LogFiltersSchema } from "~/schemas/access-log";
import { CARD_STATUS_LABELS, CardApproveSchema } from "~/schemas/card";
import {
  approvableLogRows,
  approvalRowOf,
  approveCardFromLog,
  getAccessLogPage,
  logFiltersQuery,
  mergeAccessLogRows,
  type AccessLogRecord,
  type MergedAccessLog,
} from "~/services/access-log-review.server";
import { getCardDetail } from "~/services/cards.server";
import { listDoorOptions } from "~/services/doors.server";
import { filtersFromQuery } from "~/utils/api.server";
import { renderedNow } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { throwRefusal } from "~/utils/refusal.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

function toLogLine(line: MergedAccessLog<AccessLogRecord>, approvable: Set<string>): LogLine {
  return {
    id: line.id,
    timestamp: new Date(line.timestamp).toISOString(),
    firstTimestamp: new Date(line.firstTimestamp).toISOString(),
    count: line.count,
    cardNumber: line.cardNumber,
    username: line.username,
    doorName: line.doorName ?? line.doorCode,
    accessGranted: line.accessGranted,
    outcome: line.outcome,
    resolvedAt: line.resolvedAt === null ? null : new Date(line.resolvedAt).toISOString(),
    reasonText: ACCESS_REASON_LABELS[line.reason],
    isAnonymous: line.isAnonymous,
    offline: line.offline,
    credentialKind: line.credentialKind,
    holder: line.holder,
    canApprove: approvable.has(line.id),
  };
}

/**
 * The screen: stats of the filtered rows, one page of 50 rows merged into
 * lines. Merging happens within the page, so pages, totals and stats count
 * rows, and a burst that straddles two pages shows on both.
 */
export async function loadLogsPage(request: Request) {
  const url = new URL(request.url);
  const filters = filtersFromQuery(LogFiltersSchema, url.searchParams);
  const [{ stats, rows, page, pages, pagesMoreThan }, doors] = await Promise.all([
    // The ranges (24 hours, 7 and 30 days) from the start of this minute: the page's data stays equal all
    // minute long while no swipe comes in, so its render is reused (ADR 0008).
    getAccessLogPage(filters, { page: requestedPage(url.searchParams), limit: LOG_PAGE_SIZE, clamp: true }, new Date(renderedNow())),
    listDoorOptions(),
  ]);
  const approvable = await approvableLogRows(rows);
  return {
    approval: await approvalOf(url),
    filters,
    doors,
    stats,
    page,
    pages,
    pagesMoreThan,
    rowCount: rows.length,
    lines: mergeAccessLogRows(rows).map((line) => toLogLine(line, approvable)),
    exportQuery: logFiltersQuery(filters),
  };
}

/** The confirmation `?approve=<row id>` opens: the row's card as the cards screen shows it, its door chosen. */
async function approvalOf(url: URL) {
  const logId = url.searchParams.get("approve");
  if (!logId) return null;
  const found = await approvalRowOf(logId.slice(0, 64));
  if (!found.ok) return { logId, message: found.message, detail: null, doorId: null };
  const detail = await getCardDetail(found.cardId);
  if (!detail.ok) return { logId, message: detail.message, detail: null, doorId: null };
  const door = found.row.doorId ? detail.doors.find((option) => option._id === found.row.doorId) : undefined;
  return { logId, message: null, detail, doorId: door?.doorId ?? null };
}

export async function logsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  if (intent !== "approve-card") throwRefusal({ status: 400, message: "Acción no válida" });
  const submission = parseWithZod(formData, { schema: CardApproveSchema });
  if (submission.status !== "success") return refusedForm(submission, { intent });
  const { doorId, schedule, groupId } = submission.value;
  const approval = await approveCardFromLog(String(formData.get("logId") ?? "").slice(0, 64), { door: doorId || null, schedule, groupId: groupId || null });
  if (!approval.ok) return refusedForm({ ...approval, message: `Error al aprobar tarjeta: ${approval.message}` }, { intent, submission });
  const where = approval.doorName ? ` con acceso a ${approval.doorName}` : "";
  const resolved = approval.resolved === 1 ? "1 registro denegado marcado como resuelto" : `${approval.resolved} registros denegados marcados como resueltos`;
  // Approving only activates pending cards: an inactive or suspended one keeps its status.
  const status = approval.cardStatus === "active" ? "" : ` La tarjeta sigue ${CARD_STATUS_LABELS[approval.cardStatus].toLowerCase()}.`;
  return redirectWithToast(pageUrl(request, { approve: null }), successToast("Tarjeta aprobada", `${approval.cardNumber}${where}; ${resolved}.${status}`));
}
