// What is free for a stay, shared by GET /api/availability, the /reservar
// page and the refusals of a full booking: rooms of a type in service and free
// for every night of [startDate, endDate), or the salas (meeting-room
// facilities) free on every one of those days, whose days are one calendar
// with residents' facility bookings. The database decides the bookings
// themselves (app/models/reservation.server.ts); this only reads.
import { listConfirmedBookingsBetween } from "~/models/facility-booking.server";
import { busiestNight, listSalasForHold, type SalaHold } from "~/models/reservation.server";
import { countRoomsInService } from "~/models/room.server";
import { fullMessage, type Availability, type AvailabilityQuery } from "~/schemas/availability";
import { addDays, formatIsoDay, startOfMadridDay } from "~/utils/dates";
import { checkRateLimit } from "./rate-limits.server";
import { refuse, type Refusal, type Result } from "~/utils/refusal.server";

/** A meeting-room stay holds its sala for whole days: from the Madrid midnight of its entry day to that of its exit day. */
export function salaHold(startDate: string, endDate: string): SalaHold {
  return { heldFrom: startOfMadridDay(startDate), heldTo: startOfMadridDay(endDate) };
}

/** What is free for the stay (no rate limit: callers that answer the public check it). */
/**
 * What is free for the stay (no rate limit: callers that answer the public
 * check it), and `unconfirmed`: how many of the rooms (or salas) not free are
 * held only by pending stays the house has not confirmed yet, which lapse
 * unless it does (issue 40). A booking awaiting its guest's email holds nothing.
 */
export async function readAvailability({ reservationType, roomType, startDate, endDate }: AvailabilityQuery, now = new Date()): Promise<Availability> {
  if (reservationType === "habitacion" && roomType) {
    const [total, busiest, busiestConfirmed] = await Promise.all([
      countRoomsInService(roomType),
      busiestNight(roomType, startDate, endDate, { now: now.getTime() }),
      busiestNight(roomType, startDate, endDate, { confirmedOnly: true }),
    ]);
    const available = Math.max(0, total - busiest);
    const unconfirmed = Math.max(0, Math.max(0, total - busiestConfirmed) - available);
    return { reservationType, roomType, startDate, endDate, total, available, unconfirmed };
  }
  const salas = await listSalasForHold(salaHold(startDate, endDate), null, now.getTime());
  const free = salas.filter((sala) => sala.free).map(({ id, name, capacity }) => ({ _id: id, name, capacity }));
  const unconfirmed = salas.filter((sala) => sala.heldUnconfirmed).length;
  return { reservationType: "sala", roomType: null, startDate, endDate, total: salas.length, available: free.length, salas: free, unconfirmed };
}

/** GET /api/availability and /reservar: limited per address like the other public reads. */
export async function checkAvailability(query: AvailabilityQuery, { ip }: { ip: string }): Promise<Result<{ availability: Availability }>> {
  const refused = await checkRateLimit("availability", [ip]);
  if (refused) return refused;
  return { ok: true, availability: await readAvailability(query) };
}

/**
 * The 409 of a booking whose type is full. For salas it names why when it is
 * the residents: a day on which every sala has a resident's booking.
 */
export async function fullRefusal({ reservationType, roomType, startDate, endDate }: Omit<AvailabilityQuery, "roomType"> & { roomType: AvailabilityQuery["roomType"] }): Promise<Refusal> {
  const message = fullMessage(reservationType, roomType);
  if (reservationType !== "sala") return refuse(409, message);
  const day = await firstDayEverySalaHasResidents(startDate, endDate);
  return refuse(409, day ? `${message}: el ${formatIsoDay(day)} todas las salas tienen reservas de residentes` : message);
}

async function firstDayEverySalaHasResidents(startDate: string, endDate: string) {
  const { heldFrom, heldTo } = salaHold(startDate, endDate);
  const [salas, bookings] = await Promise.all([
    listSalasForHold({ heldFrom, heldTo }),
    listConfirmedBookingsBetween({ facilityType: "meeting-room", from: heldFrom, to: heldTo }),
  ]);
  if (salas.length === 0 || bookings.length === 0) return null;
  for (let day = startDate; day < endDate; day = addDays(day, 1)) {
    const [from, to] = [startOfMadridDay(day).getTime(), startOfMadridDay(addDays(day, 1)).getTime()];
    const booked = new Set(bookings.filter((b) => b.startsAt.getTime() < to && b.endsAt.getTime() > from).map((b) => b.facilityId));
    if (salas.every((sala) => booked.has(sala.id))) return day;
  }
  return null;
}
