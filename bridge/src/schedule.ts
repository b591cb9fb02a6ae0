/**
 * Weekly timetables of the offline list (`sch`, docs/mqtt.md): ISO weekdays
 * (1 = Monday … 7 = Sunday) and [from, to) as "HH:MM" in the list's time
 * zone, read by the bridge's own clock. The app's copy is app/doors/schedule.ts;
 * tests/integration/mqtt-contract.test.ts checks that both agree.
 */
export interface ScheduleRange {
  days: number[];
  from: string;
  to: string;
}

export interface LocalTime {
  weekday: number;
  minutes: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const formats = new Map<string, Intl.DateTimeFormat>();

/** The weekday and time of an instant in a time zone. */
export function localTime(at: Date, timeZone: string): LocalTime {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(timeZone, format);
  }
  let weekday = 1;
  let minutes = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === 'weekday') weekday = WEEKDAYS[part.value] ?? 1;
    else if (part.type === 'hour') minutes += Number(part.value) * 60;
    else if (part.type === 'minute') minutes += Number(part.value);
  }
  return { weekday, minutes };
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':');
  return Number(hours) * 60 + Number(minutes);
}

/** Inside one of the ranges at this local time? */
export function isWithinSchedule(ranges: readonly ScheduleRange[], local: LocalTime): boolean {
  return ranges.some((range) => range.days.includes(local.weekday) && minutesOf(range.from) <= local.minutes && local.minutes < minutesOf(range.to));
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day ("2026-12-25") of an instant in a time zone. */
export function localDay(at: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  return format.format(at);
}

function timeOfMinutes(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The end ("HH:MM") of the stretch of ranges that holds this local time,
 * ranges that meet or overlap followed to the last; null outside every range.
 */
export function unlockedUntil(ranges: readonly ScheduleRange[], local: LocalTime): string | null {
  const today = ranges.filter((range) => range.days.includes(local.weekday));
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
