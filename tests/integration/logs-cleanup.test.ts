// The cleanup of a card's denied rows (SPEC §7) and the log's append-only
// rule (issue 40, point 15): the cleanup marks the rows resolved instead of
// deleting them, and the database itself refuses any DELETE of the log but
// the retention purge's, whichever client asks.
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import * as cleanupRoute from "~/routes/api.logs.cleanup";
import { getAccessLogStats, listAccessLogs, purgeAccessLogsBefore, resolveDeniedAccessLogsOfCardNumber } from "~/models/access-log-query.server";
import type { LogFilters } from "~/schemas/access-log";
import { getDb } from "~/utils/db.server";
import { createApiCallers, hexPrefix, insertLogs } from "../setup/fixtures";
import { callApi } from "../setup/route";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T = Date.UTC(2026, 10, 21, 9, 0, 0);

/** Another client on the same database file, as anyone holding the file would open it. */
const plain = createClient({ url: process.env.DATABASE_URL! });
afterAll(() => plain.close());

const filters = (cardNumber: string, status: LogFilters["status"] = "all"): LogFilters => ({ status, doorId: "", dateRange: "all", search: cardNumber });
const rowsOf = async (cardNumber: string, status: LogFilters["status"] = "all") =>
  listAccessLogs(filters(cardNumber, status), { limit: 10, offset: 0 });
const countOf = async (cardNumber: string) =>
  Number((await getDb().all<{ n: number }>(sql`SELECT count(*) AS n FROM access_logs WHERE card_number = ${cardNumber}`))[0]!.n);

describe("cleanup of denied rows", () => {
  it("marks only the card's denied rows resolved, keeps every row, and says how many", async () => {
    const card = `${hexPrefix()}01`;
    const other = `${hexPrefix()}02`;
    await insertLogs([
      { at: T, cardNumber: card, granted: false },
      { at: T - MINUTE, cardNumber: card, granted: false, reason: "card_pending" },
      { at: T - 2 * MINUTE, cardNumber: card, granted: true },
      { at: T - 3 * MINUTE, cardNumber: other, granted: false },
    ]);
    expect((await resolveDeniedAccessLogsOfCardNumber(card, new Date(T + MINUTE))).resolved).toBe(2);
    // Every row stays; the default filter and the denied figures leave the resolved ones out.
    expect(await countOf(card)).toBe(3);
    expect((await rowsOf(card)).map((r) => r.outcome)).toEqual(["granted"]);
    expect((await rowsOf(card, "resolved")).map((r) => [r.outcome, r.accessGranted, r.resolvedAt])).toEqual([
      ["resolved", false, T + MINUTE],
      ["resolved", false, T + MINUTE],
    ]);
    expect(await getAccessLogStats(filters(card))).toMatchObject({ total: 1, granted: 1, denied: 0, alarms: 0 });
    expect(await rowsOf(other, "denied")).toHaveLength(1);
    expect((await resolveDeniedAccessLogsOfCardNumber(card, new Date())).resolved).toBe(0);
  });

  it("DELETE /api/logs/cleanup keeps its answers but deletes nothing", async () => {
    const { adminToken } = await createApiCallers();
    const card = `${hexPrefix()}03`;
    await insertLogs([
      { at: T, cardNumber: card, granted: false },
      { at: T - MINUTE, cardNumber: card, granted: false },
    ]);
    const answer = await callApi(cleanupRoute.action, "/api/logs/cleanup", { method: "DELETE", token: adminToken, body: { cardId: card, accessGranted: false } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ cardId: card, deleted: 2 });
    expect(await countOf(card)).toBe(2);
    expect(await rowsOf(card, "resolved")).toHaveLength(2);
    const refused = await callApi(cleanupRoute.action, "/api/logs/cleanup", { method: "DELETE", token: adminToken, body: { cardId: card, accessGranted: true } });
    expect(refused.status).toBe(400);
  });
});

describe("the access log is append-only", () => {
  it("a plain client's DELETE is refused by the database, and so are rewriting a row and undoing a resolution", async () => {
    const card = `${hexPrefix()}04`;
    const [id] = await insertLogs([{ at: Date.now() - 400 * DAY, cardNumber: card, granted: false }]);
    await expect(plain.execute({ sql: "DELETE FROM access_logs WHERE card_number = ?", args: [card] })).rejects.toThrow(/access_logs_append_only/);
    await expect(plain.execute("DELETE FROM access_logs")).rejects.toThrow(/access_logs_append_only/);
    await expect(plain.execute({ sql: "UPDATE access_logs SET timestamp = 0 WHERE id = ?", args: [id!] })).rejects.toThrow(/access_logs_append_only/);
    await expect(plain.execute({ sql: "UPDATE access_logs SET card_number = 'X' WHERE id = ?", args: [id!] })).rejects.toThrow(/access_logs_append_only/);
    await resolveDeniedAccessLogsOfCardNumber(card, new Date());
    await expect(plain.execute({ sql: "UPDATE access_logs SET resolved_at = NULL WHERE id = ?", args: [id!] })).rejects.toThrow(/access_logs_append_only/);
    // The purge's control row: never a bound in the future, never deleted.
    await expect(plain.execute({ sql: "UPDATE access_log_control SET purge_before = ?", args: [Date.now() + DAY] })).rejects.toThrow(/access_log_purge_bound/);
    await expect(plain.execute("DELETE FROM access_log_control")).rejects.toThrow(/access_logs_append_only/);
    expect(await countOf(card)).toBe(1);
  });

  it("the retention purge still deletes the rows older than its bound, and only inside its own transaction", async () => {
    const card = `${hexPrefix()}05`;
    const now = Date.now();
    await insertLogs([
      { at: now - 500 * DAY, cardNumber: card, granted: true },
      { at: now - 499 * DAY, cardNumber: card, granted: false },
      { at: now - DAY, cardNumber: card, granted: true },
    ]);
    expect(await purgeAccessLogsBefore(new Date(now - 498 * DAY))).toBeGreaterThanOrEqual(2);
    expect(await countOf(card)).toBe(1);
    // The bound went back to 0 when the purge committed: the next DELETE is refused again.
    expect((await plain.execute("SELECT purge_before FROM access_log_control")).rows[0]!.purge_before).toBe(0);
    await expect(plain.execute({ sql: "DELETE FROM access_logs WHERE card_number = ?", args: [card] })).rejects.toThrow(/access_logs_append_only/);
  });
});
