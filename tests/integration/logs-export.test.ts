// The CSV export: the rows, the BOM, the dated file name, and that the body is
// a stream read batch by batch (the cells and dates are tested beside their code).
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_BATCH_SIZE } from "~/models/access-log-query.server";
import { issueApiToken } from "~/models/api-token.server";
import * as pageExport from "~/routes/admin.logs.export";
import * as apiExport from "~/routes/api.logs.export";
import { ACCESS_REASON_LABELS } from "~/doors/reasons";
import { accessLogCsv, CSV_HEADERS } from "~/services/access-log-export.server";
import { csvLine } from "~/utils/csv";
import type { LogFilters } from "~/schemas/access-log";
import { todayInMadrid } from "~/utils/dates";
import { accessLogs } from "~/db/schema";
import { getDb } from "~/utils/db.server";
import { readerThreadStatements } from "~/utils/db-reader-thread.server";
import { downloadResponse } from "~/utils/download.server";
import { withRequestContext } from "~/utils/request-context.server";
import { callRoute, jsonRequest } from "../setup/route";
import { createTestDoor, createTestUser, hexPrefix, insertLogs, sessionCookie } from "../setup/fixtures";
import { turnsDuring } from "../setup/event-loop";

/** What the export routes answer: the service's CSV sent as a download. */
function accessLogCsvResponse(filters: LogFilters, { acceptEncoding = null }: { acceptEncoding?: string | null } = {}) {
  return downloadResponse(accessLogCsv(filters), { acceptEncoding });
}

const HEADER_LINE = '"Fecha","Tarjeta","Usuario","Puerta","Resultado","Motivo","Anónima","Sin conexión","IP","Credencial","Titular"\r\n';

async function readAll(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const chunks: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(decoder.decode(value, { stream: true }));
  }
  return { text: chunks.join(""), chunks };
}

/**
 * Lets a stream's pending pull run: a pull waits one turn of the event loop
 * (setImmediate) before it reads, so after a few turns every read it was
 * going to make has been made. Turns, not time: the same on a slow machine.
 */
async function eventLoopTurns(turns = 4) {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Splits RFC 4180 text (every cell quoted) into rows of cells. */
function parseCsv(text: string) {
  const rows: string[][] = [];
  let cells: string[] = [];
  let i = 0;
  while (i < text.length) {
    expect(text[i]).toBe('"');
    let cell = "";
    i++;
    for (;;) {
      if (text[i] === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
      } else if (text[i] === '"') {
        i++;
        break;
      } else {
        cell += text[i++];
      }
    }
    cells.push(cell);
    if (text[i] === ",") i++;
    else {
      expect(text.slice(i, i + 2)).toBe("\r\n");
      i += 2;
      rows.push(cells);
      cells = [];
    }
  }
  return rows;
}

/**
 * Counts the database reads of the access log while `work` runs (the export's
 * batches): `reads()` tells how many so far; `reset()` starts again.
 */
async function countingLogReads(work: (counter: { reads: () => number; reset: () => void }) => Promise<void>) {
  const client = getDb().$client;
  const original = client.execute.bind(client);
  // The export reads its batches on a reader thread; anything else on the process's connection.
  let reads = 0;
  let threadStart = readerThreadStatements.count;
  client.execute = ((statement: { sql: string }) => {
    if (statement.sql.includes("FROM access_logs")) reads++;
    return original(statement as never);
  }) as typeof client.execute;
  try {
    await work({
      reads: () => reads + readerThreadStatements.count - threadStart,
      reset: () => {
        reads = 0;
        threadStart = readerThreadStatements.count;
      },
    });
  } finally {
    client.execute = original;
  }
}

/** The bulk door's rows: seven and a half export batches. */
const BULK_ROWS = 7.5 * EXPORT_BATCH_SIZE;
const BULK_BATCHES = Math.ceil(BULK_ROWS / EXPORT_BATCH_SIZE);

describe("the export", () => {
  let door: Awaited<ReturnType<typeof createTestDoor>>;
  let bulkDoor: Awaited<ReturnType<typeof createTestDoor>>;
  beforeAll(async () => {
    door = await createTestDoor({ code: `export-${hexPrefix()}`, name: '=Sala "Norte", 1', location: "Planta 1" });
    bulkDoor = await createTestDoor({ code: `bulk-${hexPrefix()}`, name: "Garaje", location: "Sótano" });
    const start = Date.now() - 3_600_000;
    await insertLogs(Array.from({ length: BULK_ROWS }, (_, i) => ({ at: start + i * 100, cardNumber: "C0FFEE", door: bulkDoor })));
  });

  it("writes a BOM, the headers and one line per filtered row, newest first, in Madrid time", async () => {
    const card = `${hexPrefix()}01`;
    const at = Date.UTC(2026, 6, 1, 22, 15, 9); // 00:15:09 on 2 July in Madrid (summer time)
    await insertLogs([
      { at: at - 60_000, cardNumber: card, door, granted: true, username: "-marta", ipAddress: "10.0.0.7" },
      { at, cardNumber: card, door, granted: false, reason: "card_pending", isAnonymous: true, offline: true, ipAddress: null },
    ]);
    const response = accessLogCsvResponse({ status: "all", doorId: door.code, dateRange: "all", search: "" });
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="registros-accesos-${todayInMadrid()}.csv"`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes).slice(1);
    expect(text.startsWith(HEADER_LINE)).toBe(true);
    expect(parseCsv(text)).toEqual([
      CSV_HEADERS,
      ["02/07/2026 00:15:09", card, "", `'=Sala "Norte", 1`, "Denegado", "Tarjeta pendiente de aprobación", "Sí", "Sí", "", "card", ""],
      ["02/07/2026 00:14:09", card, "'-marta", `'=Sala "Norte", 1`, "Concedido", "Acceso concedido", "No", "No", "10.0.0.7", "card", "'-marta"],
    ]);
  });

  it("quotes every cell as csvCell does, whatever the text (the cells are quoted by the query)", async () => {
    const card = `${hexPrefix()}02`;
    const texts = ["=1+1", "+34 600", "-x", "@SUM(A1)", "\tTab", "\rCR", 'dice "hola"', '"', "", "ñandú, 2", "línea\r\nnueva", "'ya"];
    const start = Date.UTC(2026, 0, 10, 9, 0, 0); // 10:00 in Madrid (winter time)
    const doorOf = await Promise.all(
      texts.map((text, i) => createTestDoor({ code: `quote-${hexPrefix()}-${i}`, name: text || "x", location: "Planta 2" })),
    );
    await insertLogs(
      texts.map((text, i) => ({
        at: start + i * 1000,
        cardNumber: card,
        door: doorOf[i],
        username: i % 4 === 3 ? null : text,
        ipAddress: i % 3 === 2 ? null : text,
        granted: i % 2 === 0,
        reason: i % 2 === 0 ? "granted" : "no_permission",
        isAnonymous: i % 5 === 1,
        offline: i % 3 === 1,
      })),
    );
    const { text } = await readAll(accessLogCsvResponse({ status: "all", doorId: "", dateRange: "all", search: card }));
    const expected = texts
      .map((value, i) =>
        csvLine([
          `10/01/2026 10:00:${String(i).padStart(2, "0")}`,
          card,
          i % 4 === 3 ? "" : value,
          value || "x",
          i % 2 === 0 ? "Concedido" : "Denegado",
          i % 2 === 0 ? ACCESS_REASON_LABELS.granted : ACCESS_REASON_LABELS.no_permission,
          i % 5 === 1 ? "Sí" : "No",
          i % 3 === 1 ? "Sí" : "No",
          i % 3 === 2 ? "" : value,
          "card",
          i % 4 === 3 ? "" : value,
        ]),
      )
      .reverse();
    expect(text.replace(/^\uFEFF/, "")).toBe(HEADER_LINE + expected.join(""));
  });

  it("ends each line with the credential kind and its holder: a key's holder, a card's user", async () => {
    const reference = `LC${hexPrefix()}`;
    const keyDoor = await createTestDoor({ code: `keys-${hexPrefix()}`, name: "Portal", location: "Planta 0" });
    const at = Date.UTC(2026, 0, 12, 9, 0, 0); // 10:00 in Madrid (winter time)
    const row = (i: number, fields: Partial<typeof accessLogs.$inferInsert>) => {
      const id = randomUUID();
      return { id, eventId: id, timestamp: new Date(at + i * 1000), cardNumber: reference, doorId: keyDoor.id, doorCode: keyDoor.code, doorName: keyDoor.name,
        accessGranted: true, reason: "granted" as const, source: "keypad", ipAddress: null, ...fields };
    };
    await getDb().insert(accessLogs).values([
      row(0, { credentialKind: "pin", holder: "Huésped Ana López · LC7Q2M4A" }),
      row(1, { credentialKind: "qr", holder: "=Visita de Bea Suárez: Carlos" }),
      row(2, { credentialKind: "card", username: "bea.suarez" }),
      row(3, { credentialKind: "pin", holder: null, accessGranted: false, reason: "invalid_key" }),
    ]);
    const rows = parseCsv((await readAll(accessLogCsvResponse({ status: "all", doorId: keyDoor.code, dateRange: "all", search: "" }))).text.slice(1));
    expect(rows[0]!.slice(-2)).toEqual(["Credencial", "Titular"]);
    expect(rows.slice(1).map((cells) => [cells[0], ...cells.slice(-2)])).toEqual([
      ["12/01/2026 10:00:03", "pin", ""],
      ["12/01/2026 10:00:02", "card", "bea.suarez"],
      ["12/01/2026 10:00:01", "qr", "'=Visita de Bea Suárez: Carlos"],
      ["12/01/2026 10:00:00", "pin", "Huésped Ana López · LC7Q2M4A"],
    ]);
  });

  it("is a stream that arrives in many chunks, one batch of rows per chunk", async () => {
    const response = accessLogCsvResponse({ status: "all", doorId: bulkDoor.code, dateRange: "24h", search: "" });
    expect(response.body).toBeInstanceOf(ReadableStream);
    const { text, chunks } = await readAll(response);
    // The header, then one chunk per batch: 7 full batches and a half one.
    expect(BULK_BATCHES).toBe(8);
    expect(chunks.length).toBe(BULK_BATCHES + 1);
    expect(chunks.slice(1).map((chunk) => chunk.split("\r\n").length - 1)).toEqual([...Array(7).fill(EXPORT_BATCH_SIZE), EXPORT_BATCH_SIZE / 2]);
    expect(text.split("\r\n").length - 1).toBe(BULK_ROWS + 1);
  });

  it("lets the server handle other work between batches", async () => {
    // libsql answers synchronously; an export that never yields would hold the event loop to the end.
    const { result, turns } = await turnsDuring(() => readAll(accessLogCsvResponse({ status: "all", doorId: bulkDoor.code, dateRange: "24h", search: "" })));
    expect(result.chunks.length).toBe(BULK_BATCHES + 1);
    expect(turns).toBeGreaterThanOrEqual(BULK_BATCHES - 1);
  });

  it("reads its batches on a reader thread, none on the process's own connection (libsql blocks the thread that calls it)", async () => {
    const client = getDb().$client;
    const original = client.execute.bind(client);
    let ownReads = 0;
    client.execute = ((statement: { sql: string }) => {
      if (statement.sql.includes("FROM access_logs")) ownReads++;
      return original(statement as never);
    }) as typeof client.execute;
    const threadBefore = readerThreadStatements.count;
    try {
      const { chunks } = await readAll(accessLogCsvResponse({ status: "all", doorId: bulkDoor.code, dateRange: "24h", search: "" }));
      expect(chunks.length).toBe(BULK_BATCHES + 1);
    } finally {
      client.execute = original;
    }
    expect(ownReads).toBe(0);
    // One read per batch (the last is not full: no read after it).
    expect(readerThreadStatements.count - threadBefore).toBe(BULK_BATCHES);
  });

  it("reads the log only as fast as the download is read, and stops when it is cancelled", async () => {
    await countingLogReads(async ({ reads }) => {
      const reader = accessLogCsvResponse({ status: "all", doorId: bulkDoor.code, dateRange: "24h", search: "" }).body!.getReader();
      await reader.read(); // the header
      await reader.read(); // the first batch of rows
      await eventLoopTurns();
      // At most one batch read ahead of the reader, of the 8 the rows need.
      expect(reads()).toBeLessThanOrEqual(2);
      await reader.cancel();
      await eventLoopTurns();
      expect(reads()).toBeLessThanOrEqual(2);
      expect((await reader.read()).done).toBe(true);
    });
  });
});

describe("compression and backpressure", () => {
  let bulkDoor: Awaited<ReturnType<typeof createTestDoor>>;
  const filters = () => ({ status: "all" as const, doorId: bulkDoor.code, dateRange: "24h" as const, search: "" });
  beforeAll(async () => {
    bulkDoor = await createTestDoor({ code: `gzip-${hexPrefix()}`, name: "Trastero", location: "Sótano" });
    const start = Date.now() - 3_600_000;
    await insertLogs(Array.from({ length: 4 * EXPORT_BATCH_SIZE }, (_, i) => ({ at: start + i * 100, cardNumber: "C0FFEE", door: bulkDoor })));
  });

  it("is gzip-compressed in the stream when the client accepts gzip, and decompresses to the same CSV", async () => {
    const plain = accessLogCsvResponse(filters(), { acceptEncoding: null });
    expect(plain.headers.get("Content-Encoding")).toBeNull();
    const plainBytes = Buffer.from(await plain.arrayBuffer());

    const compressed = accessLogCsvResponse(filters(), { acceptEncoding: "gzip, deflate, br" });
    expect(compressed.headers.get("Content-Encoding")).toBe("gzip");
    expect(compressed.headers.get("Vary")).toBe("Accept-Encoding");
    // The server's own compression must leave it alone.
    expect(compressed.headers.get("Cache-Control")).toBe("no-store, no-transform");
    const wire = Buffer.from(await compressed.arrayBuffer());
    expect(wire.length).toBeLessThan(plainBytes.length / 5);
    expect(gunzipSync(wire).equals(plainBytes)).toBe(true);
    expect(plainBytes.toString("utf8").split("\r\n").length - 1).toBe(4 * EXPORT_BATCH_SIZE + 1);
  });

  it("is sent as is to a client that does not accept gzip", async () => {
    for (const acceptEncoding of [null, "identity", "gzip;q=0, identity", "br"]) {
      expect(accessLogCsvResponse(filters(), { acceptEncoding }).headers.get("Content-Encoding")).toBeNull();
    }
  });

  it("reads no rows while the HTTP response cannot take more bytes, gzip or not, and all of them once it drains", async () => {
    await countingLogReads(async ({ reads, reset }) => {
      for (const acceptEncoding of ["gzip", null]) {
        reset();
        // A response whose socket buffer is full, as http.ServerResponse says it.
        const response = Object.assign(new EventEmitter(), { writableNeedDrain: true, destroyed: false });
        const context = { rendersDocument: false, toasts: [], forwardedProto: null, response: response as unknown as ServerResponse };
        const body = withRequestContext(context, () => accessLogCsvResponse(filters(), { acceptEncoding })).body!;
        const read = new Response(body).arrayBuffer();
        await eventLoopTurns(8);
        expect(reads()).toBe(0);
        response.writableNeedDrain = false;
        response.emit("drain");
        const bytes = Buffer.from(await read);
        const text = (acceptEncoding ? gunzipSync(bytes) : bytes).toString("utf8");
        expect(text.split("\r\n").length - 1).toBe(4 * EXPORT_BATCH_SIZE + 1);
        expect(reads()).toBeGreaterThanOrEqual(4);
      }
    });
  });
});

describe("export routes", () => {
  let adminToken: string;
  let residentToken: string;
  let adminCookie: string;
  let residentCookie: string;
  let card: string;

  beforeAll(async () => {
    const admin = await createTestUser({ username: "export-admin", role: "admin" });
    const resident = await createTestUser({ username: "export-vecino" });
    adminToken = (await issueApiToken(admin.id)).token;
    residentToken = (await issueApiToken(resident.id)).token;
    adminCookie = await sessionCookie(admin.id);
    residentCookie = await sessionCookie(resident.id);
    card = `${hexPrefix()}AA`;
    await insertLogs([
      { at: Date.now() - 60_000, cardNumber: card, granted: false },
      { at: Date.now() - 120_000, cardNumber: card, granted: true },
    ]);
  });

  const api = (query: string, token?: string) =>
    callRoute(apiExport.loader, jsonRequest(`/api/logs/export${query}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }));

  it("GET /api/logs/export streams the filtered rows for an admin's token", async () => {
    const response = await api(`?export=csv&status=denied&search=${card}`, adminToken);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="registros-accesos-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parseCsv((await readAll(response)).text.slice(1));
    expect(rows.slice(1).map((cells) => [cells[1], cells[4]])).toEqual([[card, "Denegado"]]);
  });

  it("GET /api/logs/export filters by the door's hardware code (doorId), and by its row id for one release", async () => {
    const door = await createTestDoor({ code: `export-door-${hexPrefix()}`, name: "Lavandería", location: "Planta -1" });
    await insertLogs([{ at: Date.now() - 30_000, cardNumber: `${hexPrefix()}0D`, door, granted: true }]);
    const doorsOf = async (query: string) => parseCsv((await readAll(await api(query, adminToken))).text.slice(1)).slice(1).map((cells) => cells[3]);
    expect(await doorsOf(`?export=csv&doorId=${door.code}`)).toEqual(["Lavandería"]);
    expect(await doorsOf(`?export=csv&doorId=${door.id}`)).toEqual(["Lavandería"]);
  });

  it("GET /api/logs/export and /admin/logs/export send gzip to a client that accepts it", async () => {
    const viaApi = await callRoute(
      apiExport.loader,
      jsonRequest(`/api/logs/export?export=csv&search=${card}`, { headers: { Authorization: `Bearer ${adminToken}`, "Accept-Encoding": "gzip" } }),
    );
    expect(viaApi.headers.get("Content-Encoding")).toBe("gzip");
    expect(parseCsv(gunzipSync(Buffer.from(await viaApi.arrayBuffer())).toString("utf8").slice(1))).toHaveLength(3);
    const viaPage = await callRoute(
      pageExport.loader,
      new Request(`http://localhost/admin/logs/export?search=${card}&dateRange=7d`, { headers: { Cookie: adminCookie, "Accept-Encoding": "gzip" } }),
    );
    expect(viaPage.headers.get("Content-Encoding")).toBe("gzip");
    expect(parseCsv(gunzipSync(Buffer.from(await viaPage.arrayBuffer())).toString("utf8").slice(1))).toHaveLength(3);
  });

  it("GET /api/logs/export answers 401 without a token, 403 to a resident and 400 to another format", async () => {
    const anonymous = await api("?export=csv");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ success: false, error: { message: "No autenticado" } });
    const resident = await api("?export=csv", residentToken);
    expect(resident.status).toBe(403);
    expect((await resident.json()).error.message).toBe("Acceso denegado");
    const xlsx = await api("?export=xlsx", adminToken);
    expect(xlsx.status).toBe(400);
    expect((await xlsx.json()).error.message).toBe("export debe ser csv");
    const badRange = await api("?export=csv&dateRange=1y", adminToken);
    expect((await badRange.json()).error.message).toBe("dateRange debe ser 24h, 7d, 30d o all");
  });

  it("/admin/logs/export downloads for an admin's session and sends others away", async () => {
    const page = (cookie: string) =>
      callRoute(pageExport.loader, new Request(`http://localhost/admin/logs/export?search=${card}&dateRange=7d`, { headers: { Cookie: cookie } }));
    const response = await page(adminCookie);
    expect(response.status).toBe(200);
    expect(parseCsv((await readAll(response)).text.slice(1))).toHaveLength(3);
    expect((await page(residentCookie)).headers.get("Location")).toBe("/");
    expect((await page("")).headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });
});
