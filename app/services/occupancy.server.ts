// One calendar for the whole house (/admin/ocupacion): rooms and salas as
// rows, 14 days as columns from a chosen day. Each guest's stay is drawn
// across its nights in its room (or, for a meeting room, its days in its
// sala), each resident's booking of a sala on its day. Stays without a room
// yet (pending ones) get rows of their own per room type, stacked so that
// none overlap.
import { listConfirmedBookingsBetween, listFacilities } from "~/models/facility-booking.server";
import { awaitsEmail, listStaysBetween, type Stay } from "~/models/reservation.server";
import { listRooms } from "~/models/room.server";
import { ROOM_TYPES } from "~/db/schema-enums";
import { ROOM_TYPE_LABELS } from "~/schemas/reservation";
import { addDays, daysBetween, formatIsoDayShort, formatTime, startOfMadridDay, todayInMadrid } from "~/utils/dates";
import { shownStatus } from "./reservations.server";

export const OCCUPANCY_DAYS = 14;

export type OccupancyDay = { date: string; label: string; today: boolean; weekend: boolean };

/** A guest's stay across columns [col, col + span) of a row. */
export type StaySpan = {
  id: string;
  code: string;
  guestName: string;
  status: Stay["status"];
  startDate: string;
  endDate: string;
  col: number;
  span: number;
  /** It began before the first column, or goes on after the last. */
  before: boolean;
  after: boolean;
  /**
   * A pending stay's hold (issue 40): "awaiting-email" holds nothing until the
   * guest confirms their email; "unconfirmed" holds its place until
   * `holdUntil` unless the house confirms it. Null for every other stay.
   */
  hold: "awaiting-email" | "unconfirmed" | null;
  holdUntil: string | null;
};

/** A resident's booking of a sala, on the column of its day. */
export type BookingMark = { id: string; col: number; time: string; residentName: string; status: "confirmed" | "completed" };

export type OccupancyRow = {
  key: string;
  kind: "room" | "sala" | "unassigned";
  name: string;
  detail: string;
  outOfService: boolean;
  stays: StaySpan[];
  bookings: BookingMark[];
};

export type Occupancy = { from: string; to: string; previous: string; next: string; today: string; days: OccupancyDay[]; rows: OccupancyRow[] };

function span(stay: Stay, from: string, today: string): StaySpan {
  const start = daysBetween(from, stay.startDate);
  const end = daysBetween(from, stay.endDate);
  const col = Math.max(0, start);
  return {
    id: stay.id,
    code: stay.reservationCode,
    guestName: stay.guestName,
    status: shownStatus(stay, today),
    startDate: stay.startDate,
    endDate: stay.endDate,
    col,
    span: Math.min(OCCUPANCY_DAYS, end) - col,
    before: start < 0,
    after: end > OCCUPANCY_DAYS,
    hold: stay.status === "pending" && stay.endDate >= today ? (awaitsEmail(stay) ? "awaiting-email" : "unconfirmed") : null,
    holdUntil: stay.status === "pending" && stay.expiresAt ? stay.expiresAt.toISOString() : null,
  };
}

/** Stays on as few rows as possible, none overlapping another on its row (by entry day). */
function stack(stays: StaySpan[]) {
  const lanes: StaySpan[][] = [];
  for (const stay of stays) {
    const lane = lanes.find((row) => row[row.length - 1]!.col + row[row.length - 1]!.span <= stay.col);
    if (lane) lane.push(stay);
    else lanes.push([stay]);
  }
  return lanes;
}

type DayGrid = { days: Omit<OccupancyDay, "today">[]; dayStarts: number[] };
const dayGrids = new Map<string, DayGrid>();

/**
 * The 14 columns from `from`: their days, labels and first instants in the
 * building. The same for every view of the same weeks (the screen is read on
 * every view, and a label or a day's start is an Intl call), so kept per
 * `from` (a few hundred at most).
 */
function dayGrid(from: string): DayGrid {
  let grid = dayGrids.get(from);
  if (!grid) {
    const days = Array.from({ length: OCCUPANCY_DAYS }, (_, i) => {
      const date = addDays(from, i);
      const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
      return { date, label: formatIsoDayShort(date), weekend: weekday === 0 || weekday === 6 };
    });
    const dayStarts = Array.from({ length: OCCUPANCY_DAYS + 1 }, (_, i) => startOfMadridDay(addDays(from, i)).getTime());
    grid = { days, dayStarts };
    if (dayGrids.size >= 500) dayGrids.clear();
    dayGrids.set(from, grid);
  }
  return grid;
}

/** The calendar of the 14 days from `from` ("YYYY-MM-DD"). */
export async function getOccupancy(from: string, now = new Date()): Promise<Occupancy> {
  const today = todayInMadrid(now);
  const to = addDays(from, OCCUPANCY_DAYS);
  const [rooms, facilities, stays, bookings] = await Promise.all([
    listRooms(),
    listFacilities(),
    listStaysBetween(from, to),
    listConfirmedBookingsBetween({ facilityType: "meeting-room", from: startOfMadridDay(from), to: startOfMadridDay(to) }),
  ]);
  const grid = dayGrid(from);
  const days = grid.days.map((day) => ({ ...day, today: day.date === today }));
  const dayStarts = grid.dayStarts;

  const byRoom = new Map<string, StaySpan[]>();
  const bySala = new Map<string, StaySpan[]>();
  const unassigned = new Map<string, StaySpan[]>();
  for (const stay of stays) {
    const drawn = span(stay, from, today);
    const [map, key] = stay.roomId
      ? [byRoom, stay.roomId]
      : stay.salaId
        ? [bySala, stay.salaId]
        : [unassigned, stay.reservationType === "sala" ? "sala" : (stay.roomType ?? "doble")];
    map.set(key, [...(map.get(key) ?? []), drawn]);
  }

  const rows: OccupancyRow[] = rooms.map((room) => ({
    key: `room-${room.id}`,
    kind: "room",
    name: room.name,
    detail: `${ROOM_TYPE_LABELS[room.roomType]} · Planta ${room.floor}`,
    outOfService: room.status === "out-of-service",
    stays: byRoom.get(room.id) ?? [],
    bookings: [],
  }));
  for (const sala of facilities.filter((facility) => facility.type === "meeting-room")) {
    const marks: BookingMark[] = [];
    for (const booking of bookings.filter((b) => b.facilityId === sala.id)) {
      for (let col = 0; col < OCCUPANCY_DAYS; col++) {
        if (booking.startsAt.getTime() < dayStarts[col + 1]! && booking.endsAt.getTime() > dayStarts[col]!) {
          const name = [booking.firstName, booking.lastName].filter(Boolean).join(" ") || booking.username;
          const time = `${formatTime(booking.startsAt)}–${formatTime(booking.endsAt)}`;
          marks.push({ id: booking.id, col, time, residentName: name, status: booking.endsAt.getTime() <= now.getTime() ? "completed" : "confirmed" });
        }
      }
    }
    rows.push({
      key: `sala-${sala.id}`,
      kind: "sala",
      name: sala.name,
      detail: sala.capacity ? `Sala · ${sala.capacity} personas` : "Sala",
      outOfService: false,
      stays: bySala.get(sala.id) ?? [],
      bookings: marks,
    });
  }
  for (const type of [...ROOM_TYPES, "sala"] as const) {
    stack(unassigned.get(type) ?? []).forEach((lane, i) =>
      rows.push({
        key: `unassigned-${type}-${i}`,
        kind: "unassigned",
        name: type === "sala" ? "Sala sin asignar" : `${ROOM_TYPE_LABELS[type]} sin habitación`,
        detail: "Pendientes de confirmar",
        outOfService: false,
        stays: lane,
        bookings: [],
      }),
    );
  }
  return { from, to, previous: addDays(from, -OCCUPANCY_DAYS), next: to, today, days, rows };
}
