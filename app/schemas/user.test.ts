import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  createApiCardAssignmentSchema,
  createCardAssignmentSchema,
  PASSWORD_LIKE_NAME,
  UserCreateSchema,
  UserUpdateSchema,
  validationNotice,
} from "./user";
import { isCommonPassword, PASSWORD_TOO_COMMON, PASSWORD_TOO_SHORT } from "./fields";

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  return data;
};

/** The field errors of a refused submission (none for an accepted one). */
function errorsOf(submission: { status?: "success" | "error"; error?: Record<string, string[] | null> | null }) {
  return submission.status === "error" ? submission.error : undefined;
}

const valid = { username: "marta.garcia", email: "Marta@Example.com", password: "una-frase-larga", role: "user" };

describe("user form", () => {
  it("takes a complete form: email lower-cased, status active by default, empty optional fields absent", () => {
    const submission = parseWithZod(form({ ...valid, firstName: "", phone: "" }), { schema: UserCreateSchema });
    expect(submission.status).toBe("success");
    if (submission.status !== "success") return;
    expect(submission.value).toMatchObject({ username: "marta.garcia", email: "marta@example.com", status: "active", role: "user" });
    expect(submission.value.firstName).toBeUndefined();
    expect(submission.value.phone).toBeUndefined();
  });

  it("names each missing required field, and announces them as SPEC's 'Campos requeridos' warning", () => {
    const submission = parseWithZod(form({ firstName: "Marta" }), { schema: UserCreateSchema });
    expect(errorsOf(submission)).toMatchObject({
      username: ["El usuario es requerido"],
      email: ["El email es requerido"],
      password: ["La contraseña es requerida"],
      role: ["El rol es requerido"],
    });
    expect(validationNotice(errorsOf(submission), "Error al crear")).toEqual({
      type: "warning",
      title: "Campos requeridos",
      description: "Por favor completa todos los campos obligatorios",
    });
    const badEmail = parseWithZod(form({ ...valid, email: "no-es-un-email" }), { schema: UserCreateSchema });
    expect(validationNotice(errorsOf(badEmail), "Error al crear")).toEqual({ type: "error", title: "Error al crear", description: "El email no es válido" });
  });

  it("refuses short, common and name-like passwords", () => {
    const errors = (password: string) => errorsOf(parseWithZod(form({ ...valid, password }), { schema: UserCreateSchema }))?.password;
    expect(errors("corta-123")).toEqual([PASSWORD_TOO_SHORT]);
    expect(errors("Password123")).toEqual([PASSWORD_TOO_COMMON]);
    expect(errors("aaaaaaaaaaaa")).toEqual([PASSWORD_TOO_COMMON]);
    expect(errors("MARTA.GARCIA")).toEqual([PASSWORD_LIKE_NAME]);
    expect(isCommonPassword("Contraseña123")).toBe(true);
    expect(isCommonPassword("hórreo-de-la-abuela")).toBe(false);
  });

  it("keeps the password when editing with the field empty, and checks a new one", () => {
    const kept = UserUpdateSchema.parse({ ...valid, password: "" });
    expect(kept.password).toBeUndefined();
    expect(UserUpdateSchema.safeParse({ ...valid, password: "1234567890" }).success).toBe(false);
  });

  it("accepts JSON nulls for optional fields and refuses a bad username, role or phone", () => {
    expect(UserCreateSchema.parse({ ...valid, firstName: null, notes: null }).firstName).toBeUndefined();
    const bad = UserCreateSchema.safeParse({ ...valid, username: "con espacio", role: "root", phone: "llámame" });
    expect(bad.error?.issues.map((issue) => issue.message)).toEqual([
      "El usuario solo admite letras, números, puntos, guiones, guiones bajos y @",
      "El teléfono no es válido",
      "El rol debe ser user (Usuario) o admin (Administrador)",
    ]);
  });
});

describe("card assignment", () => {
  const schema = createCardAssignmentSchema({ today: "2026-05-10" });

  it("needs a card, defaults to Principal and takes an expiry from today on", () => {
    expect(errorsOf(parseWithZod(form({ cardNumber: "" }), { schema }))).toEqual({ cardNumber: ["Selecciona una tarjeta"] });
    const ok = parseWithZod(form({ cardNumber: "04A1", expiresAt: "2026-05-10", alias: "" }), { schema });
    expect(ok.status === "success" && ok.value).toMatchObject({ cardNumber: "04A1", cardType: "primary", expiresAt: "2026-05-10" });
    expect(errorsOf(parseWithZod(form({ cardNumber: "04A1", expiresAt: "2026-05-09" }), { schema }))).toEqual({
      expiresAt: ["La fecha de expiración no puede ser anterior a hoy"],
    });
    expect(errorsOf(parseWithZod(form({ cardNumber: "04A1", expiresAt: "2026-02-30" }), { schema }))).toEqual({
      expiresAt: ["La fecha de expiración no es válida"],
    });
  });

  it("takes the API's older field names and an exact instant", () => {
    const api = createApiCardAssignmentSchema({ today: "2026-05-10" });
    expect(api.parse({ cardId: "04a1", expirationDate: null })).toMatchObject({ cardNumber: "04a1", cardType: "primary" });
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(api.parse({ cardNumber: "04A1", expiresAt: future, cardType: "temporary" })).toMatchObject({ expiresAt: future, cardType: "temporary" });
    expect(api.safeParse({ cardNumber: "04A1", expiresAt: new Date(Date.now() - 1000).toISOString() }).success).toBe(false);
  });
});
