// The house's rooms (the inventory guests' room stays are counted against and
// assigned to). A room with confirmed stays still to come keeps its type and
// stays in service: the write itself checks it (one statement), so a
// confirmation a moment earlier is never left in a room that just went out
// of service. Names are unique ignoring case (rooms_name_unique).
import { and, asc, eq, sql } from "drizzle-orm";
import { anonymousReservations, doors, rooms, type Room } from "~/db/schema";
import { createId } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";

export type { Room };

export type RoomFields = Pick<Room, "name" | "floor" | "roomType" | "doorId" | "status" | "notes">;

/** By floor, then name (numbers in their order: "9" before "10"). */
const roomOrder = [asc(rooms.floor), asc(sql`length(${rooms.name})`), asc(rooms.name)];

export async function listRooms() {
  return getDb().select().from(rooms).orderBy(...roomOrder);
}

/** Every room with its door's hardware code (null without a door), in one query. */
export async function listRoomsWithDoorCodes() {
  return getDb()
    .select({ room: rooms, doorCode: doors.code })
    .from(rooms)
    .leftJoin(doors, eq(doors.id, rooms.doorId))
    .orderBy(...roomOrder);
}

export async function getRoom(id: string) {
  return getDb().query.rooms.findFirst({ where: eq(rooms.id, id) });
}

/** Inserts the room; a name already taken throws a unique violation on rooms_name_unique. */
export async function insertRoom(fields: RoomFields) {
  const [room] = await getDb()
    .insert(rooms)
    .values({ id: createId(), ...fields })
    .returning();
  return room!;
}

/** Confirmed stays in the room whose exit day is after `today` (SQL, for the writes' guards). */
const heldSql = (today: string) => sql`EXISTS (SELECT 1 FROM anonymous_reservations s
  WHERE s.room_id = ${rooms.id} AND s.status = 'confirmed' AND s.end_date > ${today})`;

/**
 * Changes the fields given. Taking the room out of service or changing its
 * type is not done while it has confirmed stays to come: then nothing is
 * written and the answer is "held". Null when there is no such room.
 */
export async function updateRoom(id: string, fields: Partial<RoomFields>, today: string, now = new Date()) {
  const leavesService = fields.status === "out-of-service" ? sql`${rooms.status} = 'available'` : sql`0`;
  const changesType = fields.roomType ? sql`${rooms.roomType} <> ${fields.roomType}` : sql`0`;
  const [room] = await getDb()
    .update(rooms)
    .set({ ...fields, updatedAt: now })
    .where(and(eq(rooms.id, id), sql`NOT ((${leavesService} OR ${changesType}) AND ${heldSql(today)})`))
    .returning();
  if (room) return { ok: true as const, room };
  return (await getRoom(id)) ? { ok: false as const, reason: "held" as const } : null;
}

/** Deletes the room unless it has confirmed stays to come ("held"); null when there is none. */
export async function deleteRoom(id: string, today: string) {
  const [deleted] = await getDb()
    .delete(rooms)
    .where(and(eq(rooms.id, id), sql`NOT ${heldSql(today)}`))
    .returning();
  if (deleted) return { ok: true as const, room: deleted };
  return (await getRoom(id)) ? { ok: false as const, reason: "held" as const } : null;
}

/** The room's confirmed stays whose exit day is after `today`, soonest first (to name them; their keys follow the room's door). */
export async function listUpcomingConfirmedStays(roomId: string, today: string, limit = 5) {
  const r = anonymousReservations;
  return getDb()
    .select({ id: r.id, reservationCode: r.reservationCode, startDate: r.startDate, endDate: r.endDate })
    .from(r)
    .where(and(eq(r.roomId, roomId), eq(r.status, "confirmed"), sql`${r.endDate} > ${today}`))
    .orderBy(asc(r.startDate))
    .limit(limit);
}

/** Rooms of the type in service. */
export async function countRoomsInService(roomType: Room["roomType"]) {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)` })
    .from(rooms)
    .where(and(eq(rooms.roomType, roomType), eq(rooms.status, "available")));
  return Number(row?.n ?? 0);
}
