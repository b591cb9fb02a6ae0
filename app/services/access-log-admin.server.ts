// The access log screen's data and action, the JSON of /api/logs, the CSV
// export shared by the screen and the API, and approving a card from a
// denied row. Reads go through app/models/access-log-query.server.ts.
import { setImmediate } from "node:timers/promises";
import { data } from "@remix-run/node";
import { canonicalCardId } from "~/access/contract";
import { ACCESS_REASON_LABELS } from "~/access/reasons";
import { getAccessLog } from "~/models/access-log.server";
import {
  deleteDeniedAccessLogsOfCardNumber,
  getAccessLogStats,
  listAccessLogs,
  mergeAccessLogRows,
  streamAccessLogs,
  type AccessLogRecord,
  type MergedAccessLog,
} from "~/models/access-log-query.server";
import { approveCard, type Card } from "~/models/card.server";
import { listDoors } from "~/models/door.server";
import { ACCESS_RESULT_LABELS, LOG_PAGE_SIZE, LogFiltersSchema, type LogFilters } from "~/schemas/access-log";
import { CARD_STATUS_LABELS } from "~/schemas/card";
import { CARD_REFUSALS, queryObject } from "~/services/card-admin.server";
import { apiError } from "~/utils/auth.server";
import { TIME_ZONE, todayInMadrid } from "~/utils/dates";
import type { Toast } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

/** SPEC §3 access log, as the API sends it; `cardId` is the card number. */
export function toAccessLogJson(row: AccessLogRecord) {
  return {
    _id: row.id,
    timestamp: new Date(row.timestamp).toISOString(),
    cardId: row.cardNumber,
    /** The door's row id (`_id` of /api/doors); null for an unknown or deleted door. */
    doorId: row.doorId,
    /** The door's hardware id, as the bridge sent it. */
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

/** The page's filters; values a person could not have picked fall back to the defaults. */
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

/** One line of the screen's table: a row, or several merged (SPEC §2). */
function toLogLine(line: MergedAccessLog<AccessLogRecord>) {
  return {
    id: line.id,
    timestamp: new Date(line.timestamp).toISOString(),
    firstTimestamp: new Date(line.firstTimestamp).toISOString(),
    count: line.count,
    cardNumber: line.cardNumber,
    username: line.username,
    doorName: line.doorName ?? line.doorCode,
    accessGranted: line.accessGranted,
    reasonText: ACCESS_REASON_LABELS[line.reason],
    isAnonymous: line.isAnonymous,
    offline: line.offline,
    /** A denied row of a registered card offers approving it. */
    canApprove: !line.accessGranted && line.cardId !== null,
  };
}
export type LogLine = ReturnType<typeof toLogLine>;

/**
 * The screen: stats of the filtered rows, one page of 50 rows merged into
 * lines. Merging happens within the page, so pages, totals and stats count
 * rows, and a burst that straddles two pages shows on both.
 */
export async function loadLogsPage(request: Request) {
  const url = new URL(request.url);
  const filters = parseLogFilters(url.searchParams);
  const now = new Date();
  const [stats, doors] = await Promise.all([getAccessLogStats(filters, now), listDoors()]);
  const pages = Math.max(1, Math.ceil(stats.total / LOG_PAGE_SIZE));
  const page = Math.min(pages, Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)));
  const rows = await listAccessLogs(filters, { limit: LOG_PAGE_SIZE, offset: (page - 1) * LOG_PAGE_SIZE }, now);
  return {
    filters,
    doors: doors.map((door) => ({ id: door.id, name: door.name, doorId: door.doorId })),
    stats,
    page,
    pages,
    rowCount: rows.length,
    lines: mergeAccessLogRows(rows).map(toLogLine),
    exportQuery: logFiltersQuery(filters),
  };
}

/** GET /api/logs: a page of rows (not merged) with the stats of the filtered set. */
export async function listLogsForApi(query: LogFilters & { page: number; limit: number }) {
  const now = new Date();
  const stats = await getAccessLogStats(query, now);
  const rows = await listAccessLogs(query, { limit: query.limit, offset: (query.page - 1) * query.limit }, now);
  return {
    logs: rows.map(toAccessLogJson),
    stats,
    total: stats.total,
    page: query.page,
    limit: query.limit,
    pages: Math.max(1, Math.ceil(stats.total / query.limit)),
  };
}

const LOG_REFUSALS = {
  log_not_found: { status: 404, message: "Registro no encontrado" },
  not_denied: { status: 409, message: "Ese acceso no fue denegado" },
  no_card: { status: 404, message: "El registro no corresponde a ninguna tarjeta registrada" },
} as const;

type ApprovalRefusal = { status: number; message: string };
type CardStatus = Card["status"];
export type ApprovalResult =
  | { ok: true; cardNumber: string; cardStatus: CardStatus; doorName: string | null; deleted: number }
  | { ok: false; refusal: ApprovalRefusal };

/**
 * SPEC §4: approving a card from a denied row makes a pending card active and
 * grants it the door of that row; then the card's denied rows are cleaned up
 * (SPEC §7 Logs cleanup).
 */
export async function approveCardFromLog(logId: string): Promise<ApprovalResult> {
  const row = logId ? await getAccessLog(logId) : undefined;
  if (!row) return { ok: false, refusal: LOG_REFUSALS.log_not_found };
  if (row.accessGranted) return { ok: false, refusal: LOG_REFUSALS.not_denied };
  if (!row.cardId) return { ok: false, refusal: LOG_REFUSALS.no_card };
  const approval = await approveCard(row.cardId, row.doorId);
  if (!approval.ok) return { ok: false, refusal: CARD_REFUSALS[approval.reason] };
  const deleted = await deleteDeniedAccessLogsOfCardNumber(row.cardNumber);
  return { ok: true, cardNumber: row.cardNumber, cardStatus: approval.card.status, doorName: row.doorName, deleted };
}

/** This page's URL as the request had it (the filters and page stay). */
function pageUrl(request: Request) {
  const params = new URL(request.url).searchParams;
  params.delete("index");
  const search = params.toString();
  return `/admin/logs${search ? `?${search}` : ""}`;
}

export type LogActionData = { intent: string; result: { status: "error"; error: Record<string, string[]> }; toast: Toast };

export async function logsAction(request: Request) {
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  if (intent !== "approve-card") throw new Response("Acción no válida", { status: 400 });
  const approval = await approveCardFromLog(String(formData.get("logId") ?? ""));
  if (!approval.ok) {
    const message = `Error al aprobar tarjeta: ${approval.refusal.message}`;
    const toast: Toast = { id: crypto.randomUUID(), type: "error", title: "Error", description: message };
    return data<LogActionData>({ intent, result: { status: "error", error: { "": [message] } }, toast }, { status: approval.refusal.status });
  }
  const where = approval.doorName ? ` con acceso a ${approval.doorName}` : "";
  const cleaned = approval.deleted === 1 ? "1 registro denegado eliminado" : `${approval.deleted} registros denegados eliminados`;
  // Approving only activates pending cards: an inactive or suspended one keeps its status.
  const status = approval.cardStatus === "active" ? "" : ` La tarjeta sigue ${CARD_STATUS_LABELS[approval.cardStatus].toLowerCase()}.`;
  return redirectWithToast(request, pageUrl(request), {
    type: "success",
    title: "Tarjeta aprobada",
    description: `${approval.cardNumber}${where}; ${cleaned}.${status}`,
  });
}

/** DELETE /api/logs/cleanup: the denied rows of a card number (any usual notation). */
export async function cleanupDeniedLogs(cardId: string) {
  const cardNumber = canonicalCardId(cardId);
  if (!cardNumber) apiError(400, "cardId debe ser un número de tarjeta hexadecimal (p. ej. 004E2B4E)");
  return { cardId: cardNumber, deleted: await deleteDeniedAccessLogsOfCardNumber(cardNumber) };
}

// ---------------------------------------------------------------- CSV export

export const CSV_HEADERS = ["Fecha", "Tarjeta", "Usuario", "Puerta", "Resultado", "Motivo", "Anónima", "Sin conexión", "IP"];

/**
 * RFC 4180 cell, always quoted; a text a spreadsheet would run as a formula
 * (starting with = + - @, tab or CR) gets a leading apostrophe.
 */
const FORMULA_STARTS = new Set(["=", "+", "-", "@", "\t", "\r"]);

export function csvCell(value: string) {
  const safe = FORMULA_STARTS.has(value.charAt(0)) ? `'${value}` : value;
  return `"${safe.includes('"') ? safe.replaceAll('"', '""') : safe}"`;
}

export function csvLine(values: string[]) {
  return `${values.map(csvCell).join(",")}\r\n`;
}

const HOUR_MS = 3600_000;
const two = (value: number) => String(value).padStart(2, "0");

/**
 * "21/11/2026 14:05:09" in Europe/Madrid, for many instants in a row. Intl
 * is slow per call, so it formats the day and hour once per hour of the log
 * and the minutes and seconds are appended: Madrid's offset is a whole number
 * of hours, so its hours start when UTC hours do.
 */
export function madridDateTimeFormatter() {
  const hourFormat = new Intl.DateTimeFormat("es-ES", {
    timeZone: TIME_ZONE,
    day: "2-digit",
    month: "2-digit",
    year: "numeric",
    hour: "2-digit",
    hourCycle: "h23",
  });
  const prefixByHour = new Map<number, string>();
  return (epochMs: number) => {
    const hourStart = Math.floor(epochMs / HOUR_MS) * HOUR_MS;
    let prefix = prefixByHour.get(hourStart);
    if (prefix === undefined) {
      const part = Object.fromEntries(hourFormat.formatToParts(hourStart).map(({ type, value }) => [type, value]));
      prefix = `${part.day}/${part.month}/${part.year} ${part.hour}:`;
      prefixByHour.set(hourStart, prefix);
    }
    const sinceHour = epochMs - hourStart;
    return `${prefix}${two(Math.floor(sinceHour / 60_000))}:${two(Math.floor(sinceHour / 1000) % 60)}`;
  };
}

// Cells whose text is one of a few labels, quoted once.
const QUOTED_RESULT = { granted: csvCell(ACCESS_RESULT_LABELS.granted), denied: csvCell(ACCESS_RESULT_LABELS.denied) };
const QUOTED_REASON = Object.fromEntries(
  Object.entries(ACCESS_REASON_LABELS).map(([reason, label]) => [reason, csvCell(label)]),
) as Record<AccessLogRecord["reason"], string>;
const QUOTED_YES = csvCell("Sí");
const QUOTED_NO = csvCell("No");

/** One row as a CSV line, in the order of CSV_HEADERS. */
function csvRecordLine(row: AccessLogRecord, formatDate: (epochMs: number) => string) {
  return `${csvCell(formatDate(row.timestamp))},${csvCell(row.cardNumber)},${csvCell(row.username ?? "")},${csvCell(
    row.doorName ?? row.doorCode,
  )},${row.accessGranted ? QUOTED_RESULT.granted : QUOTED_RESULT.denied},${QUOTED_REASON[row.reason]},${
    row.isAnonymous ? QUOTED_YES : QUOTED_NO
  },${row.offline ? QUOTED_YES : QUOTED_NO},${csvCell(row.ipAddress ?? "")}\r\n`;
}

/**
 * The filtered rows as a CSV download, streamed: each pull of the body reads
 * one keyset batch, so the export holds one batch at a time. (The server
 * must still wait for a slow client: remix-serve's adapter writes each chunk
 * without waiting for the socket to drain.) Starts with a UTF-8 BOM so
 * spreadsheets read the accents.
 */
export function accessLogCsvResponse(filters: LogFilters, now = new Date()) {
  const batches = streamAccessLogs(filters, { now });
  const formatDate = madridDateTimeFormatter();
  const encoder = new TextEncoder();
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`\uFEFF${csvLine(CSV_HEADERS)}`));
        return;
      }
      // libsql answers synchronously: without this the whole export would run
      // in one turn of the event loop, holding every other request and the socket.
      await setImmediate();
      const next = await batches.next();
      if (next.done) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(next.value.map((row) => csvRecordLine(row, formatDate)).join("")));
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="registros-accesos-${todayInMadrid(now)}.csv"`,
      // no-transform: remix-serve's gzip does not wait for the socket to drain,
      // so a compressed million-row export would pile up in memory (~240 MB);
      // sent as is, the stream stays under ~170 MB at ~120k rows/s.
      "Cache-Control": "no-store, no-transform",
    },
  });
}
