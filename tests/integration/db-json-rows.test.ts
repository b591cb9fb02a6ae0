// selectJsonRows (and selectRowsAsJson, a table's rows through it) reads a
// select as one JSON array built by SQLite and maps each value through its
// drizzle column or decoder: it must answer exactly what drizzle's own select
// answers (dates, booleans, JSON columns, nulls, text with quotes and
// non-ASCII, joins, nested selections), in the same order.
import { asc, desc, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cards, doors, users } from "~/db/schema";
import { listCards } from "~/models/card.server";
import { listDoorNames, listDoors } from "~/models/door.server";
import { getDb, selectJsonRows, selectRowsAsJson } from "~/utils/db.server";
import { createTestCard, createTestDoor } from "../setup/fixtures";

describe("selectRowsAsJson", () => {
  it("answers what drizzle's select answers, row for row", async () => {
    const plain = await createTestDoor({ name: "Zaguán \"norte\" ñ" });
    const detailed = await createTestDoor({ name: "Azotea", status: "maintenance" });
    await getDb()
      .update(doors)
      .set({
        description: "Línea 1\nLínea 2 'comillas' \\ barra",
        useCustomMessages: true,
        customStatus: "ABIERTO",
        lastAccessAt: new Date("2026-11-26T10:15:30.123Z"),
        unlockSchedule: [{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }],
        unlockOnHolidays: true,
        heldOpenSeconds: 45,
      } as never)
      .where(eq(doors.id, detailed.id));

    const expected = await getDb().select().from(doors).orderBy(asc(doors.name));
    const read = await selectRowsAsJson(doors, { orderBy: [asc(doors.name)] });
    expect(read).toEqual(expected);
    expect(await listDoors()).toEqual(expected);

    const mine = read.filter((door) => door.id === plain.id || door.id === detailed.id);
    expect(mine.map((door) => door.name)).toEqual(["Azotea", "Zaguán \"norte\" ñ"]);
    const azotea = mine[0]!;
    expect(azotea.lastAccessAt).toBeInstanceOf(Date);
    expect(azotea.createdAt).toBeInstanceOf(Date);
    expect(azotea.useCustomMessages).toBe(true);
    expect(azotea.unlockSchedule).toEqual([{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }]);
    expect(mine[1]!.description).toBeNull();

    const filtered = await selectRowsAsJson(doors, { where: eq(doors.id, plain.id) });
    expect(filtered).toEqual(await getDb().select().from(doors).where(eq(doors.id, plain.id)));
  });

  it("reads only the columns named, as drizzle's select of those columns answers them", async () => {
    await createTestDoor({ name: "Bodega \"sur\" ñ" });
    const expected = await getDb()
      .select({ id: doors.id, code: doors.code, name: doors.name, location: doors.location })
      .from(doors)
      .orderBy(asc(doors.name));
    expect(await selectRowsAsJson(doors, { columns: ["id", "code", "name", "location"], orderBy: [asc(doors.name)] })).toEqual(expected);
    expect(await listDoorNames()).toEqual(expected);
    const [first] = await selectRowsAsJson(doors, { columns: ["name", "createdAt"], orderBy: [asc(doors.name)] });
    expect(Object.keys(first!).sort()).toEqual(["createdAt", "name"]);
    expect(first!.createdAt).toBeInstanceOf(Date);
  });
});

describe("selectJsonRows", () => {
  it("answers a joined, nested, ordered and paged select as drizzle's select does, with a missing joined row as nulls", async () => {
    const tag = Date.now().toString(16).slice(-6).toUpperCase();
    const door = await createTestDoor();
    const made = [
      await createTestCard(`C1${tag}`, [door.id], { firstName: "Ñoño \"el\" 'bueno'" }),
      await createTestCard(`C2${tag}`, [], { holder: false }),
      await createTestCard(`C3${tag}`, [door.id], { firstName: null, expiresAt: new Date("2027-01-02T03:04:05.678Z") }),
    ];
    const ids = made.map(({ card }) => card.id);
    const fields = {
      card: cards,
      holder: { id: users.id, firstName: users.firstName, status: users.status },
      numberLength: sql<number>`length(${cards.cardNumber})`.mapWith(Number),
    };
    const query = (limit: number, offset: number) =>
      getDb().select(fields).from(cards).leftJoin(users, eq(users.id, cards.userId)).where(inArray(cards.id, ids)).orderBy(desc(cards.cardNumber)).limit(limit).offset(offset);
    const read = (limit: number, offset: number) =>
      selectJsonRows(fields, (select) =>
        select.from(cards).leftJoin(users, eq(users.id, cards.userId)).where(inArray(cards.id, ids)).orderBy(desc(cards.cardNumber)).limit(limit).offset(offset),
      );

    const all = await read(10, 0);
    const expected = await query(10, 0);
    expect(all.map((row) => row.card.cardNumber)).toEqual([`C3${tag}`, `C2${tag}`, `C1${tag}`]);
    // drizzle makes the missing holder null; selectJsonRows answers its columns as nulls.
    expect(all.map((row) => ({ ...row, holder: row.holder?.id ? row.holder : null }))).toEqual(expected);
    expect(all[1]!.holder).toEqual({ id: null, firstName: null, status: null });
    expect(all[0]!.card.expiresAt).toEqual(new Date("2027-01-02T03:04:05.678Z"));
    expect(all[2]!.holder!.firstName).toBe("Ñoño \"el\" 'bueno'");
    expect(all[0]!.numberLength).toBe(8);
    expect(await read(1, 1)).toEqual([all[1]]);
    expect(await read(10, 5)).toEqual([]);

    // The cards screen's list reads through it and answers what it did.
    const listed = (await listCards({ cardNumber: tag, sortBy: "cardNumber", sortOrder: "asc" })).map(({ id, holder, permissions }) => ({ id, holder: holder?.id ?? null, doors: permissions.map((p) => p.doorId) }));
    expect(listed).toEqual([
      { id: made[0]!.card.id, holder: made[0]!.user!.id, doors: [door.id] },
      { id: made[1]!.card.id, holder: null, doors: [] },
      { id: made[2]!.card.id, holder: made[2]!.user!.id, doors: [door.id] },
    ]);
  });
});
