import { describe, expect, it } from "vitest";
import { addDays, endOfMadridDay, formatTimeRange, madridDateTimeFormatter, madridDayOf, madridInstant, monthsBefore, notificationAge, readingAge, renderedNow, startOfMadridDay } from "./dates";

describe("dates", () => {
  it("match Intl's Europe/Madrid time at every hour across both DST changes of 2026", () => {
    const format = madridDateTimeFormatter();
    const intl = new Intl.DateTimeFormat("es-ES", {
      timeZone: "Europe/Madrid",
      day: "2-digit",
      month: "2-digit",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    const starts = [Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 9, 24, 12), Date.UTC(2026, 11, 31, 12)];
    for (const start of starts) {
      for (let minutes = 0; minutes < 36 * 60; minutes += 17) {
        const instant = start + minutes * 60_000 + 7_123;
        expect(format(instant), new Date(instant).toISOString()).toBe(intl.format(instant).replace(", ", " "));
      }
    }
    expect(format(Date.UTC(2026, 2, 29, 0, 59, 59))).toBe("29/03/2026 01:59:59");
    expect(format(Date.UTC(2026, 2, 29, 1, 0, 0))).toBe("29/03/2026 03:00:00");
    expect(format(Date.UTC(2026, 9, 25, 0, 30, 0))).toBe("25/10/2026 02:30:00");
    expect(format(Date.UTC(2026, 9, 25, 1, 30, 0))).toBe("25/10/2026 02:30:00");
  });

  it("turn a day and a wall-clock time in the building into the instant, across summer time", () => {
    expect(madridInstant("2026-01-15", "10:30")?.toISOString()).toBe("2026-01-15T09:30:00.000Z");
    expect(madridInstant("2026-07-15", "10:30")?.toISOString()).toBe("2026-07-15T08:30:00.000Z");
    expect(madridInstant("2026-03-29", "01:59")?.toISOString()).toBe("2026-03-29T00:59:00.000Z");
    expect(madridInstant("2026-03-29", "02:30")).toBeNull();
    expect(madridInstant("2026-03-29", "03:00")?.toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(madridInstant("2026-12-31", "23:45")?.toISOString()).toBe("2026-12-31T22:45:00.000Z");
  });

  it("show a span on one day with one date, and across midnight with both", () => {
    expect(formatTimeRange(Date.UTC(2026, 0, 15, 9), Date.UTC(2026, 0, 15, 11))).toBe("15/01/2026, 10:00–12:00");
    expect(formatTimeRange(Date.UTC(2026, 0, 15, 21), Date.UTC(2026, 0, 16, 1))).toBe("15/01/2026, 22:00 – 16/01/2026, 02:00");
  });

  it("tell a notification's age as the SPEC says", () => {
    const now = Date.UTC(2026, 4, 10, 12);
    expect(notificationAge(now - 59 * 60_000, now)).toBe("Hace unos minutos");
    expect(notificationAge(now - 60 * 60_000, now)).toBe("Hace 1 hora");
    expect(notificationAge(now - 5.5 * 3600_000, now)).toBe("Hace 5 horas");
    expect(notificationAge(now - 23.9 * 3600_000, now)).toBe("Hace 23 horas");
    expect(notificationAge(now - 24 * 3600_000, now)).toBe("09/05/2026");
  });

  it("tell a sensor reading's age in minutes, hours, then days", () => {
    const now = Date.UTC(2026, 4, 10, 12);
    expect(readingAge(now - 30_000, now)).toBe("hace menos de un minuto");
    expect(readingAge(now + 30_000, now)).toBe("hace menos de un minuto");
    expect(readingAge(now - 60_000, now)).toBe("hace 1 minuto");
    expect(readingAge(now - 59 * 60_000, now)).toBe("hace 59 minutos");
    expect(readingAge(now - 60 * 60_000, now)).toBe("hace 1 hora");
    expect(readingAge(now - 47.9 * 3600_000, now)).toBe("hace 47 horas");
    expect(readingAge(now - 3 * 24 * 3600_000, now)).toBe("hace 3 días");
  });

  it("find where a Madrid day begins and ends, in winter, in summer and on both DST days", () => {
    expect(startOfMadridDay("2026-01-15").toISOString()).toBe("2026-01-14T23:00:00.000Z");
    expect(startOfMadridDay("2026-07-15").toISOString()).toBe("2026-07-14T22:00:00.000Z");
    expect(startOfMadridDay("2026-03-29").toISOString()).toBe("2026-03-28T23:00:00.000Z");
    expect(endOfMadridDay("2026-03-29").toISOString()).toBe("2026-03-29T21:59:59.999Z");
    expect(startOfMadridDay("2026-10-25").toISOString()).toBe("2026-10-24T22:00:00.000Z");
    expect(endOfMadridDay("2026-10-25").toISOString()).toBe("2026-10-25T22:59:59.999Z");
    expect(madridDayOf(endOfMadridDay("2026-12-31"))).toBe("2026-12-31");
    expect(madridDayOf(startOfMadridDay("2026-12-31"))).toBe("2026-12-31");
  });

  it("go back whole calendar months, the 31st landing on a shorter month's last day", () => {
    expect(monthsBefore(new Date("2026-11-23T10:00:00Z"), 12).toISOString()).toBe("2025-11-23T10:00:00.000Z");
    expect(monthsBefore(new Date("2026-03-31T08:30:00Z"), 1).toISOString()).toBe("2026-02-28T08:30:00.000Z");
    expect(monthsBefore(new Date("2028-03-31T00:00:00Z"), 1).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(monthsBefore(new Date("2026-01-15T00:00:00Z"), 3).toISOString()).toBe("2025-10-15T00:00:00.000Z");
  });
});

describe("renderedNow", () => {
  it("is the start of the minute, the same all minute long", () => {
    expect(renderedNow(new Date("2026-11-26T08:15:00.000Z"))).toBe("2026-11-26T08:15:00.000Z");
    expect(renderedNow(new Date("2026-11-26T08:15:59.999Z"))).toBe("2026-11-26T08:15:00.000Z");
    expect(renderedNow(new Date("2026-11-26T08:16:00.001Z"))).toBe("2026-11-26T08:16:00.000Z");
  });
});

describe("addDays", () => {
  it("answers what adding days to the day's noon in UTC answers, for valid and odd days alike", () => {
    const reference = (isoDay: string, days: number) => {
      const date = new Date(`${isoDay}T12:00:00Z`);
      date.setUTCDate(date.getUTCDate() + days);
      return date.toISOString().slice(0, 10);
    };
    const pad = (n: number, width: number) => String(n).padStart(width, "0");
    const samples = ["2026-12-31", "2024-02-28", "2024-02-29", "2026-02-29", "2026-03-29", "2026-10-25", "0100-01-01", "9999-12-30"];
    for (let i = 0; i < 500; i++) samples.push(`${pad(1900 + Math.floor(Math.random() * 300), 4)}-${pad(1 + Math.floor(Math.random() * 12), 2)}-${pad(1 + Math.floor(Math.random() * 31), 2)}`);
    for (const day of samples) for (const days of [-400, -14, -1, 0, 1, 14, 365]) expect(addDays(day, days)).toBe(reference(day, days));
    for (const odd of ["2026-13-01", "2026-00-10", "2026-01-32", "0099-05-05", "26-1-1"]) {
      let expected: string | Error;
      try {
        expected = reference(odd, 3);
      } catch (error) {
        expected = error as Error;
      }
      if (expected instanceof Error) expect(() => addDays(odd, 3)).toThrow(RangeError);
      else expect(addDays(odd, 3)).toBe(expected);
    }
  });
});
