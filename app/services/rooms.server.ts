// The house's rooms, shared by /admin/habitaciones and /api/rooms: the list,
// creating, editing and deleting. A room with confirmed stays still to come
// cannot be deleted, taken out of service or given another type: the refusal
// names those stays (the write itself checks, app/models/room.server.ts).
import { findDoorByCodeOrId, getDoorById } from "~/models/door.server";
import { notifyAccessChange } from "~/access/notify.server";
import { getReservationById } from "~/models/reservation.server";
import * as roomModel from "~/models/room.server";
import type { Room } from "~/models/room.server";
import type { RoomInput, RoomUpdate } from "~/schemas/room";
import { formatIsoDay, todayInMadrid } from "~/utils/dates";
import { isUniqueViolation } from "~/utils/db.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";
import { audited, changedFields } from "./audit.server";
import { syncStayKey } from "./door-keys.server";

/** The fields of a room an event keeps (`doorId`: the door's row id). */
const AUDITED_ROOM_FIELDS = ["name", "floor", "roomType", "doorId", "status", "notes"] as const;

function roomFieldsOf(room: Room) {
  return Object.fromEntries(AUDITED_ROOM_FIELDS.map((key) => [key, room[key]]));
}

export const ROOM_NOT_FOUND = "Habitación no encontrada";
export const DUPLICATE_ROOM_NAME = "Ya existe una habitación con ese nombre";
const UNKNOWN_DOOR = refuse(400, "La puerta no existe", { field: "doorId" });

/**
 * Issue 28 room: `{_id, name, floor, roomType, doorId, status, notes}`;
 * `doorId` is its door's hardware code, as everywhere on the wire
 * (architecture rule 12), or null.
 */
export function toRoomJson(room: Room, doorCode: string | null) {
  return {
    _id: room.id,
    name: room.name,
    floor: room.floor,
    roomType: room.roomType,
    doorId: doorCode,
    status: room.status,
    notes: room.notes,
  };
}
export type RoomJson = ReturnType<typeof toRoomJson>;

async function roomJson(room: Room) {
  const door = room.doorId ? await getDoorById(room.doorId) : null;
  return toRoomJson(room, door?.code ?? null);
}

/** A doorId from the wire (the door's code, or its row id for one release) as the door's row id. */
async function doorRowId<T extends { doorId?: string | null }>(input: T): Promise<Result<{ input: T }>> {
  if (!input.doorId) return { ok: true, input };
  const door = await findDoorByCodeOrId(input.doorId);
  return door ? { ok: true, input: { ...input, doorId: door.id } } : UNKNOWN_DOOR;
}

export async function listRooms() {
  const list = await roomModel.listRoomsWithDoorCodes();
  return list.map(({ room, doorCode }) => toRoomJson(room, doorCode));
}

export async function getRoom(id: string): Promise<Result<{ room: RoomJson }>> {
  const room = await roomModel.getRoom(id);
  return room ? { ok: true, room: await roomJson(room) } : refuse(404, ROOM_NOT_FOUND);
}

function duplicateName(error: unknown): Refusal {
  if (!isUniqueViolation(error, "rooms_name_unique")) throw error;
  return refuse(409, DUPLICATE_ROOM_NAME, { field: "name" });
}

export async function createRoom(given: RoomInput): Promise<Result<{ room: RoomJson }>> {
  const resolved = await doorRowId(given);
  if (!resolved.ok) return resolved;
  const { input } = resolved;
  try {
    const room = await audited(async (audit) => {
      const inserted = await roomModel.insertRoom({ ...input, doorId: input.doorId ?? null, notes: input.notes || null });
      audit({ action: "room.create", entityType: "room", entityId: inserted.id, summary: `creó la habitación ${inserted.name}`, after: roomFieldsOf(inserted) });
      return inserted;
    });
    return { ok: true, room: await roomJson(room) };
  } catch (error) {
    return duplicateName(error);
  }
}

/** "No se puede eliminar la habitación 201: tiene estancias confirmadas (ABCD2345, 10/12/2026–14/12/2026)". */
async function heldRefusal(id: string, what: string, today: string): Promise<Refusal> {
  const [room, stays] = await Promise.all([roomModel.getRoom(id), roomModel.listUpcomingConfirmedStays(id, today)]);
  const list = stays.map((stay) => `${stay.reservationCode}, ${formatIsoDay(stay.startDate)}–${formatIsoDay(stay.endDate)}`).join("; ");
  return refuse(409, `No se puede ${what} la habitación ${room?.name ?? ""}: tiene estancias confirmadas (${list})`);
}

/** Changes the fields given, only those. */
export async function updateRoom(id: string, given: RoomUpdate, now = new Date()): Promise<Result<{ room: RoomJson }>> {
  const resolved = await doorRowId(given);
  if (!resolved.ok) return resolved;
  const { input } = resolved;
  const fields = { ...input, ...(input.notes === undefined ? {} : { notes: input.notes || null }) };
  const today = todayInMadrid(now);
  let keyDoorIds: string[] = [];
  try {
    const updated = await audited(async (audit) => {
      const before = await roomModel.getRoom(id);
      if (!before) return null;
      const diff = changedFields(before, { ...before, ...fields }, AUDITED_ROOM_FIELDS);
      if (diff.changed.length === 0) return { ok: true as const, room: before };
      const result = await roomModel.updateRoom(id, fields, today, now);
      if (result?.ok) {
        audit({ action: "room.update", entityType: "room", entityId: id, summary: `editó la habitación ${result.room.name}`, before: diff.before, after: diff.after });
        // Another lock on the room: its confirmed stays' keys follow it (docs/access-keys.md).
        if (diff.changed.includes("doorId")) keyDoorIds = await resyncStayKeys(id, today, now);
      }
      return result;
    });
    if (keyDoorIds.length > 0) await notifyAccessChange({ doorIds: keyDoorIds });
    if (!updated) return refuse(404, ROOM_NOT_FOUND);
    if (!updated.ok) return heldRefusal(id, input.status === "out-of-service" ? "poner fuera de servicio" : "cambiar el tipo de", today);
    return { ok: true, room: await roomJson(updated.room) };
  } catch (error) {
    return duplicateName(error);
  }
}

/** The keys of the room's confirmed stays not over, synced to the room as it is now; answers the doors they touched. */
async function resyncStayKeys(roomId: string, today: string, now: Date) {
  const doorIds: string[] = [];
  for (const { id } of await roomModel.listUpcomingConfirmedStays(roomId, today, 1000)) {
    const stay = await getReservationById(id);
    if (stay) doorIds.push(...(await syncStayKey(stay, now)).doorIds);
  }
  return [...new Set(doorIds)];
}

export async function deleteRoom(id: string, now = new Date()): Promise<Result<{ room: RoomJson }>> {
  const today = todayInMadrid(now);
  const deleted = await audited(async (audit) => {
    const before = await roomModel.getRoom(id);
    const result = before ? await roomModel.deleteRoom(id, today) : null;
    if (before && result?.ok) {
      audit({ action: "room.delete", entityType: "room", entityId: id, summary: `eliminó la habitación ${before.name}`, before: roomFieldsOf(before) });
    }
    return result;
  });
  if (!deleted) return refuse(404, ROOM_NOT_FOUND);
  if (!deleted.ok) return heldRefusal(id, "eliminar", today);
  return { ok: true, room: toRoomJson(deleted.room, null) };
}
