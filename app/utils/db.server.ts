import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "@libsql/client";
import { Column, getTableColumns, is, SQL, sql, Table, type DriverValueDecoder, type SQLWrapper } from "drizzle-orm";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
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

/**
 * A query built once, with drizzle's `prepare()` and `sql.placeholder` for its
 * values, for the reads every signed-in request makes (the session's user, the
 * unread count): drizzle builds a query's SQL again on every call, about
 * 0.2 ms for a select of every user column. Inside a write transaction it is
 * built on the transaction as usual, so it reads the transaction's writes.
 */
export function preparedQuery<Prepared>(build: (db: Database) => Prepared): () => Prepared {
  let prepared: { db: Database; query: Prepared } | null = null;
  return () => {
    const db = getDb();
    if (db !== processDb()) return build(db);
    if (prepared?.db !== db) prepared = { db, query: build(db) };
    return prepared.query;
  };
}

/**
 * `preparedQuery` for a read whose statement depends on which filters it has
 * (its shape): `build(db, input)` once per shape, with the filters' values as
 * placeholders; the caller names the shape (`shape` must tell apart every
 * input that builds a different statement) and passes the values to `all`.
 */
export function preparedQueriesByShape<Input, Prepared>(build: (db: Database, input: Input) => Prepared) {
  const byShape = new Map<string, () => Prepared>();
  return (shape: string, input: Input): Prepared => {
    let prepared = byShape.get(shape);
    if (!prepared) {
      prepared = preparedQuery((db) => build(db, input));
      byShape.set(shape, prepared);
    }
    return prepared();
  };
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

/**
 * `column IN` the values of a JSON array (a parameter or placeholder holding
 * `JSON.stringify(values)`): one parameter however many values, so a prepared
 * query (`preparedQuery`) can take a list.
 */
export function inJsonArray(column: SQLWrapper, values: SQLWrapper | string) {
  return sql`${column} IN (SELECT value FROM json_each(${values}))`;
}

/** `text` as a LIKE pattern (`%text%`, or `text%` with `prefixOnly`), its own \, % and _ taken literally: use with ESCAPE '\'. */
export function likePattern(text: string, { prefixOnly = false } = {}) {
  const escaped = text.replace(/[\\%_]/g, (character) => `\\${character}`);
  return prefixOnly ? `${escaped}%` : `%${escaped}%`;
}

/** What `selectJsonRows` may select: columns, SQL with a decoder (`mapWith`), and objects of them one level down (a table, or a pick of its columns). */
export type JsonRowFields = Record<string, Column | SQL | SQL.Aliased | SQLiteTable | Record<string, Column | SQL | SQL.Aliased>>;

type JsonRowField = { path: [string] | [string, string]; field: Column | SQL | SQL.Aliased };

function flattenJsonRowFields(fields: JsonRowFields): JsonRowField[] {
  const isLeaf = (value: unknown): value is Column | SQL | SQL.Aliased => is(value, Column) || is(value, SQL) || is(value, SQL.Aliased);
  return Object.entries(fields).flatMap(([key, value]): JsonRowField[] => {
    if (isLeaf(value)) return [{ path: [key], field: value }];
    const inner = is(value, Table) ? getTableColumns(value) : value;
    return Object.entries(inner).map(([innerKey, field]) => ({ path: [key, innerKey], field }));
  });
}

function decoderOf(field: Column | SQL | SQL.Aliased): DriverValueDecoder<unknown, unknown> {
  if (is(field, Column)) return field;
  // The decoder `mapWith` set (drizzle's typings mark the property internal).
  return ((is(field, SQL) ? field : field.sql) as unknown as { decoder: DriverValueDecoder<unknown, unknown> }).decoder;
}

/**
 * A select's rows, mapped as drizzle maps them (dates, booleans, JSON
 * columns, `mapWith`), read as one JSON array built by SQLite. `fields` is
 * the selection, as drizzle's `select(fields)` takes it; `build` adds the
 * rest (from, joins, where, order, limit) to the select it is given, whose
 * only field is the row as JSON. libsql makes a JavaScript value per cell and
 * an object per row, which on a list read on every page view costs more than
 * the query itself (the doors' 22 columns: 2.4 ms against 0.7 ms this way;
 * the cards screen's 50 rows of 19 columns: 0.75 against 0.3 ms). A left
 * join's missing row comes as an object of nulls (drizzle's own select makes
 * it null). Not for BLOB columns (JSON cannot hold them).
 */
export async function selectJsonRows<TFields extends JsonRowFields>(
  fields: TFields,
  build: (select: ReturnType<typeof selectJsonRow>) => SQLWrapper,
): Promise<SelectResultFields<TFields>[]> {
  const flat = flattenJsonRowFields(fields);
  const inner = build(selectJsonRow(flat));
  const [result] = await getDb().all<{ rows: string | null }>(sql`SELECT '[' || group_concat(row, ',') || ']' AS rows FROM (${inner})`);
  const decoders = flat.map(({ field }) => decoderOf(field));
  return (JSON.parse(result?.rows ?? "[]") as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {};
    flat.forEach(({ path }, index) => {
      const value = values[index];
      const decoded = value === null || value === undefined ? null : decoders[index]!.mapFromDriverValue(value);
      if (path.length === 1) row[path[0]] = decoded;
      else ((row[path[0]] ??= {}) as Record<string, unknown>)[path[1]] = decoded;
    });
    return row as SelectResultFields<TFields>;
  });
}

function selectJsonRow(flat: JsonRowField[]) {
  const values = sql.join(
    flat.map(({ field }) => (is(field, SQL.Aliased) ? field.sql : field)),
    sql`, `,
  );
  return getDb().select({ row: sql<string>`json_array(${values})`.as("row") });
}

/** The rows of `table` that `where` keeps, in `orderBy` order (`selectJsonRows`); only the properties named in `columns` when given. */
export async function selectRowsAsJson<T extends SQLiteTable, K extends keyof T["$inferSelect"] & string = keyof T["$inferSelect"] & string>(
  table: T,
  { columns: keys, where, orderBy = [] }: { columns?: K[]; where?: SQL; orderBy?: SQL[] } = {},
): Promise<Pick<T["$inferSelect"], K>[]> {
  const all = Object.entries(getTableColumns(table));
  const fields = Object.fromEntries(keys ? all.filter(([key]) => (keys as string[]).includes(key)) : all);
  const rows = await selectJsonRows(fields, (select) => select.from(table).where(where).orderBy(...orderBy));
  return rows as Pick<T["$inferSelect"], K>[];
}
