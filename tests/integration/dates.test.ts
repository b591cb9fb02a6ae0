// The building's calendar (Europe/Madrid) around its clock changes: the
// offsets are kept by UTC hour (utils/dates.ts), and each answer must be the
// one Intl gives for that instant, asked in any order and again.
import { describe, expect, it } from "vitest";
import { endOfMadridDay, madridInstant, startOfMadridDay } from "~/utils/dates";

describe("Madrid's days and instants", () => {
  it("begins each day at its own offset, around both clock changes, asked twice in any order", () => {
    const expected: Record<string, string> = {
      "2026-10-26": "2026-10-25T23:00:00.000Z", // winter time (UTC+1)
      "2026-03-29": "2026-03-28T23:00:00.000Z", // the spring change happens at 02:00 that night
      "2026-03-30": "2026-03-29T22:00:00.000Z", // summer time (UTC+2)
      "2026-10-25": "2026-10-24T22:00:00.000Z", // the autumn change happens at 03:00 that night
      "2027-01-01": "2026-12-31T23:00:00.000Z",
    };
    for (let round = 0; round < 2; round++) {
      for (const [day, start] of Object.entries(expected)) expect(startOfMadridDay(day).toISOString(), day).toBe(start);
    }
    expect(endOfMadridDay("2026-03-29").toISOString()).toBe("2026-03-29T21:59:59.999Z"); // a 23-hour day
    expect(endOfMadridDay("2026-10-25").toISOString()).toBe("2026-10-25T22:59:59.999Z"); // a 25-hour day
  });

  it("places a wall-clock time on either side of a change in the same night, and none in the skipped hour", () => {
    expect(madridInstant("2026-03-29", "01:30")?.toISOString()).toBe("2026-03-29T00:30:00.000Z");
    expect(madridInstant("2026-03-29", "02:30")).toBeNull();
    expect(madridInstant("2026-03-29", "03:30")?.toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(madridInstant("2026-10-25", "01:30")?.toISOString()).toBe("2026-10-24T23:30:00.000Z");
    expect(madridInstant("2026-10-25", "04:00")?.toISOString()).toBe("2026-10-25T03:00:00.000Z");
  });
});
