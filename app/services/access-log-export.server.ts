// The access log as a CSV download (the admin screen's "Exportar CSV" and
// GET /api/logs/export): the filtered rows, streamed one keyset batch at a
// time as the client takes them, gzip-compressed when it accepts gzip, so the
// export holds a batch or so whatever the size of the log.
import { setImmediate } from "node:timers/promises";
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import { streamAccessLogs, type AccessLogRecord } from "~/models/access-log-query.server";
import { ACCESS_RESULT_LABELS, type LogFilters } from "~/schemas/access-log";
import { madridDateTimeFormatter, todayInMadrid } from "~/utils/dates";
import { currentRequestContext, responseDrained } from "~/utils/http-server-patch.server";

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

/** Whether an Accept-Encoding header accepts gzip (q > 0, named or as `*`). */
export function acceptsGzip(acceptEncoding: string | null) {
  if (!acceptEncoding) return false;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...parameters] = part.trim().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(name!.trim(), q ? Number(q.slice(2)) || 0 : 1);
  }
  return (weights.get("gzip") ?? weights.get("*") ?? 0) > 0;
}

/**
 * The filtered rows as a CSV download, streamed: each pull of the body reads
 * one keyset batch, and waits first for the HTTP response to drain
 * (remix-serve writes each chunk without waiting for the socket), so a slow
 * client slows the database reads instead of filling memory. Compressed here,
 * in the stream, when the client accepts gzip: the server's own compression
 * (which ignores backpressure) is told to leave it alone (no-transform).
 * Starts with a UTF-8 BOM so spreadsheets read the accents.
 */
export function accessLogCsvResponse(filters: LogFilters, { acceptEncoding = null, now = new Date() }: { acceptEncoding?: string | null; now?: Date } = {}) {
  const batches = streamAccessLogs(filters, { now });
  const formatDate = madridDateTimeFormatter();
  const encoder = new TextEncoder();
  const response = currentRequestContext()?.response;
  let started = false;
  const csv = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`\uFEFF${csvLine(CSV_HEADERS)}`));
        return;
      }
      await responseDrained(response);
      if (response?.destroyed) {
        // The client went away: read no further.
        await batches.return(undefined);
        controller.close();
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
  const gzip = acceptsGzip(acceptEncoding);
  const headers = new Headers({
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="registros-accesos-${todayInMadrid(now)}.csv"`,
    "Cache-Control": "no-store, no-transform",
    Vary: "Accept-Encoding",
  });
  if (gzip) headers.set("Content-Encoding", "gzip");
  // (DOM's types give CompressionStream a BufferSource input; it takes the Uint8Arrays above.)
  const compressed = () => csv.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  return new Response(gzip ? compressed() : csv, { headers });
}
