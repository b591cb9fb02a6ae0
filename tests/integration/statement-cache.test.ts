// @libsql/client as patched (patches/, docs/decisions/0004): each connection of
// a `file:` database keeps its recently used prepared statements, and asks a
// statement its columns once. What the patch must not change: a kept
// statement holds no snapshot and no lock, a failed run leaves it usable, and
// a row answers as the unpatched client's did (columns as enumerable
// properties, values by index and a length that are not enumerable).
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

  it("asks a kept statement its columns once, however often it runs", async () => {
    const select = "SELECT id, label FROM statement_cache_probe WHERE label = ?";
    let asked = 0;
    Database.prototype.prepare = function (this: unknown, sql: string) {
      const statement = originalPrepare.call(this, sql) as { columns(): unknown };
      if (sql === select) {
        const columns = statement.columns.bind(statement);
        statement.columns = () => {
          asked += 1;
          return columns();
        };
      }
      return statement;
    };
    for (let i = 0; i < 5; i++) await reader.execute({ sql: select, args: ["columns"] });
    expect(asked).toBe(2); // their names and their types, when it was compiled
  });

  it("answers rows shaped as before: columns enumerable (the first of a repeated name), values by index, a length", async () => {
    await writer.execute({ sql: "INSERT INTO statement_cache_probe (label) VALUES (?)", args: ["shape"] });
    for (let run = 0; run < 2; run++) {
      const { rows, columns } = await reader.execute({ sql: "SELECT id, label, label || '!' AS label, NULL AS empty FROM statement_cache_probe WHERE label = ?", args: ["shape"] });
      const row = rows[0]!;
      expect(columns).toEqual(["id", "label", "label", "empty"]);
      expect(Object.keys(row)).toEqual(["id", "label", "empty"]);
      expect(JSON.stringify(row)).toBe(`{"id":${row.id},"label":"shape","empty":null}`);
      expect({ ...row }).toEqual({ id: row.id, label: "shape", empty: null });
      expect(row.length).toBe(4);
      expect([row[0], row[1], row[2], row[3]]).toEqual([row.id, "shape", "shape!", null]);
      expect(Array.prototype.slice.call(row)).toEqual([row.id, "shape", "shape!", null]);
      expect(Object.prototype.propertyIsEnumerable.call(row, "0")).toBe(false);
      expect(Object.prototype.propertyIsEnumerable.call(row, "length")).toBe(false);
      expect(typeof row.id).toBe("number");
    }
  });

  it("answers a kept statement's new columns after the schema changed under it", async () => {
    await writer.execute("CREATE TABLE IF NOT EXISTS statement_cache_shape (id INTEGER PRIMARY KEY)");
    await writer.execute("DELETE FROM statement_cache_shape");
    await writer.execute("INSERT INTO statement_cache_shape (id) VALUES (1)");
    const select = "SELECT * FROM statement_cache_shape";
    expect(Object.keys((await writer.execute(select)).rows[0]!)).toEqual(["id"]);
    await writer.execute("ALTER TABLE statement_cache_shape ADD COLUMN note TEXT DEFAULT 'nueva'");
    try {
      const { rows, columns } = await writer.execute(select);
      expect(columns).toEqual(["id", "note"]);
      expect({ ...rows[0]! }).toEqual({ id: 1, note: "nueva" });
      expect(rows[0]![1]).toBe("nueva");
    } finally {
      await writer.execute("DROP TABLE statement_cache_shape");
    }
  });
});
