// A read-only connection of its own in a worker thread, for a long read in
// many statements (the CSV export of the access log). libsql runs each
// statement of a `file:` database synchronously on the calling thread: on the
// web process's thread a million-row export spent half its time in SQLite,
// time in which no page was served and the download itself waited. Here the
// thread runs one statement while the web process sends the previous
// answer. A remote database (libsql://) is already asynchronous: the reads go
// to the process's own connection.
import { Worker } from "node:worker_threads";
import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { getEnv } from "./env.server";
import { getDb } from "./db.server";

// CommonJS in the worker; @libsql/client resolves from the working directory
// (the app's root), as for the backups' worker (models/database-snapshot.server.ts).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createClient } = require("@libsql/client");
const client = createClient({ url: workerData.url, timeout: 5000 });
parentPort.on("message", async ({ id, sql, args }) => {
  try {
    const result = await client.execute({ sql, args });
    parentPort.postMessage({ id, columns: result.columns, rows: result.rows.map((row) => Array.prototype.slice.call(row)) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

type Reply = { id: number; columns: string[]; rows: unknown[][] } | { id: number; error: string };

export type ReaderThread = {
  /** The rows of a select, as the process's `getDb().all` answers them. */
  all<T>(query: SQL): Promise<T[]>;
  /** Whether the reads run on a thread of their own (a `file:` database). */
  readonly threaded: boolean;
  /** Ends the thread; call it once the reads that are wanted are answered (the keyset walk awaits its read-ahead). */
  close(): Promise<void>;
};

/** Statements the reader threads of this process have run (the export's tests count its reads). */
export const readerThreadStatements = { count: 0 };

const dialect = new SQLiteAsyncDialect();

export function openReaderThread(): ReaderThread {
  const url = getEnv().DATABASE_URL;
  if (!url.startsWith("file:")) {
    return { all: (query) => getDb().all(query), threaded: false, close: async () => {} };
  }
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url } });
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(error: Error): void }>();
  let nextId = 1;
  let failure: Error | null = null;
  const failAll = (error: Error) => {
    failure = error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  worker.on("message", (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if ("error" in reply) call.reject(new Error(reply.error));
    else call.resolve(reply.rows.map((values) => Object.fromEntries(reply.columns.map((column, i) => [column, values[i]]))));
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`the database reader thread exited (${code})`)));
  return {
    threaded: true,
    all<T>(query: SQL) {
      if (failure) return Promise.reject(failure);
      const { sql, params } = dialect.sqlToQuery(query);
      const id = nextId++;
      readerThreadStatements.count += 1;
      return new Promise<T[]>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        worker.postMessage({ id, sql, args: params });
      });
    },
    async close() {
      await worker.terminate(); // a read still pending is refused (the exit handler)
    },
  };
}
