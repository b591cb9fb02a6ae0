// selectRowsAsJson reads a table as one JSON array built by SQLite and maps
// each value through its drizzle column: it must answer exactly what
// drizzle's own select answers (dates, booleans, JSON columns, nulls, text
// with quotes and non-ASCII), in the same order.
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { doors } from "~/db/schema";
import { listDoorNames, listDoors } from "~/models/door.server";
import { getDb, selectRowsAsJson } from "~/utils/db.server";
import { createTestDoor } from "../setup/fixtures";

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
