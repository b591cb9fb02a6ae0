// The access log as the admin reads it, shared by /admin/logs and /api/logs:
// filtered pages with their stats, approving a card from a denied row, and
// the cleanup of a card's denied rows. The CSV export is in
// access-log-export.server.ts.
import { ACCESS_REASON_LABELS } from "~/access/reasons";
import { getAccessLog } from "~/models/access-log.server";
import {
  deleteDeniedAccessLogsOfCardNumber,
  getAccessLogStats,
  listAccessLogs,
  type AccessLogRecord,
} from "~/models/access-log-query.server";
import type { Card } from "~/models/card.server";
import { LogFiltersSchema, type LogFilters } from "~/schemas/access-log";
import { queryObject } from "~/utils/api.server";
import { canonicalCardId } from "~/utils/card-number";
import { refuse, type Result } from "~/utils/refusal.server";
import { approveCard } from "./cards.server";

/** SPEC §3 access log, as the API sends it; `cardId` is the card number. */
export function toAccessLogJson(row: AccessLogRecord) {
  return {
    _id: row.id,
    timestamp: new Date(row.timestamp).toISOString(),
    cardId: row.cardNumber,
    /** The door's row id (`_id` of /api/doors); null for an unknown or deleted door. */
    doorId: row.doorId,
    /** The door's hardware code, as the bridge sent it. */
    doorCode: row.doorCode,
    doorName: row.doorName,
    ipAddress: row.ipAddress,
    accessGranted: row.accessGranted,
    reason: row.reason,
    reasonText: ACCESS_REASON_LABELS[row.reason],
    user: row.username,
    isAnonymous: row.isAnonymous,
    offline: row.offline,
  };
}
export type AccessLogJson = ReturnType<typeof toAccessLogJson>;

/** A page's filters from its query; values a person could not have picked fall back to the defaults. */
export function parseLogFilters(params: URLSearchParams): LogFilters {
  const parsed = LogFiltersSchema.safeParse(queryObject(params));
  return parsed.success ? parsed.data : LogFiltersSchema.parse({});
}

/** The filters as a query string, without the defaults (for links and the export). */
export function logFiltersQuery(filters: LogFilters) {
  const defaults = LogFiltersSchema.parse({});
  const params = new URLSearchParams();
  for (const key of ["status", "doorId", "dateRange", "search"] as const) {
    if (filters[key] !== defaults[key]) params.set(key, filters[key]);
  }
  return params.toString();
}

/**
 * One page of the filtered rows with the stats of the whole filtered set.
 * With `clamp` (the screen), a page past the last one gives the last; the
 * API answers it empty. `page` says which page was read.
 */
export async function getAccessLogPage(
  filters: LogFilters,
  { page, limit, clamp = false }: { page: number; limit: number; clamp?: boolean },
  now = new Date(),
) {
  const stats = await getAccessLogStats(filters, now);
  const pages = Math.max(1, Math.ceil(stats.total / limit));
  const shown = clamp ? Math.min(pages, Math.max(1, page)) : page;
  const rows = await listAccessLogs(filters, { limit, offset: (shown - 1) * limit }, now);
  return { stats, rows, page: shown, pages, limit };
}

export const LOG_REFUSALS = {
  log_not_found: refuse(404, "Registro no encontrado"),
  not_denied: refuse(409, "Ese acceso no fue denegado"),
  no_card: refuse(404, "El registro no corresponde a ninguna tarjeta registrada"),
};

/**
 * SPEC §4: approving a card from a denied row makes a pending card active and
 * grants it the door of that row; then the card's denied rows are cleaned up
 * (SPEC §7 Logs cleanup).
 */
export async function approveCardFromLog(
  logId: string,
): Promise<Result<{ cardNumber: string; cardStatus: Card["status"]; doorName: string | null; deleted: number }>> {
  const row = logId ? await getAccessLog(logId) : undefined;
  if (!row) return LOG_REFUSALS.log_not_found;
  if (row.accessGranted) return LOG_REFUSALS.not_denied;
  if (!row.cardId) return LOG_REFUSALS.no_card;
  const approval = await approveCard(row.cardId, row.doorId);
  if (!approval.ok) return approval;
  const deleted = await deleteDeniedAccessLogsOfCardNumber(row.cardNumber);
  return { ok: true, cardNumber: row.cardNumber, cardStatus: approval.card.status, doorName: row.doorName, deleted };
}

/** DELETE /api/logs/cleanup: the denied rows of a card number (any usual notation). */
export async function cleanupDeniedLogs(cardId: string): Promise<Result<{ cardId: string; deleted: number }>> {
  const cardNumber = canonicalCardId(cardId);
  if (!cardNumber) return refuse(400, "cardId debe ser un número de tarjeta hexadecimal (p. ej. 004E2B4E)");
  return { ok: true, cardId: cardNumber, deleted: await deleteDeniedAccessLogsOfCardNumber(cardNumber) };
}
