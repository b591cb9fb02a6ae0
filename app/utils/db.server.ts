import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "~/db/schema";
import { getEnv } from "./env.server";

export type Database = LibSQLDatabase<typeof schema> & { $client: Client };

export function openDatabase(url: string, authToken?: string): Database {
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length);
    if (file && file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  }
  // timeout = busy timeout of the embedded file database: writers from other
  // processes (a second app, the access service) wait instead of failing.
  const client = createClient({ url, authToken, timeout: 5000 });
  return drizzle(writesAfterTransactions(client), { schema });
}

/**
 * The client with its writes kept out of the way of its own open
 * transaction. A transaction holds one of the client's connections and, from
 * its first write, SQLite's write lock; a write made meanwhile on another
 * connection of the same process waits for that lock synchronously, on the
 * thread the transaction needs to finish: the process stalls for the busy
 * timeout and the write fails (SQLITE_BUSY). So while a transaction of this
 * client is open, its other writes (anything but a SELECT), batches and
 * transactions wait for it to end; reads go ahead (WAL lets readers run
 * beside the writer). The transaction's own statements go through its own
 * object and are not held.
 */
function writesAfterTransactions(client: Client): Client {
  let held: Promise<void> | null = null;
  const isRead = (statement: unknown) => {
    const text = typeof statement === "string" ? statement : (statement as { sql?: unknown })?.sql;
    return typeof text === "string" && /^\s*select\b/i.test(text);
  };
  return new Proxy(client, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "execute") {
        return async (...args: unknown[]) => {
          if (!isRead(args[0])) while (held) await held;
          return value.apply(target, args);
        };
      }
      if (property === "batch" || property === "executeMultiple" || property === "migrate") {
        return async (...args: unknown[]) => {
          while (held) await held;
          return value.apply(target, args);
        };
      }
      if (property === "transaction") {
        return async (...args: unknown[]) => {
          while (held) await held;
          // Claimed in the same tick as the check: no other transaction gets in between.
          let release!: () => void;
          const mine = new Promise<void>((resolve) => (release = resolve));
          held = mine;
          const free = () => {
            if (held === mine) held = null;
            release();
          };
          let transaction: Awaited<ReturnType<Client["transaction"]>>;
          try {
            transaction = await target.transaction(...(args as Parameters<Client["transaction"]>));
          } catch (error) {
            free();
            throw error;
          }
          return new Proxy(transaction, {
            get(tx, name) {
              const member = Reflect.get(tx, name, tx);
              if (typeof member !== "function") return member;
              if (name === "commit" || name === "rollback") {
                return async (...callArgs: unknown[]) => {
                  try {
                    return await member.apply(tx, callArgs);
                  } finally {
                    free();
                  }
                };
              }
              if (name === "close") {
                return (...callArgs: unknown[]) => {
                  try {
                    return member.apply(tx, callArgs);
                  } finally {
                    free();
                  }
                };
              }
              return member.bind(tx);
            },
          });
        };
      }
      return value.bind(target);
    },
  });
}

/** Applies drizzle/ migrations; WAL lets readers run beside the single writer. */
export async function migrateDatabase(database: Database, migrationsFolder = "drizzle") {
  await database.$client.execute("PRAGMA journal_mode = WAL").catch(() => {
    // remote libSQL servers manage their own journal
  });
  await database.$client.execute("PRAGMA foreign_keys = ON").catch(() => {});
  await migrate(database, { migrationsFolder });
}

/**
 * How far the process-wide connection lets the WAL grow before one of its own
 * commits copies it back into the database (SQLite's automatic checkpoint;
 * its default is 1,000 pages). The access service's recorder thread raises it
 * because a thread of its own runs the checkpoints (docs/decisions/0004).
 * A pragma is per connection: this holds for a process that runs one database
 * call at a time, whose pool then keeps a single connection.
 */
export async function setWalAutoCheckpoint(pages: number) {
  await processDb().$client.execute(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`);
}

const globalForDb = globalThis as unknown as { __db?: Database };

function processDb(): Database {
  if (!globalForDb.__db) {
    const env = getEnv();
    globalForDb.__db = openDatabase(env.DATABASE_URL, env.DATABASE_AUTH_TOKEN);
  }
  return globalForDb.__db;
}

/** A write transaction (what drizzle hands to `transaction`'s callback). */
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

type OpenTransaction = { tx: Transaction; open: boolean };
const transactionStorage = new AsyncLocalStorage<OpenTransaction>();
/** Write transactions open in this process (0 in the access process: its getDb() never looks further). */
let openTransactions = 0;

/**
 * The process-wide database, opened on first use from DATABASE_URL; inside
 * `inWriteTransaction`, that transaction, so the models' writes and reads
 * join it without knowing. (A transaction has no `$client` or `batch`.)
 */
export function getDb(): Database {
  if (openTransactions > 0) {
    const current = transactionStorage.getStore();
    if (current?.open) return current.tx as unknown as Database;
  }
  return processDb();
}

/** Whether getDb() answers a write transaction here: its reads may see writes that are not committed yet. */
export function inOpenTransaction() {
  return openTransactions > 0 && transactionStorage.getStore()?.open === true;
}

const preparedNames = new Set<string>();

/**
 * A read built once with drizzle's `prepare()`, for the session's user, which
 * every signed-in request reads: drizzle builds a query's SQL again on every
 * call, and the prepared read costs about 0.1 ms less (docs/performance.md).
 * Nothing else pays for it: write a plain query. `build` gets the database
 * and nothing else, so a caller's value can only reach the statement as a
 * `sql.placeholder` passed to `all`/`get`; `name` lists the query in
 * `preparedQueryNames()`, which the tests use to run every one of them with
 * two sets of values. Inside a write transaction it is built on the
 * transaction as usual, so it reads the transaction's writes.
 */
export function preparedQuery<Prepared>(name: string, build: (db: Database) => Prepared): () => Prepared {
  preparedNames.add(name);
  let prepared: { db: Database; query: Prepared } | null = null;
  return () => {
    const db = getDb();
    if (db !== processDb()) return build(db);
    if (prepared?.db !== db) prepared = { db, query: build(db) };
    return prepared.query;
  };
}

/** The names of the prepared queries of the modules loaded so far. */
export function preparedQueryNames(): string[] {
  return [...preparedNames];
}

/** Rows written by the current connection since it opened (inside inWriteTransaction: the transaction's). */
export async function totalChanges() {
  const row = await getDb().get<{ n: number }>(sql`SELECT total_changes() AS n`);
  return Number(row?.n ?? 0);
}

let writeQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` in one IMMEDIATE write transaction: it commits when `work`
 * resolves and rolls back when it throws, and every getDb() inside answers
 * the transaction. IMMEDIATE takes the write lock first, so what `work` reads
 * stays true until the commit, even against other processes (the access
 * service writes the same file). A call made inside one joins it.
 *
 * One at a time in a process: libSQL waits for a lock synchronously, so a
 * second transaction of this process waiting for the first would hold the
 * thread the first needs to finish. For the same reason `work` should only
 * touch the database: no network, no password hashing, no mail (do those
 * before or after).
 */
export function inWriteTransaction<T>(work: () => Promise<T>): Promise<T> {
  if (transactionStorage.getStore()?.open) return work();
  const run = () =>
    processDb().transaction(async (tx) => {
      const current: OpenTransaction = { tx, open: true };
      openTransactions += 1;
      try {
        return await transactionStorage.run(current, work);
      } finally {
        current.open = false;
        openTransactions -= 1;
      }
    });
  const result = writeQueue.then(run, run);
  writeQueue = result.catch(() => undefined);
  return result;
}

/**
 * A write refused by a unique index. `target` names the index or a column it
 * covers ("doors.door_id", "reservation_code").
 */
export function isUniqueViolation(error: unknown, target: string): boolean {
  const text = `${String((error as { cause?: unknown })?.cause ?? "")} ${(error as Error)?.message ?? ""}`;
  return text.includes("UNIQUE constraint failed") && text.includes(target);
}

/** `text` as a LIKE pattern (`%text%`, or `text%` with `prefixOnly`), its own \, % and _ taken literally: use with ESCAPE '\'. */
export function likePattern(text: string, { prefixOnly = false } = {}) {
  const escaped = text.replace(/[\\%_]/g, (character) => `\\${character}`);
  return prefixOnly ? `${escaped}%` : `%${escaped}%`;
}
