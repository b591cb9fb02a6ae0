// Doors: their rows, the bridge's credential hash and what the access service
// records about the bridge. `code` is the door's hardware code (the bridge's
// MQTT username); `id` is the row's id.
import { asc, eq, inArray, sql } from "drizzle-orm";
import { doors, type Door, type DoorHardware } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, inOpenTransaction } from "~/utils/db.server";

export type { Door };

export async function getDoorById(id: string) {
  return getDb().query.doors.findFirst({ where: eq(doors.id, id) });
}

export async function getDoorByCode(code: string) {
  return getDb().query.doors.findFirst({ where: eq(doors.code, code) });
}

/**
 * The door a reference names: its hardware code (what the API, the pages
 * and MQTT call `doorId`) or its row id (what the code passes around, and
 * what the API and the pages still accept for one release: docs/api.md).
 * The two never collide: a code is at most 32 of [A-Za-z0-9_-], a row id a
 * 36-character UUID.
 */
export async function findDoorByCodeOrId(codeOrId: string) {
  return (await getDoorByCode(codeOrId)) ?? (await getDoorById(codeOrId)) ?? null;
}

/** Every door, by name. */
export async function listDoors() {
  return getDb().select().from(doors).orderBy(asc(doors.name));
}

type DoorName = Pick<Door, "id" | "code" | "name" | "location">;
let doorNames: { version: string; names: DoorName[] } | null = null;

/**
 * Every door's id, hardware code, name and location, by name: what a filter
 * or a select needs (a door row has ~25 columns). Four screens read it on
 * every view, so the answer is kept while the doors' version stays: their
 * number and the sum of their updatedAt, which every change of a name, code
 * or location moves (updateDoor), from this process or another. Inside a
 * write transaction it is read afresh and not kept.
 */
export async function listDoorNames(): Promise<DoorName[]> {
  const read = () => getDb().select({ id: doors.id, code: doors.code, name: doors.name, location: doors.location }).from(doors).orderBy(asc(doors.name));
  if (inOpenTransaction()) return read();
  const [row] = await getDb().all<{ version: string }>(sql`SELECT count(*) || ':' || coalesce(sum(updated_at), 0) AS version FROM doors`);
  const version = row?.version ?? "";
  if (doorNames?.version !== version) doorNames = { version, names: await read() };
  return doorNames.names;
}

export async function listDoorsByIds(ids: string[]) {
  if (ids.length === 0) return [];
  return getDb().select().from(doors).where(inArray(doors.id, ids));
}

export async function doorExists(id: string) {
  const [row] = await getDb().select({ id: doors.id }).from(doors).where(eq(doors.id, id)).limit(1);
  return Boolean(row);
}

export type NewDoor = Pick<Door, "code" | "name" | "location"> &
  Partial<Pick<Door, "description" | "status" | "facilityId" | "unlockSchedule" | "unlockOnHolidays" | "firstPersonIn" | "heldOpenSeconds" | "isEntrance">>;

/** Inserts the door; a code already taken throws a unique violation on doors.door_id. */
export async function insertDoor(input: NewDoor) {
  const [door] = await getDb()
    .insert(doors)
    .values({ id: createId(), ...input })
    .returning();
  return door!;
}

export type DoorFields = Partial<
  Pick<Door, "code" | "name" | "location" | "status" | "description" | "useCustomMessages" | "customStatus" | "customMessage" | "facilityId" | "unlockSchedule" | "unlockOnHolidays" | "firstPersonIn" | "heldOpenSeconds">
>;

/** The updated door, or null when there is none with that id. */
export async function updateDoor(id: string, fields: DoorFields) {
  const [door] = await getDb()
    .update(doors)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(doors.id, id))
    .returning();
  return door ?? null;
}

export async function deleteDoor(id: string) {
  const [deleted] = await getDb().delete(doors).where(eq(doors.id, id)).returning({ id: doors.id });
  return Boolean(deleted);
}

/** Stores a new bridge secret hash; answers the door's code, or null when there is no such door. */
export async function setBridgeSecretHash(id: string, secretHash: string, issuedAt = new Date()) {
  const [door] = await getDb()
    .update(doors)
    .set({ bridgeSecretHash: secretHash, bridgeSecretIssuedAt: issuedAt })
    .where(eq(doors.id, id))
    .returning({ code: doors.code });
  return door ?? null;
}

/** The stored hash of the door's bridge secret, or null (unknown door, or none issued). */
export async function getBridgeSecretHash(code: string): Promise<string | null> {
  const [row] = await getDb().select({ hash: doors.bridgeSecretHash }).from(doors).where(eq(doors.code, code)).limit(1);
  return row?.hash ?? null;
}

/** What a bridge says of itself (its retained state topic). */
export type BridgeState = { online: true; version?: string; reader?: string } | { online: false };

/**
 * Keeps the bridge's retained state in the door's `hardware` field. `lastSeen`
 * is when the bridge last said it was online, or when its last will arrived
 * live; a retained "offline" replayed at start-up does not move it.
 */
export async function recordBridgeState(code: string, state: BridgeState, { retained, now = new Date() }: { retained: boolean; now?: Date }) {
  const door = await getDoorByCode(code);
  if (!door) return false;
  const previous = door.hardware;
  const hardware: DoorHardware = state.online
    ? { online: true, lastSeen: now.toISOString(), version: state.version ?? null, reader: state.reader ?? null }
    : {
        online: false,
        lastSeen: retained ? (previous?.lastSeen ?? null) : now.toISOString(),
        version: previous?.version ?? null,
        reader: previous?.reader ?? null,
      };
  // Not a change of the door itself: updatedAt stays.
  await getDb().update(doors).set({ hardware }).where(eq(doors.id, door.id));
  return true;
}

/** The next version number of the door's offline list (strictly increasing, shared by every instance). */
export async function nextCredentialsVersion(id: string): Promise<number> {
  const [row] = await getDb()
    .update(doors)
    .set({ credentialsVersion: sql`${doors.credentialsVersion} + 1` })
    .where(eq(doors.id, id))
    .returning({ version: doors.credentialsVersion });
  if (!row) throw new Error(`door ${id} not found`);
  return row.version;
}

/** SPEC "Door stats": how many doors there are in each status. */
export async function countDoorsByStatus() {
  const [counts] = await getDb()
    .select({
      total: sql<number>`count(*)`,
      active: sql<number>`coalesce(sum(${doors.status} = 'active'), 0)`,
      maintenance: sql<number>`coalesce(sum(${doors.status} = 'maintenance'), 0)`,
      emergency: sql<number>`coalesce(sum(${doors.status} = 'emergency'), 0)`,
    })
    .from(doors);
  return {
    total: Number(counts?.total ?? 0),
    active: Number(counts?.active ?? 0),
    maintenance: Number(counts?.maintenance ?? 0),
    emergency: Number(counts?.emergency ?? 0),
  };
}
