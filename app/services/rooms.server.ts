// The house's rooms, shared by /admin/habitaciones and /api/rooms: the list,
// creating, editing and deleting. A room with confirmed stays still to come
// cannot be deleted, taken out of service or given another type: the refusal
// names those stays (the write itself checks, app/models/room.server.ts).
import { doorExists } from "~/models/door.server";
import * as roomModel from "~/models/room.server";
import type { Room } from "~/models/room.server";
import type { RoomInput, RoomUpdate } from "~/schemas/room";
import { formatIsoDay, todayInMadrid } from "~/utils/dates";
import { isUniqueViolation } from "~/utils/db.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";

export const ROOM_NOT_FOUND = "Habitación no encontrada";
export const DUPLICATE_ROOM_NAME = "Ya existe una habitación con ese nombre";
const UNKNOWN_DOOR = refuse(400, "La puerta no existe", { field: "doorId" });

/** Issue 28 room: `{_id, name, floor, roomType, doorId, status, notes}` (`doorId`: the door's `_id`, or null). */
export function toRoomJson(room: Room) {
  return {
    _id: room.id,
    name: room.name,
    floor: room.floor,
    roomType: room.roomType,
    doorId: room.doorId,
    status: room.status,
    notes: room.notes,
  };
}
export type RoomJson = ReturnType<typeof toRoomJson>;

export async function listRooms() {
  return (await roomModel.listRooms()).map(toRoomJson);
}

export async function getRoom(id: string): Promise<Result<{ room: RoomJson }>> {
  const room = await roomModel.getRoom(id);
  return room ? { ok: true, room: toRoomJson(room) } : refuse(404, ROOM_NOT_FOUND);
}

function duplicateName(error: unknown): Refusal {
  if (!isUniqueViolation(error, "rooms_name_unique")) throw error;
  return refuse(409, DUPLICATE_ROOM_NAME, { field: "name" });
}

export async function createRoom(input: RoomInput): Promise<Result<{ room: RoomJson }>> {
  if (input.doorId && !(await doorExists(input.doorId))) return UNKNOWN_DOOR;
  try {
    const room = await roomModel.insertRoom({ ...input, doorId: input.doorId ?? null, notes: input.notes || null });
    return { ok: true, room: toRoomJson(room) };
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
export async function updateRoom(id: string, input: RoomUpdate, now = new Date()): Promise<Result<{ room: RoomJson }>> {
  if (input.doorId && !(await doorExists(input.doorId))) return UNKNOWN_DOOR;
  const fields = { ...input, ...(input.notes === undefined ? {} : { notes: input.notes || null }) };
  const today = todayInMadrid(now);
  try {
    const updated = await roomModel.updateRoom(id, fields, today, now);
    if (!updated) return refuse(404, ROOM_NOT_FOUND);
    if (!updated.ok) return heldRefusal(id, input.status === "out-of-service" ? "poner fuera de servicio" : "cambiar el tipo de", today);
    return { ok: true, room: toRoomJson(updated.room) };
  } catch (error) {
    return duplicateName(error);
  }
}

export async function deleteRoom(id: string, now = new Date()): Promise<Result<{ room: RoomJson }>> {
  const today = todayInMadrid(now);
  const deleted = await roomModel.deleteRoom(id, today);
  if (!deleted) return refuse(404, ROOM_NOT_FOUND);
  if (!deleted.ok) return heldRefusal(id, "eliminar", today);
  return { ok: true, room: toRoomJson(deleted.room) };
}
