// drizzle-orm as patched (patches/, docs/decisions/0004): `is`, asked of
// every chunk of a query's SQL as drizzle builds it, collects the entity kinds
// along a class's chain once per class; a read's rows are mapped with what
// each selected field needs worked out once per query, from the values
// @libsql/client's patched rows keep. What must not change: the answers.
import { and, asc, Column, entityKind, eq, inArray, is, SQL, sql, Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cardPermissions, cards, doors, users } from "~/db/schema";
import { getDb } from "~/utils/db.server";
import { createTestCard, createTestDoor } from "../setup/fixtures";

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

describe("drizzle's mapping of a read's rows", () => {
  it("answers nested selections, decoded values and a left join's missing row as drizzle does", async () => {
    const door = await createTestDoor();
    const held = await createTestCard(`A1${Date.now().toString(16).slice(-6)}`, [door.id], { firstName: "Nuño" });
    const loose = await createTestCard(`B2${Date.now().toString(16).slice(-6)}`, [], { holder: false });
    const rows = await getDb()
      .select({ card: cards, holder: { id: users.id, firstName: users.firstName }, doubled: sql<number>`${cards.totalAccessAttempts} * 2`.mapWith(Number) })
      .from(cards)
      .leftJoin(users, eq(users.id, cards.userId))
      .where(inArray(cards.id, [held.card.id, loose.card.id]))
      .orderBy(asc(cards.cardNumber));
    expect(rows.map((row) => row.card.id)).toEqual([held.card.id, loose.card.id]);
    const [heldRow, looseRow] = rows;
    expect(heldRow!.card).toEqual(held.card);
    expect(heldRow!.card.createdAt).toBeInstanceOf(Date);
    expect(typeof heldRow!.card.isAnonymous).toBe("boolean");
    expect(heldRow!.holder).toEqual({ id: held.user!.id, firstName: "Nuño" });
    expect(heldRow!.doubled).toBe(0);
    // drizzle's rule: a joined object whose columns all come back null is null.
    expect(looseRow!.holder).toBeNull();
    expect(looseRow!.card.userId).toBeNull();

    const whole = await getDb().select().from(cards).leftJoin(users, eq(users.id, cards.userId)).where(eq(cards.id, loose.card.id));
    expect(whole).toEqual([{ cards: loose.card, users: null }]);

    const [permission] = await getDb()
      .select({ doorCode: doors.code, granted: cardPermissions.granted, schedule: cardPermissions.schedule })
      .from(cardPermissions)
      .innerJoin(doors, eq(doors.id, cardPermissions.doorId))
      .where(and(eq(cardPermissions.cardId, held.card.id), eq(cardPermissions.doorId, door.id)));
    expect(permission).toEqual({ doorCode: door.code, granted: true, schedule: null });
  });

  it("works out each field's decoder once per query, not once per row", async () => {
    const door = await createTestDoor();
    for (const letter of ["C", "D", "E"]) await createTestCard(`${letter}3${Date.now().toString(16).slice(-6)}`, [door.id]);
    const doubled = sql<number>`${cardPermissions.granted} * 2`.mapWith(Number);
    let decoderReads = 0;
    const decoder = (doubled as unknown as { decoder: unknown }).decoder; // drizzle's typings mark it internal
    Object.defineProperty(doubled, "decoder", {
      get() {
        decoderReads += 1;
        return decoder;
      },
    });
    const rows = await getDb().select({ doubled }).from(cardPermissions).where(eq(cardPermissions.doorId, door.id));
    expect(rows).toEqual([{ doubled: 2 }, { doubled: 2 }, { doubled: 2 }]);
    expect(decoderReads).toBe(1);
  });

  it("reads a row's values from the array @libsql/client's rows keep, in column order", async () => {
    const result = await getDb().$client.execute("SELECT 1 AS one, 'dos' AS two, NULL AS three");
    const [row] = result.rows;
    expect((row as unknown as Record<symbol, unknown[]>)[Symbol.for("libsql.rowValues")]).toEqual([1, "dos", null]);
    expect(Array.from(row!)).toEqual([1, "dos", null]);
    expect({ ...row }).toEqual({ one: 1, two: "dos", three: null });
  });
});
