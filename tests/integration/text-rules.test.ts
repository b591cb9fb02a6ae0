// One text rule everywhere (issue 25 §8): the public fault form and the card
// alias (API and admin form) refuse control characters like every other
// field, single-line fields refuse line breaks, and the mail log escapes the
// values it prints.
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { incidents } from "~/db/schema";
import { getCardById, registerCard } from "~/models/card.server";
import { countReservations } from "~/models/reservation.server";
import * as reservationsApi from "~/routes/api.anonymous-reservations";
import { issueApiToken } from "~/models/api-token.server";
import * as cardsPage from "~/routes/admin.cards";
import * as cardRoute from "~/routes/api.cards.$id";
import * as faultPage from "~/routes/incidencias";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { sendMail } from "~/utils/mail.server";
import { createTestUser, hexPrefix, sessionCookie, unique } from "../setup/fixtures";
import { callApi, callRoute, formPost, jsonRequest } from "../setup/route";

afterEach(() => {
  vi.restoreAllMocks();
});

async function storedFaultReports(location: string) {
  return getDb().select().from(incidents).where(eq(incidents.location, location));
}

describe("the public fault form /incidencias", () => {
  const report = (fields: Record<string, string>) =>
    callRoute(
      faultPage.action,
      new Request("http://localhost/incidencias", {
        method: "POST",
        headers: { Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ nombre: "Vecina", departamento: "2", tipo: "otro", urgencia: "media", descripcion: "Timbre roto", ...fields }),
      }),
    );

  it.each([
    ["a right-to-left override", { descripcion: "Timbre \u202Eroto" }, "El texto contiene caracteres no permitidos"],
    ["a NUL", { nombre: "a\u0000b" }, "El texto contiene caracteres no permitidos"],
    ["a line break in the name", { nombre: "Eve\r\nBcc: x@evil.example" }, "Este campo no admite saltos de línea"],
  ])("refuses %s (400) and stores nothing", async (_name, fields, message) => {
    const location = `Portal ${unique()}`;
    const response = await report({ ubicacion: location, ...fields });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(message);
    expect(await storedFaultReports(location)).toHaveLength(0);
  });

  it("keeps line breaks in the description", async () => {
    const location = `Portal ${unique()}`;
    const response = await report({ ubicacion: location, descripcion: "Línea 1\r\nLínea 2" });
    expect(response.status).toBe(302);
    const [stored] = await storedFaultReports(location);
    expect(stored?.description).toBe("Línea 1\r\nLínea 2");
  });
});

describe("the card alias", () => {
  it.each([
    ["a NUL", "a\u0000b", "El texto contiene caracteres no permitidos"],
    ["a right-to-left override", "Llave \u202Eazul", "El texto contiene caracteres no permitidos"],
    ["a line break", "Llave\nazul", "Este campo no admite saltos de línea"],
  ])("PUT /api/cards/{id} refuses %s (400) and keeps the alias", async (_name, alias, message) => {
    const admin = await createTestUser({ role: "admin" });
    const { token } = await issueApiToken(admin.id);
    const card = await registerCard({ cardNumber: `${hexPrefix()}01`, alias: "Original" });
    const answer = await callApi(cardRoute.action, `/api/cards/${card.id}`, { method: "PUT", token, body: { alias }, params: { id: card.id } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe(message);
    expect((await getCardById(card.id))?.alias).toBe("Original");
  });

  it("the admin's set-alias form refuses a NUL and a right-to-left override, and keeps the alias", async () => {
    const admin = await createTestUser({ role: "admin" });
    const cookie = await sessionCookie(admin.id);
    const card = await registerCard({ cardNumber: `${hexPrefix()}02`, alias: "Original" });
    for (const alias of ["a\u0000b", "Llave \u202Eazul", "Llave\r\nazul"]) {
      const response = await callRoute(cardsPage.action, formPost(`/admin/cards?modal=detail&card=${card.id}`, cookie, { intent: "set-alias", id: card.id, alias }));
      expect(response.status, JSON.stringify(alias)).toBe(400);
    }
    expect((await getCardById(card.id))?.alias).toBe("Original");
  });
});

describe("the mail log", () => {
  it("prints the subject and address escaped, on one line", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "info").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    await sendMail({ to: "eve@example.com", subject: "Nueva consulta: Eve\r\nBcc: x@evil.example", text: "x", html: "<p>x</p>" });
    const line = lines.find((entry) => entry.startsWith("[mail]"));
    expect(line).toContain('"Nueva consulta: Eve\\r\\nBcc: x@evil.example" to "eve@example.com"');
    expect(line).not.toMatch(/[\r\n]/);
  });
});

describe("the guest's phone on a booking", () => {
  it.each(["llámame por la tarde", "600", "+34 600 111 222 333 444 555 66", "600\n111222"])("POST /api/anonymous-reservations refuses %j (400) and stores nothing", async (guestPhone) => {
    const before = await countReservations();
    const body = { guestName: "Leo", guestEmail: "leo@example.com", guestPhone, reservationType: "sala", startDate: addDays(todayInMadrid(), 2), endDate: addDays(todayInMadrid(), 3) };
    const response = await callRoute(reservationsApi.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/El teléfono no es válido|Este campo no admite saltos de línea/);
    expect(await countReservations()).toBe(before);
  });
});
