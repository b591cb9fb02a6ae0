// Door alarms (docs/mqtt.md, "Door alarms"): the access service raises and
// clears them; the web process lists them, and claims each new one once to
// send its staff notice (and open its incident).
import { and, desc, eq, gte, inArray, isNotNull, isNull, lte, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { accessLogs, doorAlarms, doors, type Door, type DOOR_ALARM_KINDS } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb, inWriteTransaction } from "~/utils/db.server";

export type DoorAlarmKind = (typeof DOOR_ALARM_KINDS)[number];
export type DoorAlarm = typeof doorAlarms.$inferSelect;

/**
 * Raises an alarm on a door, with its row in the access log (reason = the
 * kind, no card, its own outcome: access_granted 2), in one transaction: null when the same alarm is already
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
      // The alarm outcome (2, migration 0028): never a grant or a denial.
      accessGranted: sql`2`,
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
  /** Alarms of the door and kind folded into this one within the repeat window (0: none). */
  repeats: doorAlarms.repeats,
  /** The window's first alarm when this one is a repeat of it. */
  repeatOf: doorAlarms.repeatOf,
  doorRowId: doors.id,
  doorCode: doors.code,
  doorName: doors.name,
  doorLocation: doors.location,
};

/** A repeat's window first (listOpenDoorAlarms). */
const firstAlarm = alias(doorAlarms, "first_alarm");

/**
 * The alarms open now, newest first. A repeat (issue 40, point 4) shows its
 * window first's count of repeats and incident.
 */
export async function listOpenDoorAlarms() {
  return getDb()
    .select({
      ...alarmWithDoor,
      incidentId: sql<string | null>`coalesce(${doorAlarms.incidentId}, ${firstAlarm.incidentId})`,
      repeats: sql<number>`coalesce(${firstAlarm.repeats}, ${doorAlarms.repeats})`,
    })
    .from(doorAlarms)
    .innerJoin(doors, eq(doors.id, doorAlarms.doorId))
    .leftJoin(firstAlarm, eq(firstAlarm.id, doorAlarms.repeatOf))
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

/** A notified alarm (the window's first) and the repeats it counts. */
export type ClaimedDoorAlarm = DoorAlarmWithDoor;

/**
 * Claims the alarms nobody has sent a notice for yet, with their doors: of
 * two processes polling at once, each alarm goes to one (one IMMEDIATE write
 * transaction; the UPDATE only takes rows still unclaimed). A read first, so
 * a quiet poll writes nothing. An alarm raised less than `repeatWindowMs`
 * after the notified alarm of its door and kind (the window's first) is its
 * repeat: marked `repeat_of`, counted in that alarm's `repeats`, and not
 * answered (no notice, no incident of its own). Answers the window's firsts only.
 */
export async function claimUnnotifiedDoorAlarms(now: Date, repeatWindowMs: number): Promise<ClaimedDoorAlarm[]> {
  const waiting = await getDb().select({ id: doorAlarms.id }).from(doorAlarms).where(isNull(doorAlarms.notifiedAt));
  if (waiting.length === 0) return [];
  return inWriteTransaction(async () => {
    const claimed = await getDb()
      .update(doorAlarms)
      .set({ notifiedAt: now })
      .where(and(inArray(doorAlarms.id, waiting.map((row) => row.id)), isNull(doorAlarms.notifiedAt)))
      .returning({ id: doorAlarms.id, doorId: doorAlarms.doorId, kind: doorAlarms.kind, raisedAt: doorAlarms.raisedAt });
    if (claimed.length === 0) return [];
    const firsts: string[] = [];
    for (const alarm of claimed.sort((a, b) => a.raisedAt.getTime() - b.raisedAt.getTime() || a.id.localeCompare(b.id))) {
      // The window's first: the newest notified alarm of the door and kind that is no repeat, raised within the window.
      const [first] = await getDb()
        .select({ id: doorAlarms.id })
        .from(doorAlarms)
        .where(
          and(
            eq(doorAlarms.doorId, alarm.doorId),
            eq(doorAlarms.kind, alarm.kind),
            gte(doorAlarms.raisedAt, new Date(alarm.raisedAt.getTime() - repeatWindowMs)),
            lte(doorAlarms.raisedAt, alarm.raisedAt),
            isNull(doorAlarms.repeatOf),
            isNotNull(doorAlarms.notifiedAt),
            ne(doorAlarms.id, alarm.id),
          ),
        )
        .orderBy(desc(doorAlarms.raisedAt))
        .limit(1);
      if (!first) {
        firsts.push(alarm.id);
        continue;
      }
      await getDb().update(doorAlarms).set({ repeatOf: first.id }).where(eq(doorAlarms.id, alarm.id));
      await getDb()
        .update(doorAlarms)
        .set({ repeats: sql`${doorAlarms.repeats} + 1` })
        .where(eq(doorAlarms.id, first.id));
    }
    if (firsts.length === 0) return [];
    return getDb()
      .select(alarmWithDoor)
      .from(doorAlarms)
      .innerJoin(doors, eq(doors.id, doorAlarms.doorId))
      .where(inArray(doorAlarms.id, firsts))
      .orderBy(doorAlarms.raisedAt);
  });
}

export async function setDoorAlarmIncident(alarmId: string, incidentId: string) {
  await getDb().update(doorAlarms).set({ incidentId }).where(eq(doorAlarms.id, alarmId));
}
