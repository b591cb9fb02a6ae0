// Whole-database copies for backups (app/services/backups.server.ts) and
// their checks before a restore. The copy is SQLite's `VACUUM INTO`: one
// read transaction, so it is consistent while the app keeps writing (WAL
// lets the writers go on beside it); never a file copy of a live WAL
// database. It runs in a worker thread with its own connection: libsql runs
// each statement of a `file:` database synchronously on the calling thread,
// and a copy of a large database takes seconds that no page should wait for.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";

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
