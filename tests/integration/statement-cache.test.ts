// @libsql/client as patched (patches/, docs/decisions/0004): each connection of
// a `file:` database keeps its recently used prepared statements. What the
// patch must not change: a kept statement holds no snapshot and no lock, and
// a failed run leaves it usable.
import { createRequire } from "node:module";
import { createClient, type Client } from "@libsql/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The driver under @libsql/client (CommonJS, one instance per process).
const Database = createRequire(import.meta.url)("libsql") as { prototype: { prepare(sql: string): unknown } };

let reader: Client;
let writer: Client;
let compiled: string[];
const originalPrepare = Database.prototype.prepare;

beforeEach(async () => {
  const url = process.env.DATABASE_URL!;
  reader = createClient({ url });
  writer = createClient({ url });
  await writer.execute("CREATE TABLE IF NOT EXISTS statement_cache_probe (id INTEGER PRIMARY KEY, label TEXT UNIQUE)");
  await writer.execute("DELETE FROM statement_cache_probe");
  compiled = [];
  Database.prototype.prepare = function (this: unknown, sql: string) {
    compiled.push(sql);
    return originalPrepare.call(this, sql);
  };
});

afterEach(() => {
  Database.prototype.prepare = originalPrepare;
  reader.close();
  writer.close();
});

const count = async (client: Client) =>
  Number((await client.execute("SELECT count(*) AS n FROM statement_cache_probe")).rows[0]!.n);

describe("prepared statements kept per connection", () => {
  it("compiles a statement once, however often it runs", async () => {
    for (let i = 0; i < 5; i++) await writer.execute({ sql: "INSERT INTO statement_cache_probe (label) VALUES (?)", args: [`row ${i}`] });
    expect(compiled.filter((sql) => sql.startsWith("INSERT INTO statement_cache_probe"))).toHaveLength(1);
    expect(await count(writer)).toBe(5);
  });

  it("holds no snapshot: a kept query sees what another connection wrote since, and a checkpoint completes", async () => {
    expect(await count(reader)).toBe(0);
    await writer.execute({ sql: "INSERT INTO statement_cache_probe (label) VALUES (?)", args: ["after the first read"] });
    expect(await count(reader)).toBe(1);
    const checkpoint = (await writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")).rows[0]!;
    expect(Number(checkpoint.busy)).toBe(0);
    expect(Number(checkpoint.log)).toBe(0); // truncated: nothing left in the WAL
  });

  it("keeps a statement usable after it failed, and a refused write changes nothing", async () => {
    const insert = { sql: "INSERT INTO statement_cache_probe (label) VALUES (?)", args: ["twice"] };
    await writer.execute(insert);
    await expect(writer.execute(insert)).rejects.toThrow(/UNIQUE constraint failed/);
    await writer.execute({ ...insert, args: ["once more"] });
    expect(await count(writer)).toBe(2);
  });

  it("drops the least recently used statements past its limit, and still answers right", async () => {
    for (let i = 0; i < 150; i++) {
      const { rows } = await reader.execute({ sql: `SELECT ? + ${i} AS total`, args: [1] });
      expect(Number(rows[0]!.total)).toBe(1 + i);
    }
    compiled = [];
    await reader.execute({ sql: "SELECT ? + 149 AS total", args: [1] }); // recent: kept
    await reader.execute({ sql: "SELECT ? + 0 AS total", args: [1] }); // oldest: dropped
    expect(compiled).toEqual(["SELECT ? + 0 AS total"]);
  });
});
