// The access log as a CSV download (the admin screen's "Exportar CSV" and
// GET /api/logs/export): the filtered rows, produced one keyset batch at a
// time as the download is read, so the export holds a batch or so whatever
// the size of the log. The routes send it with downloadResponse. Once it is
// over (all sent, or the client gone) it leaves an event `access_log.export`
// in the audit trail: who, the filters, how many rows.
import { setImmediate } from "node:timers/promises";
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import { streamAccessLogCsvRows } from "~/models/access-log-query.server";
import { ACCESS_RESULT_LABELS, OUTCOME_OF_VALUE, type LogFilters } from "~/schemas/access-log";
import { madridDateTimeFormatter, todayInMadrid } from "~/utils/dates";
import { csvCell, csvLine } from "~/utils/csv";
import type { Download } from "~/utils/download.server";
import { withDoorRowId } from "./access-log-review.server";
import { auditedExport, countOf, presentFilters } from "./audit.server";

/**
 * Credencial is the row's credential kind as recorded (card, pin, qr);
 * Titular who held it: a key's holder ('Huésped Ana López · LC7Q2M4A'), or
 * for a card the user the log names (empty when none).
 */
export const CSV_HEADERS = ["Fecha", "Tarjeta", "Usuario", "Puerta", "Resultado", "Motivo", "Anónima", "Sin conexión", "IP", "Credencial", "Titular"];

// Cells whose text is one of a few labels, quoted once.
/** By the row's outcome (ACCESS_OUTCOMES): Denegado, Concedido, Alarma, Resuelto. */
const QUOTED_RESULT = [0, 1, 2, 3].map((outcome) => csvCell(ACCESS_RESULT_LABELS[OUTCOME_OF_VALUE[outcome]!]));
const QUOTED_REASON = new Map(Object.entries(ACCESS_REASON_LABELS).map(([reason, label]) => [reason, csvCell(label)]));
const QUOTED_YES = csvCell("Sí");
const QUOTED_NO = csvCell("No");
const EMPTY = csvCell("");

/** Distinct texts an export quotes before it forgets them (memory stays bounded on any log). */
const QUOTED_CACHE_SIZE = 50_000;

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
    chunks: auditedExport(
      (counter) => csvChunks(filters, now, counter),
      (rows, complete) => ({
        action: "access_log.export",
        entityType: "access_log",
        entityId: null,
        summary: `exportó ${countOf(rows, "registro", "registros")} de accesos en CSV${complete ? "" : " (descarga interrumpida)"}`,
        after: { format: "csv", rows, complete, filters: presentFilters(filters) },
      }),
    ),
  };
}

async function* csvChunks(filters: LogFilters, now: Date, counter: { rows: number }): AsyncGenerator<string, void, undefined> {
  yield `\uFEFF${csvLine(CSV_HEADERS)}`;
  const formatDate = madridDateTimeFormatter();
  // Doors, users, card numbers and addresses repeat row after row: each
  // distinct text is quoted once.
  const quoted = new Map<string, string>();
  const cell = (value: string | null) => {
    if (!value) return EMPTY;
    let text = quoted.get(value);
    if (text === undefined) {
      if (quoted.size >= QUOTED_CACHE_SIZE) quoted.clear();
      text = csvCell(value);
      quoted.set(value, text);
    }
    return text;
  };
  const batches = streamAccessLogCsvRows(await withDoorRowId(filters), { now });
  try {
    for (;;) {
      // libsql answers synchronously: without this the whole export would run
      // in one turn of the event loop, holding every other request and the socket.
      await setImmediate();
      const next = await batches.next();
      if (next.done) return;
      // A date is digits, '/', ':' and a space: quoted, nothing to escape.
      let text = "";
      counter.rows += next.value.length;
      for (const [, timestamp, cardNumber, username, door, outcome, reason, isAnonymous, offline, ipAddress, kind, holder] of next.value) {
        text += `"${formatDate(timestamp)}",${cell(cardNumber)},${cell(username)},${cell(door)},${
          QUOTED_RESULT[outcome] ?? QUOTED_RESULT[0]},${QUOTED_REASON.get(reason) ?? cell(reason)},${
          isAnonymous ? QUOTED_YES : QUOTED_NO},${offline ? QUOTED_YES : QUOTED_NO},${cell(ipAddress)},${cell(kind)},${cell(holder)}\r\n`;
      }
      yield text;
    }
  } finally {
    await batches.return(undefined);
  }
}
