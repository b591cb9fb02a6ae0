import { describe, expect, it } from "vitest";
import { logValue } from "./log-value";

describe("logValue", () => {
  it("quotes a value and escapes what could forge or hide a log line", () => {
    expect(logValue("Reserva recibida: ABC")).toBe('"Reserva recibida: ABC"');
    expect(logValue("Eve\r\nBcc: x@evil.example")).toBe('"Eve\\r\\nBcc: x@evil.example"');
    expect(logValue('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(logValue("a\u0000b\u202Ec\u2028d\u001B[31m")).toBe('"a\\u0000b\\u202ec\\u2028d\\u001b[31m"');
    expect(logValue(undefined)).toBe('"undefined"');
  });

  it("leaves printable text of any language alone", () => {
    expect(logValue("Nueva consulta: Begoña Íñiguez 😀")).toBe('"Nueva consulta: Begoña Íñiguez 😀"');
  });
});
