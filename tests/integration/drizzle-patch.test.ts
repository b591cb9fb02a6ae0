// drizzle-orm as patched (patches/, docs/decisions/0004): `is`, asked of
// every chunk of a query's SQL as drizzle builds it, collects the entity kinds
// along a class's chain once per class. What must not change: its answers.
import { Column, entityKind, is, SQL, sql, Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "~/db/schema";

describe("drizzle's is()", () => {
  it("answers as drizzle does: a column is a Column and not an SQL or a Table, a fragment is an SQL", () => {
    expect(is(users.id, Column)).toBe(true);
    expect(is(users.id, SQL)).toBe(false);
    expect(is(users, Table)).toBe(true);
    expect(is(users, Column)).toBe(false);
    expect(is(sql`1`, SQL)).toBe(true);
    expect(is(null, SQL)).toBe(false);
    expect(is("text", SQL)).toBe(false);
    expect(() => is({}, class NotAnEntity {} as never)).toThrow(/doesn't look like a Drizzle entity/);
  });

  it("recognises a kind through the chain of a class from another copy of drizzle (no instanceof)", () => {
    class ForeignBase {
      static readonly [entityKind] = (Column as unknown as Record<symbol, string>)[entityKind];
    }
    class ForeignColumn extends ForeignBase {}
    expect(is(new ForeignColumn(), Column)).toBe(true);
    expect(is(new ForeignColumn(), SQL)).toBe(false);
  });

  it("reads a class's chain once, however often it is asked", () => {
    let reads = 0;
    class Base {
      static get [entityKind]() {
        reads += 1;
        return "TestBase";
      }
    }
    class Child extends Base {}
    for (let i = 0; i < 5; i++) {
      expect(is(new Child(), Column)).toBe(false);
      expect(is(new Child(), SQL)).toBe(false);
    }
    expect(reads).toBe(2); // Child's (inherited) and Base's, at the first question
  });
});
