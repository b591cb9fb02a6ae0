// Weekly timetables (access groups' doors, card permissions): which ranges of
// which weekdays, in the building's time. Pure and browser-safe; the bridge
// has its own copy (bridge/src/schedule.ts) for the offline list, checked
// against this one by tests/integration/mqtt-contract.test.ts.
import type { ScheduleRange, WeeklySchedule } from "~/db/schema-enums";
import { madridDayOf, TIME_ZONE } from "~/utils/dates";

export type { ScheduleRange, WeeklySchedule };

/** An instant as the building's clock reads it: ISO weekday (1 = Monday … 7 = Sunday) and minutes since midnight. */
export type LocalTime = { weekday: number; minutes: number };

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const localFormat = new Intl.DateTimeFormat("en-GB", {
  timeZone: TIME_ZONE,
  weekday: "short",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** The building's weekday and time of an instant. */
export function buildingLocalTime(at: Date): LocalTime {
  let weekday = 1;
  let hour = 0;
  let minute = 0;
  for (const part of localFormat.formatToParts(at)) {
    if (part.type === "weekday") weekday = WEEKDAYS[part.value] ?? 1;
    else if (part.type === "hour") hour = Number(part.value);
    else if (part.type === "minute") minute = Number(part.value);
  }
  return { weekday, minutes: hour * 60 + minute };
}

/** "08:30" → 510; "24:00" → 1440 (a range's end of day). */
export function minutesOf(time: string) {
  const [hours, minutes] = time.split(":");
  return Number(hours) * 60 + Number(minutes);
}

/** Inside the timetable at this local time? An empty timetable is always. Ranges are [from, to). */
export function isWithinSchedule(schedule: WeeklySchedule, local: LocalTime) {
  if (schedule.length === 0) return true;
  return schedule.some(
    (range) => range.days.includes(local.weekday) && minutesOf(range.from) <= local.minutes && local.minutes < minutesOf(range.to),
  );
}

const DAY_LETTERS = ["L", "M", "X", "J", "V", "S", "D"] as const;

/** Days as the admin writes them: "L-V", "S,D", "L-D". */
function formatDays(days: number[]) {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let index = 0; index < sorted.length; ) {
    let end = index;
    while (end + 1 < sorted.length && sorted[end + 1] === sorted[end]! + 1) end += 1;
    const first = DAY_LETTERS[sorted[index]! - 1]!;
    const last = DAY_LETTERS[sorted[end]! - 1]!;
    parts.push(end === index ? first : end === index + 1 ? `${first},${last}` : `${first}-${last}`);
    index = end + 1;
  }
  return parts.join(",");
}

/** "L-V 08:00-20:00; S 10:00-14:00"; "" for always (the text the group form edits). */
export function formatSchedule(schedule: WeeklySchedule | null | undefined) {
  return (schedule ?? []).map((range) => `${formatDays(range.days)} ${range.from}-${range.to}`).join("; ");
}

/** For the screens: the timetable, or 'Siempre'. */
export function describeSchedule(schedule: WeeklySchedule | null | undefined) {
  return schedule && schedule.length > 0 ? formatSchedule(schedule) : "Siempre";
}

/** The union of timetables: empty (always) when any of them is. */
export function unionOfSchedules(schedules: WeeklySchedule[]): WeeklySchedule {
  if (schedules.some((schedule) => schedule.length === 0)) return [];
  return schedules.flat();
}

/** The building's calendar day of an instant, "2026-12-25". */
export function buildingLocalDay(at: Date) {
  return madridDayOf(at);
}

function timeOfMinutes(minutes: number) {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/**
 * The end ("HH:MM") of the stretch of ranges that holds this local time, ranges
 * that meet or overlap followed to the last; null outside every range.
 */
export function unlockedUntil(schedule: WeeklySchedule, local: LocalTime): string | null {
  const today = schedule.filter((range) => range.days.includes(local.weekday));
  let until = -1;
  let at = local.minutes;
  for (;;) {
    const holding = today.filter((range) => minutesOf(range.from) <= at && at < minutesOf(range.to));
    const end = Math.max(-1, ...holding.map((range) => minutesOf(range.to)));
    if (end <= until) break;
    until = end;
    at = end;
  }
  return until < 0 ? null : timeOfMinutes(until);
}

/** What a door's lock does now (docs/mqtt.md, "Doors on a timetable"). */
export type DoorMode = { mode: "locked" } | { mode: "unlocked"; until: string } | { mode: "lockdown" };

export type DoorTimetable = {
  status: "active" | "maintenance" | "emergency";
  unlockSchedule: WeeklySchedule;
  unlockOnHolidays: boolean;
  firstPersonIn: boolean;
};

/**
 * A door's mode at an instant: lockdown while in emergency; released inside its
 * unlock timetable when active, not on a holiday (unless the door opens on
 * holidays) and, with first-person-in, once a card was granted there that day
 * (`firstInDay`, the building's day of the first grant). The bridge applies the
 * same rules by its own clock (bridge/src/schedule.ts).
 */
export function doorModeAt(door: DoorTimetable, at: Date, holidays: ReadonlySet<string>, firstInDay: string | null): DoorMode {
  if (door.status === "emergency") return { mode: "lockdown" };
  if (door.status !== "active" || door.unlockSchedule.length === 0) return { mode: "locked" };
  const day = buildingLocalDay(at);
  if (holidays.has(day) && !door.unlockOnHolidays) return { mode: "locked" };
  if (door.firstPersonIn && firstInDay !== day) return { mode: "locked" };
  const until = unlockedUntil(door.unlockSchedule, buildingLocalTime(at));
  return until === null ? { mode: "locked" } : { mode: "unlocked", until };
}

/** A right to open a door: until `expiresAt` (epoch ms; null: no end), on a timetable (null: always). */
export type TimedRight = { expiresAt: number | null; schedule: WeeklySchedule | null };

const MINUTE_MS = 60_000;

/**
 * The parts of the windows [from, to) (epoch ms) in which one of the rights
 * holds (issue 40: a visitor pass opens a door offline only while its issuer
 * could). Timetables are read minute by minute in the building's zone (their
 * ranges are whole minutes there), so daylight-saving changes are honoured.
 */
export function windowsWithinRights(windows: [number, number][], rights: TimedRight[]): [number, number][] {
  const out: [number, number][] = [];
  if (rights.length === 0) return out;
  const holds = (at: number) =>
    rights.some((right) => (right.expiresAt === null || at < right.expiresAt) && (right.schedule === null || isWithinSchedule(right.schedule, buildingLocalTime(new Date(at)))));
  for (const [from, to] of windows) {
    const cuts = new Set<number>([from, to]);
    for (const right of rights) if (right.expiresAt !== null && right.expiresAt > from && right.expiresAt < to) cuts.add(right.expiresAt);
    if (rights.some((right) => right.schedule !== null)) {
      for (let at = Math.ceil(from / MINUTE_MS) * MINUTE_MS; at < to; at += MINUTE_MS) cuts.add(at);
    }
    const points = [...cuts].sort((a, b) => a - b);
    for (let index = 0; index < points.length - 1; index++) {
      const [start, end] = [points[index]!, points[index + 1]!];
      if (!holds(start)) continue;
      const last = out.at(-1);
      if (last && last[1] === start) last[1] = end;
      else out.push([start, end]);
    }
  }
  return out;
}
