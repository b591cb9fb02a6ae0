import { describe, expect, it } from "vitest";
import { endOfMadridDay, madridDateTimeFormatter, madridDayOf, startOfMadridDay } from "./dates";

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
});
