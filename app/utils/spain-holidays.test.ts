import { describe, expect, it } from "vitest";
import { easterSunday, spainAsturiasHolidays } from "./spain-holidays";

describe("Spain's and Asturias's holidays", () => {
  it("computes Easter for known years", () => {
    expect(easterSunday(2024)).toEqual([3, 31]);
    expect(easterSunday(2025)).toEqual([4, 20]);
    expect(easterSunday(2026)).toEqual([4, 5]);
    expect(easterSunday(2027)).toEqual([3, 28]);
    expect(easterSunday(2038)).toEqual([4, 25]);
  });

  it("lists the fixed days and the Easter-dependent ones of a year", () => {
    const days = spainAsturiasHolidays(2026);
    expect(days).toHaveLength(12);
    expect(days).toContainEqual({ day: "2026-04-02", name: "Jueves Santo" });
    expect(days).toContainEqual({ day: "2026-04-03", name: "Viernes Santo" });
    expect(days).toContainEqual({ day: "2026-09-08", name: "Día de Asturias" });
    expect(days).toContainEqual({ day: "2026-12-25", name: "Natividad del Señor" });
    expect(spainAsturiasHolidays(2027)).toContainEqual({ day: "2027-03-26", name: "Viernes Santo" });
  });
});
