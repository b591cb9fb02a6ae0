// Spain's national holidays and those of Asturias for a year, the seed of the
// building's calendar (app/services/holidays.server.ts). Fixed days plus the
// Easter-dependent ones (Jueves Santo, Asturias; Viernes Santo, national).
// Days moved by each year's decree (a holiday falling on a Sunday carried to
// Monday) are not predictable; the admin adds them in /admin/grupos.

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm): [month 1-12, day]. */
export function easterSunday(year: number): [number, number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return [month, day];
}

function isoDay(year: number, month: number, day: number) {
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

const FIXED: [number, number, string][] = [
  [1, 1, "Año Nuevo"],
  [1, 6, "Epifanía del Señor"],
  [5, 1, "Fiesta del Trabajo"],
  [8, 15, "Asunción de la Virgen"],
  [9, 8, "Día de Asturias"],
  [10, 12, "Fiesta Nacional de España"],
  [11, 1, "Todos los Santos"],
  [12, 6, "Día de la Constitución"],
  [12, 8, "Inmaculada Concepción"],
  [12, 25, "Natividad del Señor"],
];

/** The year's holidays in Spain and Asturias, by day. */
export function spainAsturiasHolidays(year: number): { day: string; name: string }[] {
  const [month, day] = easterSunday(year);
  const easter = Date.UTC(year, month - 1, day);
  const daysFromEaster = (offset: number) => new Date(easter + offset * 86_400_000).toISOString().slice(0, 10);
  return [
    ...FIXED.map(([m, d, name]) => ({ day: isoDay(year, m, d), name })),
    { day: daysFromEaster(-3), name: "Jueves Santo" },
    { day: daysFromEaster(-2), name: "Viernes Santo" },
  ].sort((x, y) => (x.day < y.day ? -1 : 1));
}
