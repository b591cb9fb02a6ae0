// Dates are stored in UTC and shown in Spanish, in the building's time zone.
export const TIME_ZONE = "Europe/Madrid";

const dateFormat = new Intl.DateTimeFormat("es-ES", { timeZone: TIME_ZONE, day: "2-digit", month: "2-digit", year: "numeric" });
const dateTimeFormat = new Intl.DateTimeFormat("es-ES", {
  timeZone: TIME_ZONE,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

const dateTimeSecondsFormat = new Intl.DateTimeFormat("es-ES", {
  timeZone: TIME_ZONE,
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const timeSecondsFormat = new Intl.DateTimeFormat("es-ES", { timeZone: TIME_ZONE, hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** "21/11/2026, 14:05:09": for the access log, where seconds matter. */
export function formatDateTimeSeconds(value: Date | string | number) {
  return dateTimeSecondsFormat.format(new Date(value));
}

export function formatTimeSeconds(value: Date | string | number) {
  return timeSecondsFormat.format(new Date(value));
}

export function formatDate(value: Date | string | number) {
  return dateFormat.format(new Date(value));
}

export function formatDateTime(value: Date | string | number) {
  return dateTimeFormat.format(new Date(value));
}

/** A calendar day chosen by a guest ("2026-12-24") shown as "24/12/2026". */
export function formatIsoDay(day: string) {
  const [year, month, date] = day.split("-");
  return `${date}/${month}/${year}`;
}

const isoDayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE });

/** Today's date in the building ("YYYY-MM-DD"), for date input minimums. */
export function todayInMadrid(now = new Date()) {
  return isoDayFormat.format(now);
}

/** The building's calendar day ("YYYY-MM-DD") of an instant, e.g. to fill a date input. */
export function madridDayOf(value: Date | string | number) {
  return isoDayFormat.format(new Date(value));
}

const offsetFormat = new Intl.DateTimeFormat("en-US", {
  timeZone: TIME_ZONE,
  hourCycle: "h23",
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
});

const HOUR_MS = 3600_000;

/**
 * Madrid's offset by UTC hour: its clocks change at 01:00 UTC, on the hour, so
 * one answer holds for the whole hour. A calendar asks it of every day it
 * shows, and each answer is an Intl call of several microseconds.
 */
const offsetByUtcHour = new Map<number, number>();

/** How far Madrid's wall clock is ahead of UTC at this instant, in ms. */
function madridOffsetMs(epochMs: number) {
  const hour = Math.floor(epochMs / HOUR_MS);
  let offset = offsetByUtcHour.get(hour);
  if (offset === undefined) {
    const hourStart = hour * HOUR_MS;
    const part = Object.fromEntries(offsetFormat.formatToParts(hourStart).map(({ type, value }) => [type, Number(value)]));
    offset = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!) - hourStart;
    if (offsetByUtcHour.size >= 50_000) offsetByUtcHour.clear();
    offsetByUtcHour.set(hour, offset);
  }
  return offset;
}

/** The instant a day ("YYYY-MM-DD") begins in the building (Madrid never changes its clocks at midnight). */
export function startOfMadridDay(isoDay: string) {
  const utcMidnight = Date.parse(`${isoDay}T00:00:00Z`);
  return new Date(utcMidnight - madridOffsetMs(utcMidnight - madridOffsetMs(utcMidnight)));
}

/** The last millisecond of a day in the building: a card that expires "on" that day works all of it. */
export function endOfMadridDay(isoDay: string) {
  return new Date(startOfMadridDay(addDays(isoDay, 1)).getTime() - 1);
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function addDays(isoDay: string, days: number) {
  const parts = ISO_DAY.exec(isoDay);
  const [year, month, date] = parts ? [Number(parts[1]), Number(parts[2]), Number(parts[3])] : [0, 0, 0];
  if (!parts || year < 100 || month < 1 || month > 12 || date < 1 || date > 31) {
    const date = new Date(`${isoDay}T12:00:00Z`);
    date.setUTCDate(date.getUTCDate() + days);
    return date.toISOString().slice(0, 10);
  }
  // Day arithmetic on the UTC day number: no Date parsed or written (calendars add days to every column).
  return new Date(Date.UTC(year, month - 1, date + days)).toISOString().slice(0, 10);
}

/** The same instant `months` calendar months earlier (UTC); the 31st of a shorter month becomes its last day. */
export function monthsBefore(date: Date, months: number) {
  const result = new Date(date);
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

const two = (value: number) => String(value).padStart(2, "0");

/**
 * "21/11/2026 14:05:09" in Europe/Madrid, for many instants in a row (the CSV
 * export). Intl is slow per call, so it formats the day and hour once per
 * hour and appends minutes and seconds: Madrid's offset is a whole number of
 * hours, so its hours start when UTC hours do.
 */
export function madridDateTimeFormatter() {
  const hourFormat = new Intl.DateTimeFormat("es-ES", {
    timeZone: TIME_ZONE,
    day: "2-digit",
    month: "2-digit",
    year: "numeric",
    hour: "2-digit",
    hourCycle: "h23",
  });
  const prefixByHour = new Map<number, string>();
  return (epochMs: number) => {
    const hourStart = Math.floor(epochMs / HOUR_MS) * HOUR_MS;
    let prefix = prefixByHour.get(hourStart);
    if (prefix === undefined) {
      const part = Object.fromEntries(hourFormat.formatToParts(hourStart).map(({ type, value }) => [type, value]));
      prefix = `${part.day}/${part.month}/${part.year} ${part.hour}:`;
      prefixByHour.set(hourStart, prefix);
    }
    const sinceHour = epochMs - hourStart;
    return `${prefix}${two(Math.floor(sinceHour / 60_000))}:${two(Math.floor(sinceHour / 1000) % 60)}`;
  };
}

const hourFormat = new Intl.DateTimeFormat("es-ES", { timeZone: TIME_ZONE, hour: "2-digit" });

/** The hour in the building, "14" (the activity chart's axis). */
export function formatHour(value: Date | string | number) {
  return hourFormat.format(new Date(value));
}

const timeFormat = new Intl.DateTimeFormat("es-ES", { timeZone: TIME_ZONE, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });

/** "14:05" in the building. */
export function formatTime(value: Date | string | number) {
  return timeFormat.format(new Date(value));
}

/**
 * The instant a clock in the building shows `day` ("2026-12-24") at `time`
 * ("10:30"); null for a time the clock skips when summer time starts.
 */
export function madridInstant(day: string, time: string): Date | null {
  const [year, month, date] = day.split("-").map(Number);
  const [hour, minute] = time.split(":").map(Number);
  const wall = Date.UTC(year!, month! - 1, date!, hour!, minute!);
  let instant = wall - madridOffsetMs(wall);
  instant = wall - madridOffsetMs(instant);
  return instant + madridOffsetMs(instant) === wall ? new Date(instant) : null;
}

/** A span of time in the building: "24/12/2026, 10:00–12:00", or both dates when it crosses midnight. */
export function formatTimeRange(start: Date | string | number, end: Date | string | number) {
  const sameDay = formatDate(start) === formatDate(end);
  return sameDay ? `${formatDate(start)}, ${formatTime(start)}–${formatTime(end)}` : `${formatDateTime(start)} – ${formatDateTime(end)}`;
}

/** SPEC §9 notification age: "Hace unos minutos" under an hour, "Hace N horas" under a day, else the date. */
export function notificationAge(createdAt: Date | string | number, now: Date | string | number = new Date()) {
  const elapsed = new Date(now).getTime() - new Date(createdAt).getTime();
  if (elapsed < HOUR_MS) return "Hace unos minutos";
  if (elapsed < 24 * HOUR_MS) {
    const hours = Math.floor(elapsed / HOUR_MS);
    return hours === 1 ? "Hace 1 hora" : `Hace ${hours} horas`;
  }
  return formatDate(createdAt);
}

/** How long ago a measurement was taken: "hace menos de un minuto", "hace 5 minutos", "hace 2 horas", "hace 3 días". */
export function readingAge(recordedAt: Date | string | number, now: Date | string | number = new Date()) {
  const minutes = Math.floor(Math.max(0, new Date(now).getTime() - new Date(recordedAt).getTime()) / 60_000);
  const ago = (count: number, one: string, many: string) => `hace ${count} ${count === 1 ? one : many}`;
  if (minutes < 1) return "hace menos de un minuto";
  if (minutes < 60) return ago(minutes, "minuto", "minutos");
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return ago(hours, "hora", "horas");
  return ago(Math.floor(hours / 24), "día", "días");
}

/**
 * The instant a page's badges and ages are rendered from ("Expira en 3 días",
 * "Hace 1 hora"), to the minute (ISO): the same all minute long, so loader
 * data holding it stays equal and the page's render can be reused (ADR 0008).
 */
export function renderedNow(now: Date = new Date()) {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
}

const weekdayFormat = new Intl.DateTimeFormat("es-ES", { timeZone: "UTC", weekday: "short" });

/** A calendar day's short weekday and date, "lun 14/12" (the occupancy grid's columns). */
export function formatIsoDayShort(day: string) {
  const [, month, date] = day.split("-");
  return `${weekdayFormat.format(new Date(`${day}T12:00:00Z`)).replace(".", "")} ${date}/${month}`;
}

/** Whole days from one calendar day to another ("2026-12-24" to "2026-12-27": 3). */
export function daysBetween(from: string, to: string) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
