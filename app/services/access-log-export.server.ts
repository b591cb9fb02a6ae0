// The access log as a CSV download (the admin screen's "Exportar CSV" and
// GET /api/logs/export): the filtered rows, produced one keyset batch at a
// time as the download is read, so the export holds a batch or so whatever
// the size of the log. The routes send it with downloadResponse.
import { setImmediate } from "node:timers/promises";
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import { streamAccessLogCsvCells, type AccessLogRecord, type CsvLabels } from "~/models/access-log-query.server";
import { ACCESS_RESULT_LABELS, type LogFilters } from "~/schemas/access-log";
import { madridDateTimeFormatter, todayInMadrid } from "~/utils/dates";
import type { Download } from "~/utils/download.server";
import { withDoorRowId } from "./access-log-review.server";

/**
 * Credencial is the row's credential kind as recorded (card, pin, qr);
 * Titular who held it: a key's holder ('Huésped Ana López · LC7Q2M4A'), or
 * for a card the user the log names (empty when none).
 */
export const CSV_HEADERS = ["Fecha", "Tarjeta", "Usuario", "Puerta", "Resultado", "Motivo", "Anónima", "Sin conexión", "IP", "Credencial", "Titular"];

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

/** The fixed cells, quoted once; the query quotes the free-text ones (csvCell's rule, in SQL). */
const CSV_LABELS: CsvLabels = { ...QUOTED_RESULT, yes: QUOTED_YES, no: QUOTED_NO, reasons: QUOTED_REASON };

/**
 * The filtered rows as a CSV download (`downloadResponse` in
 * app/utils/download.server.ts sends it): a UTF-8 BOM (so spreadsheets read
 * the accents) and the headers, then one chunk per keyset batch of rows,
 * each read only when the download asks for it.
 */
export function accessLogCsv(filters: LogFilters, { now = new Date() }: { now?: Date } = {}): Download {
  return {
    filename: `registros-accesos-${todayInMadrid(now)}.csv`,
    contentType: "text/csv; charset=utf-8",
    chunks: csvChunks(filters, now),
  };
}

async function* csvChunks(filters: LogFilters, now: Date): AsyncGenerator<string, void, undefined> {
  yield `\uFEFF${csvLine(CSV_HEADERS)}`;
  const formatDate = madridDateTimeFormatter();
  const batches = streamAccessLogCsvCells(await withDoorRowId(filters), CSV_LABELS, { now });
  try {
    for (;;) {
      // libsql answers synchronously: without this the whole export would run
      // in one turn of the event loop, holding every other request and the socket.
      await setImmediate();
      const next = await batches.next();
      if (next.done) return;
      // A date is digits, '/', ':' and a space: quoted, nothing to escape.
      let text = "";
      for (const [timestamp, cells] of next.value) text += `"${formatDate(timestamp)}",${cells}\r\n`;
      yield text;
    }
  } finally {
    await batches.return(undefined);
  }
}
