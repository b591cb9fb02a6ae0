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

/** Today's date in the building ("YYYY-MM-DD"), for date input minimums. */
export function todayInMadrid(now = new Date()) {
  return new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE }).format(now);
}

export function addDays(isoDay: string, days: number) {
  const date = new Date(`${isoDay}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
