// The access process's recorder thread (app/access/recorder-thread.server.ts),
// started from the access bundle as build/access.js starts it, each time on a
// database of its own: who copies the WAL back into the database.
import crypto from "node:crypto";
import fs from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTs } from "../../scripts/lib/run-ts.mjs";
import type { AccessInput } from "~/access/record-batch.server";
import { CHECKPOINT_SAFETY_NET_PAGES, startRecorderThread } from "~/access/recorder-thread.server";
import { buildingReadings } from "~/db/schema";
import { getDb, migrateDatabase, openDatabase } from "~/utils/db.server";

const entry = path.resolve("node_modules", ".cache", "coliving-tests", `recorder-${process.pid}.mjs`);
/** SQLite's automatic checkpoint threshold, in pages. */
const SQLITE_AUTO_CHECKPOINT_PAGES = 1000;
const PAGE_SIZE = 4096;

beforeAll(async () => {
  await bundleTs("app/access/main.server.ts", entry);
});

afterAll(() => fs.rmSync(entry, { force: true }));

/** Frames the WAL file has room for: it never shrinks, so this is the most it ever held. */
function walPages(databaseFile: string) {
  const size = fs.existsSync(`${databaseFile}-wal`) ? fs.statSync(`${databaseFile}-wal`).size : 0;
  return Math.max(0, Math.floor((size - 32) / (PAGE_SIZE + 24)));
}

const swipes = (count: number): AccessInput[] =>
  Array.from({ length: count }, () => ({
    kind: "swipe",
    id: crypto.randomUUID(),
    doorCode: "recorder-door",
    cardNumber: crypto.randomBytes(4).toString("hex").toUpperCase(),
    rawCard: "",
    source: "reader",
    ipAddress: null,
  }));

/** A recorder thread on a fresh database; records batches of ten swipes until `enough` says so (at most 400). */
async function recordOnFreshDatabase(checkpointsElsewhere: boolean, enough: (walPages: number) => boolean) {
  const dir = await mkdtemp(path.join(tmpdir(), "recorder-"));
  const databaseFile = path.join(dir, "app.db");
  const database = openDatabase(`file:${databaseFile}`);
  await migrateDatabase(database, path.resolve("drizzle"));
  database.$client.close();

  // The thread opens DATABASE_URL from the environment it starts with.
  const testDatabaseUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = `file:${databaseFile}`;
  const recorder = startRecorderThread(entry, { checkpointsElsewhere });
  process.env.DATABASE_URL = testDatabaseUrl;
  let batches = 0;
  try {
    while (batches < 400 && !enough(walPages(databaseFile))) {
      const { decisions } = await recorder.record(swipes(10));
      expect(decisions).toHaveLength(10);
      batches += 1;
    }
    return { batches, walPages: walPages(databaseFile) };
  } finally {
    await recorder.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("the recorder thread", () => {
  it("leaves the WAL to the checkpoint thread when there is one: none of its commits copies it back", async () => {
    const pastSqliteThreshold = (pages: number) => pages > SQLITE_AUTO_CHECKPOINT_PAGES * 1.5;
    const withCheckpointThread = await recordOnFreshDatabase(true, pastSqliteThreshold);
    expect(withCheckpointThread.walPages).toBeGreaterThan(SQLITE_AUTO_CHECKPOINT_PAGES * 1.5);
    expect(withCheckpointThread.walPages).toBeLessThan(CHECKPOINT_SAFETY_NET_PAGES);

    // Without one, the same batches keep SQLite's own checkpoint: the WAL is copied back
    // and reused from its start, so it never holds much more than 1,000 pages.
    const alone = await recordOnFreshDatabase(false, () => false);
    expect(alone.batches).toBe(400);
    expect(alone.walPages).toBeLessThan(SQLITE_AUTO_CHECKPOINT_PAGES * 1.2);
  });

  it("stores the building sensors' readings in a batch's transaction, with swipes or alone", async () => {
    // This file's own database, which the thread opens from DATABASE_URL.
    const recorder = startRecorderThread(entry, { checkpointsElsewhere: false });
    try {
      const reading = (temperature: number) => ({ temperature, humidity: 50, wifiStatus: "connected", recordedAt: new Date(Date.now() - 1000) });
      const { decisions } = await recorder.record(swipes(2), new Map(), new Date(), [reading(17.25)]);
      expect(decisions).toHaveLength(2);
      expect(await recorder.record([], new Map(), new Date(), [reading(17.5)])).toEqual({ decisions: [], deactivatedCardIds: [] });
      const rows = await getDb().select().from(buildingReadings).where(inArray(buildingReadings.temperature, [17.25, 17.5]));
      expect(rows.map((row) => row.temperature).sort()).toEqual([17.25, 17.5]);
    } finally {
      await recorder.stop();
    }
  });
});
