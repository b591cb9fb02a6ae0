// The lists the screens read (every door, the doors' names, a page of cards)
// answer what drizzle's own select answers: dates, booleans, JSON columns,
// nulls, text with quotes and non-ASCII, a card without a holder.
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { doors } from "~/db/schema";
import { listCards } from "~/models/card.server";
import { listDoorNames, listDoors } from "~/models/door.server";
import { getDb } from "~/utils/db.server";
import { createTestCard, createTestDoor } from "../setup/fixtures";

describe("every door", () => {
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
    const read = await listDoors();
    expect(read).toEqual(expected);

    const mine = read.filter((door) => door.id === plain.id || door.id === detailed.id);
    expect(mine.map((door) => door.name)).toEqual(["Azotea", "Zaguán \"norte\" ñ"]);
    const azotea = mine[0]!;
    expect(azotea.lastAccessAt).toBeInstanceOf(Date);
    expect(azotea.createdAt).toBeInstanceOf(Date);
    expect(azotea.useCustomMessages).toBe(true);
    expect(azotea.unlockSchedule).toEqual([{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }]);
    expect(mine[1]!.description).toBeNull();
  });

  it("by name only: their id, code, name and location", async () => {
    await createTestDoor({ name: "Bodega \"sur\" ñ" });
    const expected = await getDb()
      .select({ id: doors.id, code: doors.code, name: doors.name, location: doors.location })
      .from(doors)
      .orderBy(asc(doors.name));
    expect(await listDoorNames()).toEqual(expected);
  });
});

describe("a page of cards", () => {
  it("answers each card with its holder (null without one) and its doors, in the order asked", async () => {
    const tag = Date.now().toString(16).slice(-6).toUpperCase();
    const door = await createTestDoor();
    const made = [
      await createTestCard(`C1${tag}`, [door.id], { firstName: "Ñoño \"el\" 'bueno'" }),
      await createTestCard(`C2${tag}`, [], { holder: false }),
      await createTestCard(`C3${tag}`, [door.id], { firstName: null, expiresAt: new Date("2027-01-02T03:04:05.678Z") }),
    ];
    const cards = await listCards({ cardNumber: tag, sortBy: "cardNumber", sortOrder: "asc" });
    const listed = cards.map(({ id, holder, permissions }) => ({ id, holder: holder?.id ?? null, doors: permissions.map((p) => p.doorId) }));
    expect(listed).toEqual([
      { id: made[0]!.card.id, holder: made[0]!.user!.id, doors: [door.id] },
      { id: made[1]!.card.id, holder: null, doors: [] },
      { id: made[2]!.card.id, holder: made[2]!.user!.id, doors: [door.id] },
    ]);
    expect(cards[0]!.holder!.firstName).toBe("Ñoño \"el\" 'bueno'");
    expect(cards[1]!.holder).toBeNull();
    expect(cards[2]!.expiresAt).toEqual(new Date("2027-01-02T03:04:05.678Z"));
    expect((await listCards({ cardNumber: tag, sortBy: "cardNumber", sortOrder: "desc", limit: 1, offset: 1 })).map((card) => card.id)).toEqual([made[1]!.card.id]);
  });
});
