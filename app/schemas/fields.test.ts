import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { CardAliasSchema, CardUpdateSchema } from "./card";
import { EnquirySchema } from "./enquiry";
import {
  CONTROL_CHARACTERS_MESSAGE,
  LINE_BREAK_MESSAGE,
  multilineText,
  optionalMultilineText,
  optionalPhone,
  optionalText,
  phone,
  requiredMultilineText,
  requiredText,
  text,
} from "./fields";
import { PublicIncidentSchema } from "./public-incident";
import { createReservationSchema } from "./reservation";

/** The messages a schema answers for `value` (none when it passes). */
function messages(schema: z.ZodMiniType, value: unknown) {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

const CONTROLS = ["a\u0000b", "a\u202Eb", "a\u200Bb", "a\u0007b", "a\u0085b", "a\uFEFFb", "a\ud800b", "a\udc00", "\ud800"];
const BREAKS = ["Eve\r\nBcc: x@evil.example", "a\nb", "a\rb", "a\u2028b", "a\u2029b"];

describe("the one text rule", () => {
  it.each([
    ["text", text(50)],
    ["requiredText", requiredText("Requerido", 50)],
    ["optionalText", optionalText(50)],
    ["multilineText", multilineText(50)],
    ["requiredMultilineText", requiredMultilineText("Requerido", 50)],
    ["optionalMultilineText", optionalMultilineText(50)],
  ])("%s refuses control and format characters", (_name, schema) => {
    for (const value of CONTROLS) expect(messages(schema, value), JSON.stringify(value)).toContain(CONTROL_CHARACTERS_MESSAGE);
    // A whole surrogate pair (an emoji) is text like any other.
    expect(messages(schema, "Casa 🏠")).toEqual([]);
  });

  it.each([
    ["text", text(50)],
    ["requiredText", requiredText("Requerido", 50)],
    ["optionalText", optionalText(50)],
  ])("single-line %s refuses line breaks, also inside trimmed text", (_name, schema) => {
    for (const value of BREAKS) expect(messages(schema, value), JSON.stringify(value)).toContain(LINE_BREAK_MESSAGE);
    // Line breaks at the ends are trimmed away like any other whitespace.
    expect(messages(schema, "\r\nHola\n")).toEqual([]);
  });

  it.each([
    ["multilineText", multilineText(50)],
    ["requiredMultilineText", requiredMultilineText("Requerido", 50)],
    ["optionalMultilineText", optionalMultilineText(50)],
  ])("multi-line %s keeps line breaks and tabs", (_name, schema) => {
    expect(schema.parse("Primera línea\r\nSegunda\tcon tabulador")).toBe("Primera línea\r\nSegunda\tcon tabulador");
  });

  it("holds for the public fault form: control characters and a line break in the name are refused", () => {
    const report = { nombre: "Eve", departamento: "3", tipo: "otro", ubicacion: "Portal", descripcion: "Línea 1\nLínea 2", urgencia: "media" };
    expect(PublicIncidentSchema.safeParse(report).success).toBe(true);
    expect(messages(PublicIncidentSchema, { ...report, descripcion: "a\u0000b" })).toEqual([CONTROL_CHARACTERS_MESSAGE]);
    expect(messages(PublicIncidentSchema, { ...report, ubicacion: "a\u202Eb" })).toEqual([CONTROL_CHARACTERS_MESSAGE]);
    expect(messages(PublicIncidentSchema, { ...report, nombre: "Eve\r\nBcc: x@evil.example" })).toEqual([LINE_BREAK_MESSAGE]);
  });

  it("holds for the card alias (form and API)", () => {
    expect(messages(CardAliasSchema, { alias: "a\u0000b" })).toEqual([CONTROL_CHARACTERS_MESSAGE]);
    expect(messages(CardUpdateSchema, { alias: "a\u202Eb" })).toEqual([CONTROL_CHARACTERS_MESSAGE]);
    expect(messages(CardUpdateSchema, { alias: "Llavero\nazul" })).toEqual([LINE_BREAK_MESSAGE]);
    expect(CardUpdateSchema.parse({ alias: "  Llavero azul " })).toEqual({ alias: "Llavero azul" });
  });

  it("lets an enquiry's message span lines, not its name", () => {
    const enquiry = { nombre: "Eve", email: "eve@example.com", telefono: "600 111 222", mensaje: "Hola,\n¿hay plaza?", captchaId: "x", captchaAnswer: "3" };
    expect(EnquirySchema.safeParse(enquiry).success).toBe(true);
    expect(messages(EnquirySchema, { ...enquiry, nombre: "Eve\r\nBcc: x@evil.example" })).toEqual([LINE_BREAK_MESSAGE]);
  });
});

describe("phone numbers", () => {
  const required = phone({ required: "El teléfono es requerido", invalid: "El teléfono no es válido" });

  it.each(["600111222", "+34 600 11 12 22", "(985) 40-12-34", "985.40.12.34", "123456", "+12345678901234567890"])("accepts %j", (value) => {
    expect(messages(required, value)).toEqual([]);
  });

  it.each(["abc", "600", "12345", "+123456789012345678901", "600 111 222 ext. 5", "34+600111222", "600\n111222", "llámame"])("refuses %j", (value) => {
    expect(messages(required, value).length).toBeGreaterThan(0);
  });

  it("optional: empty is not given", () => {
    expect(optionalPhone("El teléfono no es válido").parse("")).toBeUndefined();
    expect(messages(optionalPhone("El teléfono no es válido"), "no sé")).toEqual(["El teléfono no es válido"]);
  });

  it("is the booking form's rule for guestPhone", () => {
    const schema = createReservationSchema({ today: "2030-01-01" });
    const booking = { guestName: "Ana", guestEmail: "ana@example.com", guestPhone: "+34 600 111 222", reservationType: "sala", startDate: "2030-01-02", endDate: "2030-01-03" };
    expect(schema.safeParse(booking).success).toBe(true);
    expect(messages(schema, { ...booking, guestPhone: "cualquier cosa" })).toEqual(["El teléfono no es válido"]);
    expect(messages(schema, { ...booking, guestPhone: "600" })).toEqual(["El teléfono no es válido"]);
  });
});
