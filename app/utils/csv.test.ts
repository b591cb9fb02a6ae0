// CSV cells: RFC 4180 quoting, formula-injection protection.
import { describe, expect, it } from "vitest";
import { csvCell, csvLine } from "./csv";

describe("cells", () => {
  it("quotes every cell and doubles quotes (RFC 4180)", () => {
    expect(csvCell("Portal")).toBe('"Portal"');
    expect(csvCell('Sala "A", planta 1')).toBe('"Sala ""A"", planta 1"');
    expect(csvCell("dos\r\nlíneas")).toBe('"dos\r\nlíneas"');
    expect(csvCell("")).toBe('""');
    expect(csvLine(["a", "b"])).toBe('"a","b"\r\n');
  });

  it.each([["=SUM(A1:A9)"], ["+34 600"], ["-1"], ["@cmd"], ["\tx"], ["\rx"]])("neutralises %j as a formula", (value) => {
    expect(csvCell(value)).toBe(`"'${value}"`);
  });

  it("leaves formula characters alone when they are not first", () => {
    expect(csvCell("a=b")).toBe('"a=b"');
    expect(csvCell("Puerta-1")).toBe('"Puerta-1"');
  });

});
