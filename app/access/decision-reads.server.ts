// The reads a door decision makes (record-batch.server.ts: the access facts,
// booking windows and key facts, whose SQL is the models'), through
// statements this process prepares once and keeps. @libsql/client compiles
// every statement again on each call, which was two thirds of a decision's
// CPU (0.30 ms against 0.10 ms with them kept: ADR 0004, "Published
// packages only"). The `libsql` package, the driver under @libsql/client, offers
// better-sqlite3's prepare() and a statement that can be run again.
//
// Its own connection, read-only, beside the process's client: a statement
// run with all() runs to its end, so a kept one holds no read snapshot and
// no lock. A database that is not a local file (a remote libSQL server, an
// in-memory one that only its own connection sees) reads through the app's
// client instead.
import Database from "libsql";
import { sql, type SQLWrapper } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { SqlReader } from "~/models/access-log.server";
import { getDb } from "~/utils/db.server";

export type DecisionReads = SqlReader & { close(): void };

/** The decisions use three statements; kept statements past this many are dropped, least recently used first. */
const MAX_KEPT_STATEMENTS = 16;
/** As the app's client (utils/db.server.ts): wait for a writer of another connection instead of failing. */
const BUSY_TIMEOUT_MS = 5000;

/** The local file of a `file:` URL; null for anything else. */
function localFile(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  const file = url.slice("file:".length).split("?")[0]!;
  return file === "" || file.includes(":memory:") ? null : file;
}

/** As @libsql/client binds them: booleans as 0/1, dates as epoch ms. */
function bindValue(value: unknown) {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}

export function openDecisionReads(databaseUrl: string): DecisionReads {
  const file = localFile(databaseUrl);
  if (!file) return { all: (query) => getDb().all(query), close() {} };
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.exec("PRAGMA query_only = ON");
  const dialect = new SQLiteAsyncDialect();
  const kept = new Map<string, ReturnType<typeof db.prepare>>();

  const statement = (text: string) => {
    let prepared = kept.get(text);
    if (prepared) kept.delete(text);
    else {
      prepared = db.prepare(text);
      if (kept.size >= MAX_KEPT_STATEMENTS) kept.delete(kept.keys().next().value!);
    }
    // Most recently used last.
    kept.set(text, prepared);
    return prepared;
  };

  return {
    async all<T>(query: SQLWrapper | string): Promise<T[]> {
      const { sql: text, params } = dialect.sqlToQuery(typeof query === "string" ? sql.raw(query) : query.getSQL());
      return statement(text).all(params.map(bindValue)) as T[];
    },
    close() {
      kept.clear();
      db.close();
    },
  };
}
