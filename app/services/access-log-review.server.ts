// The access log as the admin reads it, shared by /admin/logs and /api/logs:
// filtered pages with their stats, approving a card from a denied row, and
// the cleanup of a card's denied rows. The CSV export is in
// access-log-export.server.ts.
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import { getAccessLog } from "~/models/access-log.server";
import { findDoorByCodeOrId } from "~/models/door.server";
import {
  resolveDeniedAccessLogsOfCardNumber,
  getAccessLogStats,
  listAccessLogs,
  type AccessLogRecord,
  type StatFigure,
} from "~/models/access-log-query.server";

export type { AccessLogRecord, StatFigure };
import { listCardStatusesAndGrants, type Card } from "~/models/card.server";
import { LOG_MERGE_WINDOW_MS, LogFiltersSchema, type LogFilters } from "~/schemas/access-log";
import { canonicalCardId } from "~/utils/card-number";
import { pageWindow } from "~/utils/paging";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited } from "./audit.server";
import { approveCard, type CardApproval } from "./cards.server";

/** SPEC §3 access log, as the API sends it; `cardId` is the card number. */
export function toAccessLogJson(row: AccessLogRecord) {
  return {
    _id: row.id,
    timestamp: new Date(row.timestamp).toISOString(),
    cardId: row.cardNumber,
    /** The door's hardware code, as its bridge sent it (also for an unknown or deleted door). */
    doorId: row.doorCode,
    /** The same code under its former name: kept for one release (docs/api.md). */
    doorCode: row.doorCode,
    doorName: row.doorName,
    ipAddress: row.ipAddress,
    accessGranted: row.accessGranted,
    /**
     * The row's kind (issue 40): "granted", "denied", "alarm" (a door alarm:
     * never a grant or a denial) or "resolved" (a denial its card's approval resolved).
     */
    result: row.outcome,
    /** When the approval resolved this denial (ISO); null otherwise. */
    resolvedAt: row.resolvedAt === null ? null : new Date(row.resolvedAt).toISOString(),
    reason: row.reason,
    reasonText: ACCESS_REASON_LABELS[row.reason],
    user: row.username,
    isAnonymous: row.isAnonymous,
    offline: row.offline,
    /** What was presented: "card", "pin" or "qr" (issue 29). */
    credentialKind: row.credentialKind,
    /** A door key's holder ('Huésped Ana López · LC7Q2M4A'); null for cards. For a key, `cardId` is its reference (the reservation code), never the PIN or token. */
    holder: row.holder,
  };
}
export type AccessLogJson = ReturnType<typeof toAccessLogJson>;

/**
 * The filters as the access log model reads them: the door (the page's and
 * the API's `doorId`, a hardware code, or for one release a row id) as its
 * row id, so the door's rows logged under an earlier code count too. An
 * unknown door stays as given and matches nothing.
 */
export async function withDoorRowId(filters: LogFilters): Promise<LogFilters> {
  if (!filters.doorId) return filters;
  const door = await findDoorByCodeOrId(filters.doorId);
  return { ...filters, doorId: door?.id ?? filters.doorId };
}

/** The filters as a query string, without the defaults (for links and the export). */
export function logFiltersQuery(filters: LogFilters) {
  const defaults = LogFiltersSchema.parse({});
  const params = new URLSearchParams();
  for (const key of ["status", "doorId", "dateRange", "search", "credentialKind"] as const) {
    const value = filters[key] ?? defaults[key];
    if (value !== defaults[key]) params.set(key, value);
  }
  return params.toString();
}

/**
 * One page of the filtered rows with the stats of the whole filtered set.
 * With `clamp` (the screen), a page past the last one gives the last; the
 * API answers it empty. `page` says which page was read. When a search
 * matches more rows than the count's bound, `pagesMoreThan` says `pages` is
 * a lower bound (and no page is clamped).
 */
export async function getAccessLogPage(
  filters: LogFilters,
  { page, limit, clamp = false }: { page: number; limit: number; clamp?: boolean },
  now = new Date(),
) {
  const criteria = await withDoorRowId(filters);
  const stats = await getAccessLogStats(criteria, now);
  const pagesMoreThan = stats.moreThan?.includes("total") ?? false;
  const window = pagesMoreThan
    ? { page, pages: Math.ceil(stats.total / limit), limit, offset: (page - 1) * limit }
    : pageWindow(stats.total, { page, limit, clamp });
  const rows = await listAccessLogs(criteria, window, now, pagesMoreThan ? { manyMatches: true } : { total: stats.total });
  return { stats, rows, page: window.page, pages: window.pages, pagesMoreThan, limit };
}

export const LOG_REFUSALS = {
  log_not_found: refuse(404, "Registro no encontrado"),
  not_denied: refuse(409, "Ese acceso no fue denegado"),
  no_card: refuse(404, "El registro no corresponde a ninguna tarjeta registrada"),
  not_approvable: refuse(409, "La tarjeta ya está activa y asignada: cambia sus permisos desde Gestionar Tarjetas"),
};

/**
 * The denied rows whose 'Aprobar' would change something: a card still
 * registered that is pending (approving activates it), or that the row's door
 * does not grant yet (approving grants it). A card already granted at that
 * door, and active or not pending, was denied for another reason (its hours,
 * the door's status, an expiry): the row offers nothing; nor does a card
 * already active and assigned to someone (issue 40, point 15: its access is
 * its holder's groups and permissions, changed from the cards screen).
 * Alarms and resolved denials are no denials.
 */
export async function approvableLogRows(rows: Pick<AccessLogRecord, "id" | "outcome" | "cardId" | "doorId">[]) {
  const denied = rows.filter((row) => row.outcome === "denied" && row.cardId !== null);
  const { statuses, granted, assigned } = await listCardStatusesAndGrants(denied.map((row) => row.cardId!));
  const approvable = new Set<string>();
  for (const row of denied) {
    const status = statuses.get(row.cardId!);
    if (!status) continue;
    if (status === "active" && assigned.has(row.cardId!)) continue;
    if (status === "pending" || (row.doorId !== null && !granted.has(`${row.cardId}|${row.doorId}`))) approvable.add(row.id);
  }
  return approvable;
}

/** The denied row an approval starts from, and its card (the log's 'Aprobar' confirmation). */
export async function approvalRowOf(logId: string): Promise<Result<{ row: NonNullable<Awaited<ReturnType<typeof getAccessLog>>>; cardId: string }>> {
  const row = logId ? await getAccessLog(logId) : undefined;
  if (!row) return LOG_REFUSALS.log_not_found;
  if (row.accessGranted || row.source === "alarm" || row.resolvedAt !== null) return LOG_REFUSALS.not_denied;
  if (!row.cardId) return LOG_REFUSALS.no_card;
  // Issue 40: never for a card already active and assigned (the rest approveCard decides).
  const { statuses, assigned } = await listCardStatusesAndGrants([row.cardId]);
  if (statuses.get(row.cardId) === "active" && assigned.has(row.cardId)) return LOG_REFUSALS.not_approvable;
  return { ok: true, row, cardId: row.cardId };
}

/**
 * SPEC §4, issue 40 point 15: approving a card from a denied row, after the
 * confirmation the cards screen shows (the door, and its hours or the
 * holder's group): a pending card becomes active, and it gets the door with
 * those hours (or its holder joins the group); then the card's denied rows
 * are marked resolved by the approval (SPEC §7 Logs cleanup), never deleted.
 */
export async function approveCardFromLog(
  logId: string,
  grant: CardApproval,
): Promise<Result<{ cardNumber: string; cardStatus: Card["status"]; doorName: string | null; resolved: number }>> {
  const found = await approvalRowOf(logId);
  if (!found.ok) return found;
  const { row, cardId } = found;
  // Two changes, each with its event: the approval (announced to the doors once committed), then the resolution.
  const approval = await approveCard(cardId, grant);
  if (!approval.ok) return approval;
  const resolved = await resolveDeniedRows(row.cardNumber);
  return { ok: true, cardNumber: row.cardNumber, cardStatus: approval.card.status, doorName: approval.door?.name ?? null, resolved };
}

/**
 * Marks a card number's denied rows resolved by its approval: they stay in
 * the log (append-only, issue 40), shown as 'Resuelto', out of the default
 * filter and the denied figures. The audit event keeps which (how many rows,
 * of which doors, from when to when).
 */
function resolveDeniedRows(cardNumber: string) {
  return audited(async (audit) => {
    const { resolved, doors } = await resolveDeniedAccessLogsOfCardNumber(cardNumber, new Date());
    if (resolved === 0) return 0;
    const where = doors.map((door) => door.doorName ?? door.doorCode).join(", ");
    audit({
      action: "access_log.cleanup",
      entityType: "access_log",
      entityId: cardNumber,
      summary: `marcó como ${resolved === 1 ? "resuelto 1 registro denegado" : `resueltos ${resolved} registros denegados`} de la tarjeta ${cardNumber} (${where})`,
      before: {
        card: cardNumber,
        denied: resolved,
        doors: doors.map((door) => ({ doorId: door.doorCode, door: door.doorName, rows: door.rows, first: door.first, last: door.last })),
      },
      after: { card: cardNumber, denied: 0, resolved },
    });
    return resolved;
  });
}

/**
 * DELETE /api/logs/cleanup (SPEC §7): the denied rows of a card number (any
 * usual notation), marked resolved; `deleted` keeps its name in the answer
 * and says how many were marked (nothing is deleted: issue 40, point 15).
 */
export async function cleanupDeniedLogs(cardId: string): Promise<Result<{ cardId: string; deleted: number }>> {
  const cardNumber = canonicalCardId(cardId);
  if (!cardNumber) return refuse(400, "cardId debe ser un número de tarjeta hexadecimal (p. ej. 004E2B4E)");
  return { ok: true, cardId: cardNumber, deleted: await resolveDeniedRows(cardNumber) };
}

export type MergedAccessLog<T> = T & {
  /** How many rows this line stands for (1 when nothing was merged). */
  count: number;
  /** The oldest merged row's timestamp (the line shows the newest's). */
  firstTimestamp: number;
};

/**
 * SPEC §2: rows of the same card, door and result within the merge window
 * show as one line with a count. `rows` come newest first; a row joins the
 * line of its card, door and result when it is at most `windowMs` older than
 * that line's newest row (so one line covers at most the window), even with
 * other rows in between; the line keeps the place of its newest row. Rows
 * without a card (door alarms) are never merged: each alarm is a line.
 */
export function mergeAccessLogRows<T extends Pick<AccessLogRecord, "timestamp" | "cardNumber" | "doorCode" | "accessGranted"> & { outcome?: AccessLogRecord["outcome"] }>(
  rows: T[],
  windowMs = LOG_MERGE_WINDOW_MS,
): Array<MergedAccessLog<T>> {
  const merged: Array<MergedAccessLog<T>> = [];
  const openLines = new Map<string, MergedAccessLog<T>>();
  for (const row of rows) {
    if (row.cardNumber === "") {
      merged.push({ ...row, count: 1, firstTimestamp: row.timestamp });
      continue;
    }
    const key = `${row.cardNumber}\u0000${row.doorCode}\u0000${row.outcome ?? row.accessGranted}`;
    const line = openLines.get(key);
    if (line && line.timestamp - row.timestamp <= windowMs) {
      line.count += 1;
      line.firstTimestamp = row.timestamp;
      continue;
    }
    const next = { ...row, count: 1, firstTimestamp: row.timestamp };
    openLines.set(key, next);
    merged.push(next);
  }
  return merged;
}
