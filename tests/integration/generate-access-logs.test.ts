// The benchmarks' log generator (scripts/generate-access-logs.mjs) loads the
// log without its indexes, triggers and foreign-key checks: afterwards the
// counters of migrations 0015 and 0025 must equal a recount of the rows, and the
// database must be as the app keeps it (WAL, indexes, triggers, foreign keys).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, expect, it } from "vitest";
import { generateAccessLogs } from "../../scripts/generate-access-logs.mjs";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "generate-logs-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("writes counters equal to a recount of the generated rows, and leaves the log as the app keeps it", async () => {
  const url = `file:${path.join(dir, "app.db")}`;
  await generateAccessLogs({ url, rows: 12_000, doors: 6, cards: 300, days: 3, log: () => {} });
  const client = createClient({ url });
  try {
    const rows = async (statement: string) => (await client.execute(statement)).rows.map((row) => Array.from({ length: row.length }, (_, i) => String(row[i])).join("|")).sort();
    expect(await rows("SELECT hour, door_key, granted, attempts FROM access_log_hours")).toEqual(
      await rows("SELECT CAST(timestamp AS INTEGER) / 3600000, coalesce(door_id, ''), access_granted, count(*) FROM access_logs GROUP BY 1, 2, 3"),
    );
    expect(await rows("SELECT door_key, card_number, granted, attempts, last_at FROM access_log_card_doors")).toEqual(
      await rows("SELECT coalesce(door_id, ''), card_number, access_granted, count(*), max(timestamp) FROM access_logs GROUP BY 1, 2, 3"),
    );
    expect(await rows("SELECT card_number, granted, attempts, last_at FROM access_log_cards")).toEqual(
      await rows("SELECT card_number, access_granted, count(*), max(timestamp) FROM access_logs GROUP BY 1, 2"),
    );
    expect(await rows("SELECT card_number, last_at FROM access_log_card_last")).toEqual(await rows("SELECT card_number, max(timestamp) FROM access_logs GROUP BY 1"));
    expect(Number((await client.execute("SELECT count(*) AS n FROM access_logs")).rows[0]!.n)).toBe(12_000);
    // Guests' PIN and QR keys beside the cards, logged as the access service logs them.
    const kinds = await rows("SELECT credential_kind, count(*) > 0, sum(card_id IS NULL AND username IS NULL) = count(*), sum(holder IS NULL) = sum(reason = 'invalid_key') FROM access_logs WHERE credential_kind <> 'card' GROUP BY 1");
    expect(kinds).toEqual(["pin|1|1|1", "qr|1|1|1"]);
    expect(String((await client.execute("PRAGMA journal_mode")).rows[0]![0])).toBe("wal");
    expect(Number((await client.execute("PRAGMA foreign_key_check")).rows.length)).toBe(0);
    const names = async (type: string) => (await client.execute({ sql: "SELECT name FROM sqlite_master WHERE type = ? AND tbl_name = 'access_logs'", args: [type] })).rows.map((row) => String(row.name));
    expect(await names("index")).toEqual(expect.arrayContaining(["access_logs_timestamp_idx", "access_logs_user_idx", "access_logs_card_idx", "access_logs_door_event_idx"]));
    expect((await names("trigger")).length).toBeGreaterThan(0);
  } finally {
    client.close();
  }
}, 60_000);
