// The doors' names for the filters and selects (listDoorNames) are kept
// while the doors' version (their number and the sum of their updatedAt)
// stays: read again after any change of a name, code or location, from this
// process or another, and never kept from inside a write transaction.
import { createClient } from "@libsql/client";
import { asc } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { doors } from "~/db/schema";
import { deleteDoor, listDoorNames, updateDoor } from "~/models/door.server";
import { getDb, inWriteTransaction } from "~/utils/db.server";
import { createTestDoor } from "../setup/fixtures";

const client = getDb().$client;
const original = client.execute.bind(client);
afterEach(() => {
  client.execute = original;
});

/** The answer, and whether it read the doors' rows (not only their version). */
async function namesAndReads() {
  let reads = 0;
  client.execute = ((statement: { sql: string }) => {
    if (statement.sql.includes('from "doors"')) reads++; // the names' read (the version's is `FROM doors`)
    return original(statement as never);
  }) as typeof client.execute;
  const names = await listDoorNames();
  client.execute = original;
  return { names, reads };
}

const everyName = () => getDb().select({ id: doors.id, code: doors.code, name: doors.name, location: doors.location }).from(doors).orderBy(asc(doors.name));

describe("the doors' names", () => {
  it("are read once while no door changes, and again after each change, here or in another process", async () => {
    const door = await createTestDoor({ name: "Nombres 1" });
    await listDoorNames();
    expect(await namesAndReads()).toEqual({ names: await everyName(), reads: 0 });

    await updateDoor(door.id, { name: "Nombres 1 renombrada" });
    expect(await namesAndReads()).toEqual({ names: await everyName(), reads: 1 });
    const added = await createTestDoor({ name: "Nombres 2" });
    expect(await namesAndReads()).toEqual({ names: await everyName(), reads: 1 });
    await deleteDoor(added.id);
    expect(await namesAndReads()).toEqual({ names: await everyName(), reads: 1 });

    // Another process's change, on its own connection, as updateDoor writes it.
    const other = createClient({ url: process.env.DATABASE_URL! });
    try {
      await other.execute({ sql: "UPDATE doors SET location = 'Sótano', updated_at = updated_at + 1 WHERE id = ?", args: [door.id] });
    } finally {
      other.close();
    }
    const afterOther = await namesAndReads();
    expect(afterOther.reads).toBe(1);
    expect(afterOther.names.find((name) => name.id === door.id)?.location).toBe("Sótano");
  });

  it("inside a write transaction are read afresh (its own changes) and not kept: a rollback leaves the names as they were", async () => {
    const door = await createTestDoor({ name: "Nombres 3" });
    const before = await listDoorNames();
    const rolledBack = inWriteTransaction(async () => {
      await updateDoor(door.id, { name: "Nombres 3 en la transacción" });
      expect((await listDoorNames()).find((name) => name.id === door.id)?.name).toBe("Nombres 3 en la transacción");
      throw new Error("roll back");
    });
    await expect(rolledBack).rejects.toThrow("roll back");
    expect(await namesAndReads()).toEqual({ names: before, reads: 0 });
  });
});
