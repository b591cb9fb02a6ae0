// The access log's counters (migration 0015: rows per hour, door and result;
// per card, door and result; per card and result, with the newest row's
// time; migration 0025: each card's newest row) against a full recount of
// access_logs, after swipes recorded through the recorder's transaction,
// offline decisions overriding online ones, the cleanup of a card's denied
// rows (marked resolved), door alarms (their own outcome), the retention purge, a door's deletion, and a recorder killed with
// SIGKILL while writing.
import { fork } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../bridge/src/test-support/eventually";
import { keptAccessLogCounters, recountedAccessLogCounters } from "../../scripts/lib/access-log-recount";
import { bundleTs } from "../../scripts/lib/run-ts.mjs";
import { recordAccessBatch, type AccessInput } from "~/access/record-batch.server";
import { purgeAccessLogsBefore } from "~/models/access-log-query.server";
import { raiseDoorAlarm } from "~/models/door-alarm.server";
import { cleanupDeniedLogs } from "~/services/access-log-review.server";
import { deleteDoor } from "~/services/doors.server";
import { purgeRetainedData } from "~/boot.server";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { createTestCard, createTestDoor, insertLogs } from "../setup/fixtures";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

afterAll(() => {
  delete process.env.ACCESS_LOG_RETENTION_MONTHS;
  resetEnvForTests();
});

async function expectCountersExact(what: string) {
  const [kept, counted] = [await keptAccessLogCounters(), await recountedAccessLogCounters()];
  expect(kept.hours.length, what).toBeGreaterThan(0);
  expect(kept, what).toEqual(counted);
}

const countRows = async () => Number((await getDb().all<{ n: number }>(sql`SELECT count(*) AS n FROM access_logs`))[0]!.n);

describe("access log counters", () => {
  it("equal a full recount after many swipes, overrides, cleanup, purge and a door's deletion", async () => {
    const doors = await Promise.all(["a", "b", "c"].map((name) => createTestDoor({ code: `count-${name}-${randomUUID().slice(0, 6)}` })));
    const cards: string[] = [];
    for (let i = 0; i < 8; i++) cards.push((await createTestCard(`C0A7${String(i).padStart(4, "0")}`, i % 2 ? [doors[0]!.id] : [])).card.cardNumber);
    const strangers = ["DEAD0001", "DEAD0002", "DEAD0003"];
    const pick = <T>(list: T[], i: number) => list[(i * 7 + (i >> 3)) % list.length]!;

    // Swipes through the recorder's transaction, batch by batch, over three days.
    const start = Date.now() - 3 * DAY;
    const answered: { doorCode: string; id: string; cardNumber: string; at: number }[] = [];
    for (let batch = 0; batch < 60; batch++) {
      const now = new Date(start + batch * 71 * 60_000);
      const items: AccessInput[] = Array.from({ length: 50 }, (_, i) => {
        const doorCode = pick(doors, batch + i).code;
        const cardNumber = pick([...cards, ...strangers], batch * 50 + i);
        if (i % 10 === 9) {
          return { kind: "event", id: randomUUID(), doorCode, cardNumber, at: new Date(now.getTime() - 5 * HOUR), granted: i % 20 === 9, reason: i % 20 === 9 ? "granted" : "offline_deny", offline: true, ipAddress: null };
        }
        const id = randomUUID();
        answered.push({ doorCode, id, cardNumber, at: now.getTime() });
        return { kind: "swipe", id, doorCode, cardNumber, rawCard: cardNumber, source: "reader", ipAddress: "192.0.2.7" };
      });
      await recordAccessBatch(items, now);
    }
    // Rows written directly (at exact instants), and one without a door row.
    await insertLogs([
      { at: start - 40 * DAY, cardNumber: cards[0]!, door: doors[1]!, granted: false },
      { at: start - 39 * DAY, cardNumber: cards[1]!, door: null, granted: true },
      { at: Date.now() + 60_000, cardNumber: cards[2]!, door: doors[2]!, granted: true },
    ]);
    expect(await countRows()).toBe(60 * 50 + 3);
    await expectCountersExact("after the swipes");

    // A door's offline decision replaces the online one of the same swipe (an UPDATE of the row).
    const overrides: AccessInput[] = answered.slice(0, 40).map(({ doorCode, id, cardNumber, at }, i) => ({
      kind: "event", id, doorCode, cardNumber, at: new Date(at), granted: i % 2 === 0, reason: i % 2 === 0 ? "granted" : "offline_deny", offline: true, ipAddress: null,
    }));
    await recordAccessBatch(overrides, new Date());
    await expectCountersExact("after offline decisions overrode online ones");

    // DELETE /api/logs/cleanup's work: a card's denied rows, marked resolved (issue 40: an UPDATE, no row goes).
    const before = await countRows();
    const cleaned = await cleanupDeniedLogs(strangers[0]!);
    expect(cleaned.ok && cleaned.deleted).toBeGreaterThan(0);
    expect(await countRows()).toBe(before);
    await expectCountersExact("after the cleanup");

    // Door alarms are their own outcome in the counters, never a denial (issue 40, point 17).
    expect(await raiseDoorAlarm(doors[1]!, "door_offline", new Date(start + DAY))).not.toBeNull();
    expect(await raiseDoorAlarm(doors[2]!, "forced_open", new Date(start + 2 * DAY))).not.toBeNull();
    await expectCountersExact("after two alarms");
    const outcomes = await getDb().all<{ granted: number }>(sql`SELECT DISTINCT granted FROM access_log_hours ORDER BY 1`);
    expect(outcomes.map((row) => row.granted)).toEqual([0, 1, 2, 3]);

    // The retention purge, as the daily job runs it, then in small batches.
    process.env.ACCESS_LOG_RETENTION_MONTHS = "1";
    resetEnvForTests();
    const purged = await purgeRetainedData(new Date(start + 2 * DAY)); // the rows from 39 and 40 days before
    expect(purged?.accessLogs).toBeGreaterThan(0);
    await expectCountersExact("after the daily purge");

    expect(await purgeAccessLogsBefore(new Date(start + DAY), 100)).toBeGreaterThan(100);
    await expectCountersExact("after the purge");
    // Deleting a door sets its rows' door to NULL: they move to the no-door key.
    expect((await deleteDoor(doors[0]!.id)).ok).toBe(true);
    await expectCountersExact("after a door's deletion");
  }, 60_000);

  it("equal a full recount after the recorder is killed with SIGKILL while writing", async () => {
    const doors = await Promise.all(["k1", "k2"].map((name) => createTestDoor({ code: `kill-${name}-${randomUUID().slice(0, 6)}` })));
    const cards = ["BEEF0001", "BEEF0002", "BEEF0003", "BEEF0004"];
    await createTestCard(cards[0]!, [doors[0]!.id]);
    const entry = path.resolve("node_modules", ".cache", "coliving-tests", `record-loop-${process.pid}.mjs`);
    await bundleTs("tests/setup/record-loop.ts", entry);
    try {
      for (let round = 0; round < 3; round++) {
        const child = fork(entry, [], {
          env: { ...process.env, RECORD_LOOP_DOORS: doors.map((door) => door.code).join(","), RECORD_LOOP_CARDS: cards.join(",") },
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        });
        let committed = 0;
        child.on("message", (message: { committed: number }) => (committed = message.committed));
        const exited = new Promise((resolve) => child.once("exit", resolve));
        await eventually(() => committed >= 5 + round * 3, "the recorder to commit a few batches", 15_000);
        // Somewhere inside a later batch's transaction, most likely.
        child.kill("SIGKILL");
        await exited;
      }
    } finally {
      fs.rmSync(entry, { force: true });
    }
    expect(await countRows()).toBeGreaterThan(0);
    await expectCountersExact("after SIGKILLs of the recorder");
  }, 60_000);

  it("migration 0025 fills each card's newest row from the counters already kept", async () => {
    const door = await createTestDoor({ code: `fill-${randomUUID().slice(0, 6)}` });
    const at = Date.now() - DAY;
    await insertLogs([
      { at, cardNumber: "F111A001", door, granted: true },
      { at: at + HOUR, cardNumber: "F111A001", door, granted: false },
      { at: at + 2 * HOUR, cardNumber: "F111A002", door: null, granted: false },
    ]);
    await getDb().run(sql`DELETE FROM access_log_card_last`);
    // The backfill in force: migration 0028's (each card's newest grant or denial; issue 40), which replaced 0025's.
    const migration = fs.readFileSync("drizzle/0028_access_log_outcomes.sql", "utf8").split("--> statement-breakpoint");
    const backfill = migration.find((statement) => statement.trim().startsWith("INSERT INTO `access_log_card_last`"))!;
    await getDb().$client.execute(backfill);
    await expectCountersExact("after the backfill");
  });
});
