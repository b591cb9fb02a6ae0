// Door alarms (docs/mqtt.md, "Door alarms"): the access service raises and
// clears them; the web process lists them, and claims each new one once to
// send its staff notice (and open its incident).
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { accessLogs, doorAlarms, doors, type Door, type DOOR_ALARM_KINDS } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, inWriteTransaction } from "~/utils/db.server";

export type DoorAlarmKind = (typeof DOOR_ALARM_KINDS)[number];
export type DoorAlarm = typeof doorAlarms.$inferSelect;

/**
 * Raises an alarm on a door, with its row in the access log (reason = the
 * kind, no card), in one transaction: null when the same alarm is already
 * open on the door (nothing written).
 */
export async function raiseDoorAlarm(door: Pick<Door, "id" | "code" | "name">, kind: DoorAlarmKind, at: Date): Promise<DoorAlarm | null> {
  return inWriteTransaction(async () => {
    const [alarm] = await getDb()
      .insert(doorAlarms)
      .values({ id: createId(), doorId: door.id, kind, raisedAt: at })
      .onConflictDoNothing()
      .returning();
    if (!alarm) return null;
    await getDb().insert(accessLogs).values({
      id: alarm.id,
      eventId: null,
      timestamp: at,
      cardNumber: "",
      doorId: door.id,
      doorCode: door.code,
      doorName: door.name,
      accessGranted: false,
      reason: kind,
      source: "alarm",
    });
    return alarm;
  });
}

/** Clears the door's open alarms of these kinds; answers those it cleared. */
export async function clearDoorAlarms(doorId: string, kinds: readonly DoorAlarmKind[], at: Date): Promise<DoorAlarm[]> {
  return getDb()
    .update(doorAlarms)
    .set({ clearedAt: at })
    .where(and(eq(doorAlarms.doorId, doorId), inArray(doorAlarms.kind, [...kinds]), isNull(doorAlarms.clearedAt)))
    .returning();
}

const alarmWithDoor = {
  id: doorAlarms.id,
  kind: doorAlarms.kind,
  raisedAt: doorAlarms.raisedAt,
  clearedAt: doorAlarms.clearedAt,
  incidentId: doorAlarms.incidentId,
  doorRowId: doors.id,
  doorCode: doors.code,
  doorName: doors.name,
  doorLocation: doors.location,
};

/** The alarms open now, newest first. */
export async function listOpenDoorAlarms() {
  return getDb()
    .select(alarmWithDoor)
    .from(doorAlarms)
    .innerJoin(doors, eq(doors.id, doorAlarms.doorId))
    .where(isNull(doorAlarms.clearedAt))
    .orderBy(desc(doorAlarms.raisedAt), desc(doorAlarms.id));
}

export type DoorAlarmWithDoor = Awaited<ReturnType<typeof listOpenDoorAlarms>>[number];

/** Changes whenever an alarm is raised or cleared (a few index lookups: polled every second). */
export async function doorAlarmsSignature(): Promise<string> {
  const row = await getDb().get<{ open: number; raised: number | null; cleared: number | null }>(
    sql`SELECT (SELECT count(*) FROM door_alarms WHERE cleared_at IS NULL) AS open,
               (SELECT max(raised_at) FROM door_alarms) AS raised,
               (SELECT max(cleared_at) FROM door_alarms) AS cleared`,
  );
  return `${row?.open ?? 0}:${row?.raised ?? ""}:${row?.cleared ?? ""}`;
}

/**
 * Claims the alarms nobody has sent a notice for yet, with their doors: of
 * two processes polling at once, each alarm goes to one (the UPDATE only
 * takes rows still unclaimed). A read first, so a quiet poll writes nothing.
 */
export async function claimUnnotifiedDoorAlarms(now: Date): Promise<DoorAlarmWithDoor[]> {
  const waiting = await getDb().select({ id: doorAlarms.id }).from(doorAlarms).where(isNull(doorAlarms.notifiedAt));
  if (waiting.length === 0) return [];
  const claimed = await getDb()
    .update(doorAlarms)
    .set({ notifiedAt: now })
    .where(and(inArray(doorAlarms.id, waiting.map((row) => row.id)), isNull(doorAlarms.notifiedAt)))
    .returning({ id: doorAlarms.id });
  if (claimed.length === 0) return [];
  return getDb()
    .select(alarmWithDoor)
    .from(doorAlarms)
    .innerJoin(doors, eq(doors.id, doorAlarms.doorId))
    .where(inArray(doorAlarms.id, claimed.map((row) => row.id)))
    .orderBy(doorAlarms.raisedAt);
}

export async function setDoorAlarmIncident(alarmId: string, incidentId: string) {
  await getDb().update(doorAlarms).set({ incidentId }).where(eq(doorAlarms.id, alarmId));
}
