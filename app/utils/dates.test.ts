import { describe, expect, it } from "vitest";
import { madridDateTimeFormatter, monthsBefore } from "./dates";

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

  it("go back whole calendar months, the 31st landing on a shorter month's last day", () => {
    expect(monthsBefore(new Date("2026-11-23T10:00:00Z"), 12).toISOString()).toBe("2025-11-23T10:00:00.000Z");
    expect(monthsBefore(new Date("2026-03-31T08:30:00Z"), 1).toISOString()).toBe("2026-02-28T08:30:00.000Z");
    expect(monthsBefore(new Date("2028-03-31T00:00:00Z"), 1).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(monthsBefore(new Date("2026-01-15T00:00:00Z"), 3).toISOString()).toBe("2025-10-15T00:00:00.000Z");
  });
});
