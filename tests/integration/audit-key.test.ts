// The keyed audit chain (docs/audit.md, "What the verification finds"), tried
// as issue 40 found it: someone with the database file (a plain SQLite
// connection, triggers dropped) but not the key edits, deletes, inserts,
// reorders or re-chains events and recomputes the hashes as the chain used to
// be made (plain SHA-256); the verification finds each. Removing the newest
// events is found against the head published beside the key; a trail written
// before the key is anchored by an `audit.key` event and stays checked.
// Each attack works on a copy of this file's chain; the truncation, last, on
// the database itself, through `npm run audit:verify`.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, sql } from "drizzle-orm";
import { auditEvents, type AuditEvent } from "~/db/schema";
import { unkeyedAuditEventHash, GENESIS_HASH } from "~/models/audit-event.server";
import { openAuditTrailOf } from "~/models/database-snapshot.server";
import { checkAuditChain } from "~/services/audit-chain.server";
import { audited, purgeAuditTrail, verifyAuditChain } from "~/services/audit.server";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { auditChainKey, keysDirectory, readPublishedHead } from "~/utils/keys.server";
import { metricsRegistry } from "~/utils/metrics.server";
import { unique } from "../setup/fixtures";

const databaseFile = process.env.DATABASE_URL!.slice("file:".length);
// Beside the data directory: a key store may not lie inside it.
const scratch = `${path.resolve(process.env.DATA_DIR!)}-audit-key-${unique()}`;

async function record(label: string) {
  await audited(
    async (audit) => audit({ action: "door.update", entityType: "door", entityId: label, summary: `editó la puerta ${label}`, after: { name: label } }),
    { actor: { id: "admin-id", username: "admin", role: "admin" }, ip: "192.0.2.7" },
  );
}

type Row = Omit<AuditEvent, "hash"> & { hash: string };
const COLUMNS = "id, at, actor_id, actor_username, actor_role, ip, action, entity_type, entity_id, summary, before, after, prev_hash, hash";

function rowsOf(db: Database.Database): Row[] {
  return (db.prepare(`SELECT ${COLUMNS} FROM audit_events ORDER BY id`).all() as Array<Record<string, unknown>>).map((r) => ({
    id: Number(r.id),
    at: Number(r.at),
    actorId: r.actor_id as string | null,
    actorUsername: String(r.actor_username),
    actorRole: String(r.actor_role),
    ip: r.ip as string | null,
    action: String(r.action),
    entityType: String(r.entity_type),
    entityId: r.entity_id as string | null,
    summary: String(r.summary),
    before: r.before as string | null,
    after: r.after as string | null,
    prevHash: String(r.prev_hash),
    hash: String(r.hash),
  }));
}

/** Writes `rows` as the whole trail, each hashed over the one before with plain SHA-256: the chain as it used to be made. */
function rewriteUnkeyed(db: Database.Database, rows: Row[]) {
  db.exec("DROP TRIGGER IF EXISTS audit_events_no_update; DROP TRIGGER IF EXISTS audit_events_no_delete; DELETE FROM audit_events");
  let prevHash = GENESIS_HASH;
  const insert = db.prepare(`INSERT INTO audit_events (${COLUMNS}) VALUES (${COLUMNS.split(", ").map(() => "?").join(", ")})`);
  for (const row of rows) {
    const content = { ...row, prevHash };
    const hash = unkeyedAuditEventHash(content);
    insert.run(row.id, row.at, row.actorId, row.actorUsername, row.actorRole, row.ip, row.action, row.entityType, row.entityId, row.summary, row.before, row.after, prevHash, hash);
    prevHash = hash;
  }
}

/** A copy of this file's database, attacked by `attack` with a plain SQLite connection, then verified with the key. */
async function attackedCopy(name: string, attack: (db: Database.Database, rows: Row[]) => void) {
  const copy = path.join(scratch, `${name}.db`);
  await getDb().$client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  fs.copyFileSync(databaseFile, copy);
  const db = new Database(copy);
  try {
    attack(db, rowsOf(db));
  } finally {
    db.close();
  }
  const trail = (await openAuditTrailOf(copy))!;
  try {
    return await checkAuditChain(trail, { key: auditChainKey({ create: false })!, published: null });
  } finally {
    await trail.close();
  }
}

async function runVerify(env: Record<string, string | undefined> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["scripts/audit-verify.mjs"], { env: { ...process.env, ...env } });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let ids: number[];

beforeAll(async () => {
  fs.mkdirSync(scratch, { recursive: true });
  for (const label of ["a", "b", "c", "d", "e", "f"]) await record(label);
  ids = (await getDb().select({ id: auditEvents.id }).from(auditEvents).orderBy(asc(auditEvents.id))).map((row) => row.id);
  expect(await verifyAuditChain()).toEqual({ ok: true, checked: ids.length, firstBadId: null });
});

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("someone with the database but not the key", () => {
  it("rewrites an event's actor and summary, deletes another and recomputes the chain (issue 40): its newest event is not signed", async () => {
    const found = await attackedCopy("issue-40", (db, rows) => {
      const kept = rows.filter((row) => row.id !== ids[3]);
      kept[1] = { ...kept[1]!, actorUsername: "otra", summary: "otra editó la puerta b" };
      // Ids renumbered so that no gap shows.
      rewriteUnkeyed(db, kept.map((row, i) => ({ ...row, id: ids[0]! + i })));
    });
    // Recomputed without the key, the whole chain holds as plain SHA-256, but its newest event is not signed.
    expect(found).toMatchObject({ ok: false, firstBadId: ids[0]! + ids.length - 2, problem: "unkeyed" });
  });

  it("edits one event and re-chains everything after it with the old hash: found at that event", async () => {
    const found = await attackedCopy("edit", (db, rows) => {
      db.exec("DROP TRIGGER audit_events_no_update");
      db.prepare("UPDATE audit_events SET summary = ? WHERE id = ?").run("admin no hizo nada", ids[2]);
      // Re-chaining from the edited event on, keeping those before it as they are.
      const edited = rows.map((row) => (row.id === ids[2] ? { ...row, summary: "admin no hizo nada" } : row));
      let prevHash = edited[1]!.hash;
      for (const row of edited.slice(2)) {
        const hash = unkeyedAuditEventHash({ ...row, prevHash });
        db.prepare("UPDATE audit_events SET prev_hash = ?, hash = ? WHERE id = ?").run(prevHash, hash, row.id);
        prevHash = hash;
      }
    });
    expect(found).toMatchObject({ ok: false, firstBadId: ids[2], problem: "hash" });
  });

  it("deletes an event: the ids jump", async () => {
    const found = await attackedCopy("delete", (db) => {
      db.exec("DROP TRIGGER audit_events_no_delete");
      db.prepare("DELETE FROM audit_events WHERE id = ?").run(ids[2]);
    });
    expect(found).toMatchObject({ ok: false, firstBadId: ids[3], problem: "gap" });
  });

  it("deletes an event and renumbers the ones after it: the links break", async () => {
    const found = await attackedCopy("renumber", (db) => {
      db.exec("DROP TRIGGER audit_events_no_delete; DROP TRIGGER audit_events_no_update");
      db.prepare("DELETE FROM audit_events WHERE id = ?").run(ids[2]);
      db.prepare("UPDATE audit_events SET id = id - 1 WHERE id > ?").run(ids[2]);
    });
    expect(found).toMatchObject({ ok: false, firstBadId: ids[2], problem: "link" });
  });

  it("inserts an event in between, copying the links of its neighbours: its hash is not the key's", async () => {
    const found = await attackedCopy("insert", (db, rows) => {
      db.exec("DROP TRIGGER audit_events_no_update");
      db.prepare("UPDATE audit_events SET id = id + 1000 WHERE id > ?").run(ids[2]);
      db.prepare("UPDATE audit_events SET id = id - 999 WHERE id > ?").run(ids[2]! + 1000);
      const forged = { ...rows[2]!, id: ids[2]! + 1, summary: "admin dio acceso a todo", prevHash: rows[2]!.hash };
      db.prepare(`INSERT INTO audit_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        forged.id, forged.at, forged.actorId, forged.actorUsername, forged.actorRole, forged.ip, forged.action, forged.entityType, forged.entityId, forged.summary, forged.before, forged.after, forged.prevHash, unkeyedAuditEventHash(forged),
      );
    });
    expect(found).toMatchObject({ ok: false, firstBadId: ids[2]! + 1, problem: "hash" });
  });

  it("swaps two events (ids kept): the links break", async () => {
    const found = await attackedCopy("reorder", (db) => {
      db.exec("DROP TRIGGER audit_events_no_update");
      db.prepare("UPDATE audit_events SET id = -1 WHERE id = ?").run(ids[1]);
      db.prepare("UPDATE audit_events SET id = ? WHERE id = ?").run(ids[1], ids[2]);
      db.prepare("UPDATE audit_events SET id = ? WHERE id = -1").run(ids[2]);
    });
    expect(found).toMatchObject({ ok: false, firstBadId: ids[1], problem: "link" });
  });

  it("re-chains the whole trail from the genesis without the key: the newest event is not signed", async () => {
    const found = await attackedCopy("rechain", (db, rows) => rewriteUnkeyed(db, rows));
    expect(found).toMatchObject({ ok: false, firstBadId: ids.at(-1), problem: "unkeyed" });
  });
});

describe("a trail written before the key", () => {
  it("is anchored by one signed audit.key event at the next start, verifies, and an edit of its old events is still found", async () => {
    const copy = path.join(scratch, "legacy.db");
    fs.copyFileSync(databaseFile, copy);
    const db = new Database(copy);
    rewriteUnkeyed(db, rowsOf(db));
    db.close();
    const original = process.env.DATABASE_URL;
    process.env.DATABASE_URL = `file:${copy}`;
    resetEnvForTests();
    const processDb = (globalThis as { __db?: unknown }).__db;
    (globalThis as { __db?: unknown }).__db = undefined;
    try {
      expect(await verifyAuditChain()).toEqual({ ok: false, checked: ids.length, firstBadId: ids.at(-1) });
      await purgeAuditTrail(); // what the start runs
      const rows = await getDb().select().from(auditEvents).orderBy(asc(auditEvents.id));
      expect(rows.at(-1)).toMatchObject({ action: "audit.key", actorUsername: "sistema", prevHash: rows.at(-2)!.hash });
      expect(await verifyAuditChain()).toEqual({ ok: true, checked: rows.length, firstBadId: null });
      await purgeAuditTrail();
      expect(await getDb().select({ n: sql<number>`count(*)` }).from(auditEvents)).toEqual([{ n: rows.length }]);

      // The old events, edited and re-chained without the key: the anchor's previous hash no longer matches.
      getDb().$client.close();
      (globalThis as { __db?: unknown }).__db = undefined;
      const attacker = new Database(copy);
      const legacy = rowsOf(attacker).slice(0, -1);
      const anchor = rowsOf(attacker).at(-1)!;
      legacy[0] = { ...legacy[0]!, summary: "admin no hizo nada" };
      rewriteUnkeyed(attacker, legacy);
      attacker.prepare(`INSERT INTO audit_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
        anchor.id, anchor.at, anchor.actorId, anchor.actorUsername, anchor.actorRole, anchor.ip, anchor.action, anchor.entityType, anchor.entityId, anchor.summary, anchor.before, anchor.after, anchor.prevHash, anchor.hash,
      );
      attacker.close();
      expect(await verifyAuditChain()).toEqual({ ok: false, checked: rows.length, firstBadId: anchor.id });
    } finally {
      getDb().$client.close();
      process.env.DATABASE_URL = original;
      resetEnvForTests();
      (globalThis as { __db?: unknown }).__db = processDb;
    }
  });
});

describe("the head, published where the database cannot change it", () => {
  it("is in KEYS_DIR beside the key and in /metrics", async () => {
    const head = readPublishedHead()!;
    expect(head).toMatchObject({ id: ids.at(-1), database: `file:${path.resolve(databaseFile)}` });
    expect(fs.existsSync(path.join(keysDirectory(), "audit-head.json"))).toBe(true);
    expect(path.relative(path.resolve(process.env.DATA_DIR!), keysDirectory()).startsWith("..")).toBe(true);
    const [last] = await getDb().select().from(auditEvents).orderBy(sql`id DESC`).limit(1);
    expect(head.hash).toBe(last!.hash);
    const metrics = await metricsRegistry.metrics();
    expect(metrics).toContain(`audit_chain_head_id ${last!.id}`);
    expect(metrics).toContain(`audit_chain_head_info{id="${last!.id}",hash="${last!.hash}"} 1`);
  });

  it("finds the newest events removed (npm run audit:verify); without the key it checks nothing", async () => {
    await record("g");
    await record("h");
    const [last] = await getDb().select().from(auditEvents).orderBy(sql`id DESC`).limit(1);
    const attacker = new Database(databaseFile);
    try {
      attacker.exec("DROP TRIGGER audit_events_no_delete");
      attacker.prepare("DELETE FROM audit_events WHERE id >= ?").run(last!.id - 1);
    } finally {
      attacker.close();
    }
    const result = await runVerify();
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ data: { ok: false, checked: last!.id - 2 - ids[0]! + 1, firstBadId: last!.id - 1 } });
    expect(result.stderr).toContain(`audit:verify: events from ${last!.id - 1} on are missing: the chain's published head`);

    const elsewhere = path.join(scratch, "no-keys");
    const noKey = await runVerify({ AUDIT_KEY: "", KEYS_DIR: elsewhere });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain("audit:verify: no audit key here");
    expect(fs.existsSync(elsewhere)).toBe(false);
  });
});

describe("the key file", () => {
  it("is generated once, 0600, outside DATA_DIR, when AUDIT_KEY is unset", async () => {
    const keys = path.join(scratch, "generated-keys");
    const saved = { AUDIT_KEY: process.env.AUDIT_KEY, KEYS_DIR: process.env.KEYS_DIR };
    delete process.env.AUDIT_KEY;
    process.env.KEYS_DIR = keys;
    resetEnvForTests();
    try {
      expect(auditChainKey({ create: false })).toBeNull();
      const key = auditChainKey({ create: true })!;
      expect(fs.statSync(path.join(keys, "audit-key")).mode & 0o777).toBe(0o600);
      expect(auditChainKey({ create: true })!.equals(key)).toBe(true);
      process.env.KEYS_DIR = path.join(process.env.DATA_DIR!, "keys");
      resetEnvForTests();
      expect(() => keysDirectory()).toThrow(/must lie outside DATA_DIR/);
    } finally {
      Object.assign(process.env, saved);
      if (saved.KEYS_DIR === undefined) delete process.env.KEYS_DIR;
      resetEnvForTests();
    }
  });
});
