// Doors as the admin changes them, shared by the dashboard and /api/doors:
// each change leaves its audit event, and every change that alters what a
// door shows or who it lets in is announced (once committed) to the access
// service, which republishes the door's display and offline list. Each
// function answers its result or a Refusal.
import { generateBridgeSecret, mosquittoPasswordHash } from "~/utils/mosquitto-password.server";
import { notifyAccessChange } from "~/access/notify.server";
import { getAccessActivity, type HourlyActivity } from "~/models/access-log-query.server";
import * as doorModel from "~/models/door.server";
import { facilityExists } from "~/models/facility-booking.server";
import type { Door, DoorFields } from "~/models/door.server";
import type { User } from "~/models/user.server";
import { DOOR_STATUS_LABELS, type DoorIncidentInput, type DoorInput, type DoorMessagesInput } from "~/schemas/door";
import { isUniqueViolation } from "~/utils/db.server";
import { refuse, type Result } from "~/utils/refusal.server";
import { audited, changedFields, type Audit } from "./audit.server";
import { createIncident } from "./incidents.server";

export type { Door, HourlyActivity };

export const DOOR_NOT_FOUND = "Puerta no encontrada";
export const DUPLICATE_DOOR_CODE = "Ya existe una puerta con ese ID";
export const MESSAGE_NOT_SAVED = "No se pudo actualizar el mensaje";
export const INCIDENT_NOT_CREATED = "No se pudo crear la incidencia";

/** What admins and the API see of a door (SPEC §3; never the bridge secret's hash). */
export function toDoorJson(door: Door, recentActivity = 0) {
  return {
    _id: door.id,
    id: door.id,
    doorId: door.code,
    name: door.name,
    location: door.location,
    description: door.description,
    status: door.status,
    useCustomMessages: door.useCustomMessages,
    customStatus: door.customStatus,
    customMessage: door.customMessage,
    recentActivity,
    lastAccess: door.lastAccessAt ? door.lastAccessAt.toISOString() : null,
    lastAccessAt: door.lastAccessAt ? door.lastAccessAt.toISOString() : null,
    hardware: door.hardware ?? null,
    facilityId: door.facilityId,
    unlockSchedule: door.unlockSchedule,
    unlockOnHolidays: door.unlockOnHolidays,
    firstPersonIn: door.firstPersonIn,
    heldOpenSeconds: door.heldOpenSeconds,
    isEntrance: door.isEntrance,
    bridgeSecretIssuedAt: door.bridgeSecretIssuedAt ? door.bridgeSecretIssuedAt.toISOString() : null,
    createdAt: door.createdAt.toISOString(),
    updatedAt: door.updatedAt.toISOString(),
  };
}
export type DoorJson = ReturnType<typeof toDoorJson>;

/** SPEC "Door stats"; recent activity = access log rows of the last 24 hours. */
export type DoorStats = ReturnType<typeof toDoorStats>;

function toDoorStats(counts: Awaited<ReturnType<typeof doorModel.countDoorsByStatus>>, activity: { total: number; granted: number }) {
  return {
    totalDoors: counts.total,
    activeDoors: counts.active,
    maintenanceDoors: counts.maintenance,
    emergencyDoors: counts.emergency,
    recentActivity: { total: activity.total, successful: activity.granted, failed: activity.total - activity.granted },
  };
}

/** Every door with its 24-hour activity, the door stats and the hourly chart: the dashboard's data in two reads. */
export async function getDoorsOverview(now = new Date()): Promise<{ doors: DoorJson[]; stats: DoorStats; hourly: HourlyActivity[] }> {
  const [doors, counts, activity] = await Promise.all([doorModel.listDoors(), doorModel.countDoorsByStatus(), getAccessActivity(now)]);
  return {
    doors: doors.map((door) => toDoorJson(door, activity.byDoor.get(door.id) ?? 0)),
    stats: toDoorStats(counts, activity),
    hourly: activity.hourly,
  };
}

/** The doors as a filter or a select lists them. */
export async function listDoorOptions() {
  return (await doorModel.listDoorNames()).map((door) => ({ id: door.id, name: door.name, location: door.location, doorId: door.code }));
}

export async function getDoor(id: string): Promise<Result<{ door: Door }>> {
  const door = await doorModel.getDoorById(id);
  return door ? { ok: true, door } : refuse(404, DOOR_NOT_FOUND);
}

async function saved(door: Door | null, notFound = DOOR_NOT_FOUND): Promise<Result<{ door: Door }>> {
  if (!door) return refuse(404, notFound);
  await notifyAccessChange({ doorIds: [door.id] });
  return { ok: true, door };
}

function duplicateCode(error: unknown) {
  if (!isUniqueViolation(error, "doors.door_id")) throw error;
  return refuse(409, DUPLICATE_DOOR_CODE, { field: "doorId" });
}

/** `doorId` in the input is the door's hardware code (the API's field name). */
function toDoorFields({ doorId, ...fields }: Partial<DoorInput>): DoorFields {
  return { ...fields, ...(doorId === undefined ? {} : { code: doorId }) };
}

const UNKNOWN_FACILITY = refuse(400, "La instalación no existe", { field: "facilityId" });

/** The fields of a door an event keeps (never the bridge secret's hash). */
const AUDITED_DOOR_FIELDS = [
  "code",
  "name",
  "location",
  "description",
  "status",
  "facilityId",
  "isEntrance",
  "useCustomMessages",
  "customStatus",
  "customMessage",
  "unlockSchedule",
  "unlockOnHolidays",
  "firstPersonIn",
  "heldOpenSeconds",
] as const;

function doorFieldsOf(door: Door) {
  return Object.fromEntries(AUDITED_DOOR_FIELDS.map((key) => [key, door[key]]));
}

/** A new door: without a timetable unless given one. */
export type NewDoorInput = Omit<DoorInput, "unlockSchedule" | "unlockOnHolidays" | "firstPersonIn" | "isEntrance"> &
  Partial<Pick<DoorInput, "unlockSchedule" | "unlockOnHolidays" | "firstPersonIn" | "isEntrance">>;

export async function createDoor(input: NewDoorInput): Promise<Result<{ door: Door }>> {
  const { doorId, ...fields } = input;
  if (fields.facilityId && !(await facilityExists(fields.facilityId))) return UNKNOWN_FACILITY;
  let door: Door;
  try {
    door = await audited(async (audit) => {
      const inserted = await doorModel.insertDoor({ ...fields, code: doorId });
      audit({
        action: "door.create",
        entityType: "door",
        entityId: inserted.id,
        summary: `creó la puerta ${inserted.name} (${inserted.code})`,
        after: doorFieldsOf(inserted),
      });
      return inserted;
    });
  } catch (error) {
    return duplicateCode(error);
  }
  return saved(door);
}

/** The event of an edit: a change of status alone says so; anything more is an edit. */
function auditDoorEdit(audit: Audit, before: Door, after: Door) {
  const diff = changedFields(before, after, AUDITED_DOOR_FIELDS);
  if (diff.changed.length === 0) return;
  const statusOnly = diff.changed.length === 1 && diff.changed[0] === "status";
  audit({
    action: statusOnly ? "door.status" : "door.update",
    entityType: "door",
    entityId: after.id,
    summary: statusOnly
      ? `cambió el estado de la puerta ${after.name} a ${DOOR_STATUS_LABELS[after.status].toLowerCase()}`
      : `editó la puerta ${after.name}`,
    before: diff.before,
    after: diff.after,
  });
}

/** Changes the fields given, only those. A new code renames the bridge's MQTT account: it must be reconfigured. */
export async function updateDoor(id: string, input: Partial<DoorInput>): Promise<Result<{ door: Door }>> {
  if (input.facilityId && !(await facilityExists(input.facilityId))) return UNKNOWN_FACILITY;
  let door: Door | null;
  try {
    door = await audited(async (audit) => {
      const before = await doorModel.getDoorById(id);
      if (!before) return null;
      const fields = toDoorFields(input);
      // Values equal to the stored ones change nothing (and leave no event).
      if (changedFields(before, { ...before, ...fields }, AUDITED_DOOR_FIELDS).changed.length === 0) return before;
      const updated = await doorModel.updateDoor(id, fields);
      if (updated) auditDoorEdit(audit, before, updated);
      return updated;
    });
  } catch (error) {
    return duplicateCode(error);
  }
  return saved(door);
}

/**
 * The hardware status text (≤ 10 characters) and welcome (≤ 16) shown at the
 * door, and whether they are used. Only what is given changes: switching the
 * custom messages off keeps the texts for when they are switched on again.
 */
export async function setDoorMessages(id: string, { useCustomMessages, customStatus, customMessage }: DoorMessagesInput) {
  const door = await audited(async (audit) => {
    const before = await doorModel.getDoorById(id);
    if (!before) return null;
    const fields = {
      ...(useCustomMessages === undefined ? {} : { useCustomMessages }),
      ...(customStatus === undefined ? {} : { customStatus: customStatus || null }),
      ...(customMessage === undefined ? {} : { customMessage: customMessage || null }),
    };
    const diff = changedFields(before, { ...before, ...fields }, ["useCustomMessages", "customStatus", "customMessage"] as const);
    if (diff.changed.length === 0) return before;
    const updated = await doorModel.updateDoor(id, fields);
    if (!updated) return null;
    audit({
      action: "door.messages",
      entityType: "door",
      entityId: id,
      summary: `cambió los mensajes de la puerta ${updated.name}`,
      before: diff.before,
      after: diff.after,
    });
    return updated;
  });
  return saved(door, MESSAGE_NOT_SAVED);
}

/** Deletes the door; the access service clears its retained topics and drops its bridge. */
export async function deleteDoor(id: string): Promise<Result> {
  const deleted = await audited(async (audit) => {
    const door = await doorModel.getDoorById(id);
    if (!door || !(await doorModel.deleteDoor(id))) return false;
    audit({ action: "door.delete", entityType: "door", entityId: id, summary: `eliminó la puerta ${door.name} (${door.code})`, before: doorFieldsOf(door) });
    return true;
  });
  if (!deleted) return refuse(404, DOOR_NOT_FOUND);
  await notifyAccessChange({ doorIds: [id] });
  return { ok: true };
}

/** An incident an admin reports on a door. */
export async function reportDoorIncident(id: string, input: DoorIncidentInput, reporter: Pick<User, "id" | "username">) {
  const reported = await createIncident({ ...input, doorId: id }, reporter);
  return reported.ok ? reported : refuse(404, INCIDENT_NOT_CREATED);
}

/**
 * Issues a new bridge credential (username = the door's code). The secret is
 * returned once and only its hash is kept; the previous secret stops working
 * at once (the embedded broker also drops the connected bridge).
 */
export async function rotateBridgeCredential(id: string): Promise<Result<{ credential: { username: string; password: string } }>> {
  const password = generateBridgeSecret();
  const secretHash = mosquittoPasswordHash(password);
  const door = await audited(async (audit) => {
    const before = await doorModel.getDoorById(id);
    if (!before) return null;
    const issuedAt = new Date();
    const rotated = await doorModel.setBridgeSecretHash(id, secretHash, issuedAt);
    if (!rotated) return null;
    audit({
      action: "door.rotate_secret",
      entityType: "door",
      entityId: id,
      summary: `renovó la credencial del puente de la puerta ${before.name}`,
      before: { bridgeSecretHash: before.bridgeSecretHash, bridgeSecretIssuedAt: before.bridgeSecretIssuedAt },
      after: { bridgeSecretHash: secretHash, bridgeSecretIssuedAt: issuedAt },
    });
    return rotated;
  });
  if (!door) return refuse(404, DOOR_NOT_FOUND);
  await notifyAccessChange({ doorIds: [id] });
  return { ok: true, credential: { username: door.code, password } };
}

/**
 * The door with this code, created when missing, with a fresh bridge
 * credential: for the bridge simulator, benchmarks and test fixtures.
 */
export async function provisionDoor(code: string, { name = `Puerta ${code}`, location = "Simulador" } = {}) {
  let door = await doorModel.getDoorByCode(code);
  if (!door) {
    const created = await createDoor({ doorId: code, name, location, status: "active" });
    if (!created.ok) throw new Error(`door ${code}: ${created.message}`);
    door = created.door;
  }
  const rotated = await rotateBridgeCredential(door.id);
  if (!rotated.ok) throw new Error(`door ${code}: ${rotated.message}`);
  return { door, credential: rotated.credential };
}
