// Doors: the admin's changes (each announced to the access service, which
// republishes the door's display and offline list), the bridge credential,
// and what the access service records about the bridge.
import { asc, eq, gte, inArray, sql } from "drizzle-orm";
import { accessLogs, doors, type Door, type DoorHardware } from "~/db/schema";
import { DOOR_CODE_PATTERN, type BridgeStateMessage } from "~/access/contract";
import { generateBridgeSecret, mosquittoPasswordHash } from "~/access/mosquitto-password.server";
import { notifyAccessChange } from "~/access/notify.server";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Door };

export async function getDoorById(id: string) {
  return getDb().query.doors.findFirst({ where: eq(doors.id, id) });
}

/** By the hardware id the bridge uses on MQTT. */
export async function getDoorByCode(doorCode: string) {
  return getDb().query.doors.findFirst({ where: eq(doors.doorId, doorCode) });
}

export async function listDoors() {
  return getDb().select().from(doors).orderBy(asc(doors.name));
}

export async function listDoorsByIds(ids: string[]) {
  if (ids.length === 0) return [];
  return getDb().select().from(doors).where(inArray(doors.id, ids));
}

export type NewDoor = {
  doorId: string;
  name: string;
  location: string;
  description?: string | null;
};

export async function createDoor(input: NewDoor) {
  if (!DOOR_CODE_PATTERN.test(input.doorId)) throw new Error(`invalid doorId: ${JSON.stringify(input.doorId)}`);
  const [door] = await getDb()
    .insert(doors)
    .values({ id: createId(), ...input })
    .returning();
  await notifyAccessChange({ doorIds: [door!.id] });
  return door!;
}

export type DoorUpdate = Partial<Pick<Door, "name" | "location" | "status" | "description" | "doorId">>;

/** A new doorId renames the bridge's MQTT account and topics: the bridge must be reconfigured. */
export async function updateDoor(id: string, fields: DoorUpdate) {
  if (fields.doorId !== undefined && !DOOR_CODE_PATTERN.test(fields.doorId)) throw new Error(`invalid doorId: ${JSON.stringify(fields.doorId)}`);
  return updateDoorRow(id, fields);
}

export type DoorMessages = Pick<Door, "useCustomMessages" | "customStatus" | "customMessage">;

/** The hardware status text (≤ 10 characters) and welcome (≤ 16) shown at the door. */
export async function setDoorMessages(id: string, messages: DoorMessages) {
  return updateDoorRow(id, messages);
}

async function updateDoorRow(id: string, fields: Partial<Door>) {
  const [door] = await getDb()
    .update(doors)
    .set({ ...fields, updatedAt: new Date() })
    .where(eq(doors.id, id))
    .returning();
  if (door) await notifyAccessChange({ doorIds: [id] });
  return door ?? null;
}

/** Deletes the door; the access service clears its retained topics and drops its bridge. */
export async function deleteDoor(id: string) {
  const [deleted] = await getDb().delete(doors).where(eq(doors.id, id)).returning({ id: doors.id });
  if (deleted) await notifyAccessChange({ doorIds: [id] });
  return Boolean(deleted);
}

/**
 * Issues a new bridge credential (username = the door's doorId). The secret is
 * returned once and only its hash is kept; the previous secret stops working
 * at once (the embedded broker also drops the connected bridge).
 */
export async function issueBridgeCredential(doorRowId: string): Promise<{ username: string; password: string } | null> {
  const password = generateBridgeSecret();
  const [door] = await getDb()
    .update(doors)
    .set({ bridgeSecretHash: mosquittoPasswordHash(password), bridgeSecretIssuedAt: new Date() })
    .where(eq(doors.id, doorRowId))
    .returning({ doorId: doors.doorId });
  if (!door) return null;
  await notifyAccessChange({ doorIds: [doorRowId] });
  return { username: door.doorId, password };
}

/** The stored hash of the door's bridge secret, or null (unknown door, or none issued). */
export async function getBridgeSecretHash(doorCode: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ hash: doors.bridgeSecretHash })
    .from(doors)
    .where(eq(doors.doorId, doorCode))
    .limit(1);
  return row?.hash ?? null;
}

/**
 * Keeps the bridge's retained state in the door's `hardware` field. `lastSeen`
 * is when the bridge last said it was online, or when its last will arrived
 * live; a retained "offline" replayed at start-up does not move it.
 */
export async function recordBridgeState(
  doorCode: string,
  state: BridgeStateMessage,
  { retained, now = new Date() }: { retained: boolean; now?: Date },
) {
  const door = await getDoorByCode(doorCode);
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
export async function nextCredentialsVersion(doorRowId: string): Promise<number> {
  const [row] = await getDb()
    .update(doors)
    .set({ credentialsVersion: sql`${doors.credentialsVersion} + 1` })
    .where(eq(doors.id, doorRowId))
    .returning({ version: doors.credentialsVersion });
  if (!row) throw new Error(`door ${doorRowId} not found`);
  return row.version;
}

/** SPEC "Door stats"; recent activity = access log rows of the last 24 hours. */
export async function getDoorStats(now = new Date()) {
  const db = getDb();
  const [counts] = await db
    .select({
      totalDoors: sql<number>`count(*)`,
      activeDoors: sql<number>`coalesce(sum(${doors.status} = 'active'), 0)`,
      maintenanceDoors: sql<number>`coalesce(sum(${doors.status} = 'maintenance'), 0)`,
      emergencyDoors: sql<number>`coalesce(sum(${doors.status} = 'emergency'), 0)`,
    })
    .from(doors);
  const [activity] = await db
    .select({
      total: sql<number>`count(*)`,
      successful: sql<number>`coalesce(sum(${accessLogs.accessGranted}), 0)`,
    })
    .from(accessLogs)
    .where(gte(accessLogs.timestamp, new Date(now.getTime() - 24 * 3600_000)));
  const total = Number(activity?.total ?? 0);
  const successful = Number(activity?.successful ?? 0);
  return {
    totalDoors: Number(counts?.totalDoors ?? 0),
    activeDoors: Number(counts?.activeDoors ?? 0),
    maintenanceDoors: Number(counts?.maintenanceDoors ?? 0),
    emergencyDoors: Number(counts?.emergencyDoors ?? 0),
    recentActivity: { total, successful, failed: total - successful },
  };
}
