// Whole-database copies for backups (app/services/backups.server.ts) and
// their checks before a restore. The copy is SQLite's `VACUUM INTO`: one
// read transaction, so it is consistent while the app keeps writing (WAL
// lets the writers go on beside it); never a file copy of a live WAL
// database. It runs in a worker thread with its own connection: libsql runs
// each statement of a `file:` database synchronously on the calling thread,
// and a copy of a large database takes seconds that no page should wait for.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { asc, desc, eq, gt } from "drizzle-orm";
import { auditEvents, type AuditEvent } from "~/db/schema";
import { migrateDatabase, openDatabase, type Database } from "~/utils/db.server";
import { auditEventHash, GENESIS_HASH, type NewAuditEvent } from "./audit-event.server";

const execFileAsync = promisify(execFile);

// CommonJS in the worker; @libsql/client resolves from the working directory (the app's root).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createClient } = require("@libsql/client");
async function main() {
  const { sourceUrl, file } = workerData;
  if (sourceUrl) {
    const source = createClient({ url: sourceUrl, timeout: 5000 });
    try {
      await source.execute({ sql: "VACUUM INTO ?", args: [file] });
    } finally {
      source.close();
    }
  }
  const copy = createClient({ url: "file:" + file });
  try {
    const integrity = (await copy.execute("PRAGMA integrity_check")).rows.map((row) => String(row[0]));
    let lastMigrationAt = null;
    try {
      const at = (await copy.execute("SELECT max(created_at) FROM __drizzle_migrations")).rows[0]?.[0];
      lastMigrationAt = at === null || at === undefined ? null : Number(at);
    } catch {}
    return { integrity, lastMigrationAt };
  } finally {
    copy.close();
  }
}
main().then(
  (result) => parentPort.postMessage({ ok: true, ...result }),
  (error) => parentPort.postMessage({ ok: false, error: String((error && error.message) || error) }),
);
`;

export type DatabaseFileCheck = {
  /** PRAGMA integrity_check's lines: ["ok"] for a sound file. */
  integrity: string[];
  /** created_at (drizzle's folder millis) of the newest applied migration; null when none. */
  lastMigrationAt: number | null;
};

function runInWorker(data: { sourceUrl: string | null; file: string }): Promise<DatabaseFileCheck> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: data });
    let answered = false;
    worker.once("message", (reply: ({ ok: true } & DatabaseFileCheck) | { ok: false; error: string }) => {
      answered = true;
      if (reply.ok) resolve({ integrity: reply.integrity, lastMigrationAt: reply.lastMigrationAt });
      else reject(new Error(reply.error));
      void worker.terminate();
    });
    worker.once("error", (error) => {
      answered = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      if (!answered) reject(new Error(`the database worker exited (${code})`));
    });
  });
}

/** Copies the database at `sourceUrl` (a `file:` URL) into the new file `file`, and checks the copy. */
export function copyDatabaseInto(sourceUrl: string, file: string) {
  return runInWorker({ sourceUrl, file });
}

/** Checks a database file that nobody has open (an archive's, before a restore). */
export function checkDatabaseFile(file: string) {
  return runInWorker({ sourceUrl: null, file });
}

// Run in a child process: a connection that took the exclusive lock keeps it
// until it is really closed, and a pooled connection with cached statements
// may outlive close(); the child's exit lets go of everything.
const PROBE_SOURCE = `
const { createClient } = require("@libsql/client");
const client = createClient({ url: process.argv[1], timeout: 0 });
client.executeMultiple("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; ROLLBACK;").then(
  () => process.stdout.write("free"),
  (error) => process.stdout.write(error.code === "SQLITE_BUSY" ? "busy" : "error: " + error.message),
).finally(() => client.close());
`;

/**
 * Whether another connection (any process: the app, the access service, a
 * sqlite3 shell) has the database file open. A connection to a WAL database
 * holds its locks for as long as it is open, idle or not, so a connection in
 * exclusive locking mode cannot start a transaction beside it. The probe
 * tries once, without waiting, and lets go.
 */
export async function isDatabaseInUse(file: string) {
  if (!fs.existsSync(file)) return false;
  const { stdout } = await execFileAsync(process.execPath, ["-e", PROBE_SOURCE, `file:${file}`], { encoding: "utf8" });
  if (stdout === "free" || stdout === "busy") return stdout === "busy";
  throw new Error(`could not probe ${file}: ${stdout}`);
}

// ---- An archive's database before a restore (backup-restore.server.ts) ----

/** A schema object as sqlite_master lists it (SQLite's own `sqlite_*` left out). */
export type SchemaEntry = { type: string; name: string; tableName: string; sql: string };

async function schemaOf(database: Database): Promise<SchemaEntry[]> {
  const rows = await database.$client.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name");
  return rows.rows.map((row) => ({
    type: String(row.type),
    name: String(row.name),
    tableName: String(row.tbl_name),
    // The text as SQLite keeps it, with runs of white space made one.
    sql: String(row.sql ?? "").replace(/\s+/g, " ").trim(),
  }));
}

function removeDatabaseFiles(file: string) {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(file + suffix, { force: true });
}

/**
 * How the schema of the database file `file` differs from what the
 * migrations in `migrationsFolder` make: a copy of it in `scratchDir` is
 * migrated to the newest migration (what the next start does) and its
 * sqlite_master (tables, indexes, triggers, views) compared with that of a
 * fresh database migrated there. Empty lists when equal. The file itself is
 * left as it is.
 */
export async function compareSchemaWithMigrations(file: string, scratchDir: string, migrationsFolder: string) {
  fs.mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
  const copyFile = path.join(scratchDir, "archive.db");
  const freshFile = path.join(scratchDir, "fresh.db");
  fs.copyFileSync(file, copyFile);
  for (const suffix of ["-wal"]) if (fs.existsSync(file + suffix)) fs.copyFileSync(file + suffix, copyFile + suffix);
  const copy = openDatabase(`file:${copyFile}`);
  const fresh = openDatabase(`file:${freshFile}`);
  try {
    let migrationError: string | null = null;
    await migrateDatabase(copy, migrationsFolder).catch((error: unknown) => {
      migrationError = String((error as Error)?.cause ?? (error as Error)?.message ?? error);
    });
    await migrateDatabase(fresh, migrationsFolder);
    const expected = await schemaOf(fresh);
    const actual = migrationError ? [] : await schemaOf(copy);
    const key = (entry: SchemaEntry) => `${entry.type} ${entry.name}`;
    const expectedByKey = new Map(expected.map((entry) => [key(entry), entry]));
    const actualByKey = new Map(actual.map((entry) => [key(entry), entry]));
    return {
      migrationError: migrationError as string | null,
      missing: migrationError ? [] : expected.filter((entry) => !actualByKey.has(key(entry))).map(key),
      extra: actual.filter((entry) => !expectedByKey.has(key(entry))).map(key),
      differing: actual.filter((entry) => expectedByKey.has(key(entry)) && expectedByKey.get(key(entry))!.sql !== entry.sql).map(key),
    };
  } finally {
    copy.$client.close();
    fresh.$client.close();
    removeDatabaseFiles(copyFile);
    removeDatabaseFiles(freshFile);
    fs.rmSync(scratchDir, { recursive: true, force: true });
  }
}

/**
 * The audit trail of a database file that is not the app's (an archive's):
 * read as the verification reads the app's (audit-chain.server.ts), and
 * appended to by the restore (its `backup.restore` event). Null when it has
 * no audit trail (an archive older than the trail).
 */
export async function openAuditTrailOf(file: string) {
  const database = openDatabase(`file:${file}`);
  const tables = await database.$client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'");
  if (tables.rows.length === 0) {
    database.$client.close();
    return null;
  }
  return {
    lastOfAction: async (action: string) =>
      (await database.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.id)).limit(1))[0],
    async *walk(batchSize = 1000) {
      let after = Number.MIN_SAFE_INTEGER;
      for (;;) {
        const batch = await database.select().from(auditEvents).where(gt(auditEvents.id, after)).orderBy(asc(auditEvents.id)).limit(batchSize);
        if (batch.length === 0) return;
        yield batch;
        if (batch.length < batchSize) return;
        after = batch[batch.length - 1]!.id;
      }
    },
    /** Appends one event after the head, hashed with `key`; answers it. */
    async append(event: NewAuditEvent, key: Buffer): Promise<AuditEvent> {
      const [head] = await database.select().from(auditEvents).orderBy(desc(auditEvents.id)).limit(1);
      const row = { ...event, id: (head?.id ?? 0) + 1, prevHash: head?.hash ?? GENESIS_HASH };
      const hashed = { ...row, hash: auditEventHash(row, key) };
      await database.insert(auditEvents).values(hashed);
      return hashed;
    },
    /** Folds a write-ahead log into the file (the file alone is then moved into place) and closes it. */
    async close() {
      await database.$client.execute("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => {});
      database.$client.close();
    },
  };
}
