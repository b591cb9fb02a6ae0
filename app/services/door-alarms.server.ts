// Door alarms, the web side (docs/mqtt.md, "Door alarms"): the access service
// raises and clears them in door_alarms; every web process polls that table
// (a few index lookups a second), sends each new alarm's staff notice once
// (claimed, so two processes never both send it), opens the incident of a
// forced door, and tells the dashboards it serves (server-sent events,
// GET /api/door-alarms/stream) whenever the open alarms change.
import { DOOR_ALARM_LABELS, type DoorAlarmKind } from "~/doors/reasons";
import { doorAlarmStaffMail } from "~/mail/staff-mail.server";
import * as incidentModel from "~/models/incident.server";
import {
  claimUnnotifiedDoorAlarms,
  doorAlarmsSignature,
  listOpenDoorAlarms,
  setDoorAlarmIncident,
  type DoorAlarmWithDoor,
} from "~/models/door-alarm.server";
import { formatDateTime } from "~/utils/dates";
import { getEnv } from "~/utils/env.server";
import { trySendStaffNotice } from "~/utils/mail.server";
import { audited, SYSTEM_ACTOR } from "./audit.server";
import { incidentFieldsOf } from "./incidents.server";

/** An open alarm as the dashboard and GET /api/door-alarms show it. */
export function toDoorAlarmJson(alarm: DoorAlarmWithDoor) {
  return {
    _id: alarm.id,
    kind: alarm.kind,
    label: DOOR_ALARM_LABELS[alarm.kind],
    doorId: alarm.doorCode,
    doorName: alarm.doorName,
    doorLocation: alarm.doorLocation,
    raisedAt: alarm.raisedAt.toISOString(),
    incidentId: alarm.incidentId,
    /** Alarms of the door and kind folded into the notified one within the repeat window (DOOR_ALARM_REPEAT_MINUTES). */
    repeats: Number(alarm.repeats),
  };
}
export type DoorAlarmJson = ReturnType<typeof toDoorAlarmJson>;

/** The alarms open now, newest first. */
export async function listDoorAlarms(): Promise<DoorAlarmJson[]> {
  return (await listOpenDoorAlarms()).map(toDoorAlarmJson);
}

const INCIDENT_DESCRIPTIONS: Partial<Record<DoorAlarmKind, (at: string) => string>> = {
  forced_open: (at) => `Abierta automáticamente por la alarma: la puerta se abrió sin acceso concedido (${at}).`,
};

/** A forced door's incident (type access), opened by the system. */
async function openAlarmIncident(alarm: DoorAlarmWithDoor) {
  const describe = INCIDENT_DESCRIPTIONS[alarm.kind];
  if (!describe) return null;
  const door = { id: alarm.doorRowId, name: alarm.doorName };
  const incident = await audited(
    async (audit) => {
      const created = await incidentModel.createDoorIncident({
        door,
        type: "access",
        urgency: "high",
        title: `${DOOR_ALARM_LABELS[alarm.kind]} · ${alarm.doorName}`,
        description: describe(formatDateTime(alarm.raisedAt)),
        reportedBy: { id: null, username: SYSTEM_ACTOR.username },
      });
      audit({
        action: "incident.create",
        entityType: "incident",
        entityId: created.id,
        summary: `abrió la incidencia «${created.title}» por una alarma de ${alarm.doorName}`,
        after: incidentFieldsOf(created),
      });
      return created;
    },
    { actor: SYSTEM_ACTOR },
  );
  await setDoorAlarmIncident(alarm.id, incident.id);
  return incident;
}

/**
 * Sends the notice of every alarm raised since the last call (and opens the
 * incident of each forced door): each alarm once, whichever process gets it.
 * An alarm raised within the repeat window (DOOR_ALARM_REPEAT_MINUTES, 10 by
 * default) of the notified one of its door and kind is only counted as its
 * repeat: one notice and one incident per door, kind and window (issue 40, point 4).
 */
export async function handleNewDoorAlarms(now = new Date(), repeatWindowMs = getEnv().DOOR_ALARM_REPEAT_MINUTES * 60_000) {
  const alarms = await claimUnnotifiedDoorAlarms(now, repeatWindowMs);
  for (const alarm of alarms) {
    try {
      await openAlarmIncident(alarm);
    } catch (error) {
      console.error(`[alarms] door ${alarm.doorCode}: could not open the incident of alarm ${alarm.kind}`, error);
    }
    await trySendStaffNotice(doorAlarmStaffMail(alarm));
  }
  return alarms.length;
}

type Listener = (alarms: DoorAlarmJson[]) => void;
const listeners = new Set<Listener>();
let lastSignature: string | null = null;
let polling: Promise<void> | null = null;

/** One poll: new alarms handled, listeners told when the open alarms changed. */
export function pollDoorAlarms(): Promise<void> {
  polling ??= (async () => {
    try {
      await handleNewDoorAlarms();
      const signature = await doorAlarmsSignature();
      if (signature === lastSignature) return;
      lastSignature = signature;
      if (listeners.size === 0) return;
      const alarms = await listDoorAlarms();
      for (const listener of listeners) listener(alarms);
    } catch (error) {
      console.error("[alarms] poll failed", error);
    } finally {
      polling = null;
    }
  })();
  return polling;
}

/** Polls every intervalMs from boot on (boot.server.ts); answers the stop. */
export function scheduleDoorAlarmPolls(intervalMs = 1000): () => void {
  void pollDoorAlarms();
  const timer = setInterval(() => void pollDoorAlarms(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Calls listener with the open alarms whenever they change; answers the unsubscribe. */
export function watchDoorAlarms(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
