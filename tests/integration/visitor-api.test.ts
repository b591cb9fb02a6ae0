import { describe, expect, it } from "vitest";
import * as cancelRoute from "~/routes/api.anonymous-reservations.code.$code.cancel";
import * as lookupRoute from "~/routes/api.anonymous-reservations.code.$code";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as captchaRoute from "~/routes/api.consultations.captcha";
import { CAPTCHA_TTL_MS, createCaptcha } from "~/services/captcha-challenge.server";
import { RATE_LIMITS } from "~/services/rate-limits.server";
import * as submitRoute from "~/routes/api.consultations.submit";
import { countReservations, getReservationByCode } from "~/models/reservation.server";
import { countConsultationsByEmail } from "~/models/consultation.server";
import { getDb } from "~/utils/db.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { RESERVATION_CODE_ALPHABET } from "~/schemas/reservation";
import { callRoute, jsonRequest } from "../setup/route";

const today = todayInMadrid();
// Each booking starts a day after the previous one (three nights each), so no
// night needs more than three of the house's four double rooms.
let bookings = 0;
const booking = (overrides: Record<string, unknown> = {}) => ({
  guestName: "Lucía Fernández",
  guestEmail: "Lucia@Example.com",
  guestPhone: "+34 600 111 222",
  reservationType: "habitacion",
  roomType: "doble",
  startDate: addDays(today, 2 + bookings),
  endDate: addDays(today, 5 + bookings++),
  contactPreference: "phone",
  specialRequests: "Llegaré tarde",
  ...overrides,
});

async function book(body: unknown, ip?: string) {
  return callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body, ip }));
}

/** Solves the server's arithmetic question like a person would. */
function solve(question: string) {
  const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(question)!;
  return String(op === "+" ? Number(a) + Number(b) : Number(a) - Number(b));
}

async function captcha() {
  const response = await callRoute(captchaRoute.loader, jsonRequest("/api/consultations/captcha"));
  const body = await response.json();
  return { captchaId: body.data.captchaId as string, answer: solve(body.data.question) };
}

async function submit(body: Record<string, unknown>, ip?: string) {
  return callRoute(submitRoute.action, jsonRequest("/api/consultations/submit", { method: "POST", body, ip }));
}

describe("POST /api/anonymous-reservations", () => {
  it("stores the reservation and answers 201 with its code", async () => {
    const response = await book(booking());
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.success).toBe(true);
    expect(body.data.reservationCode).toMatch(new RegExp(`^[${RESERVATION_CODE_ALPHABET}]{8}$`));
    const stored = await getReservationByCode(body.data.reservationCode);
    expect(stored).toMatchObject({ guestEmail: "lucia@example.com", status: "pending", roomType: "doble", contactPreference: "phone" });
  });

  it("stores no room type for a meeting room", async () => {
    const body = await (await book(booking({ reservationType: "sala", roomType: "suite" }))).json();
    expect((await getReservationByCode(body.data.reservationCode))?.roomType).toBeNull();
  });

  it.each([
    [{ guestName: "" }, "El nombre es requerido"],
    [{ guestEmail: "" }, "El email es requerido"],
    [{ guestEmail: "no-es-email" }, "El email no es válido"],
    [{ guestPhone: "" }, "El teléfono es requerido"],
    [{ startDate: "" }, "La fecha de entrada es requerida"],
    [{ endDate: undefined }, "La fecha de salida es requerida"],
    [{ endDate: addDays(today, 2) }, "La fecha de salida debe ser posterior a la fecha de entrada"],
    [{ roomType: undefined }, "El tipo de habitación es requerido"],
    [{ startDate: addDays(today, -1) }, "La fecha de entrada no puede ser anterior a hoy"],
    [{ guestName: "x".repeat(101) }, "Máximo 100 caracteres"],
  ])("refuses %o with 400 and the Spanish message, storing nothing", async (overrides, message) => {
    const before = await countReservations();
    const response = await book(booking(overrides));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.success).toBe(false);
    expect(body.error.message).toContain(message);
    expect(await countReservations()).toBe(before);
  });

  it("answers 400 to a body that is not JSON", async () => {
    const request = new Request("http://localhost/api/anonymous-reservations", { method: "POST", body: "{nope" });
    expect((await callRoute(reservationsRoute.action, request)).status).toBe(400);
  });

  it("gives 50 concurrent bookings 50 distinct codes and 50 rows", async () => {
    const before = await countReservations();
    const responses = await Promise.all(Array.from({ length: 50 }, () => book(booking())));
    const codes = await Promise.all(responses.map(async (r) => (await r.json()).data.reservationCode as string));
    expect(responses.every((r) => r.status === 201)).toBe(true);
    expect(new Set(codes).size).toBe(50);
    expect(await countReservations()).toBe(before + 50);
  });

  it("limits bookings per client address with 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await book(booking(), "203.0.113.7")).status);
    expect(statuses.slice(0, 10).every((s) => s === 201)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe("reservation lookup and cancel", () => {
  async function newReservation() {
    return (await (await book(booking())).json()).data.reservationCode as string;
  }

  it("needs the guest's email, matched case-insensitively", async () => {
    const code = await newReservation();
    const ok = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${code.toLowerCase()}?email=LUCIA@example.com`), { code: code.toLowerCase() });
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.data).toMatchObject({ reservationCode: code, guestName: "Lucía Fernández", specialRequests: "Llegaré tarde" });
    expect(body.data).not.toHaveProperty("ipAddress");

    const noEmail = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${code}`), { code });
    expect(noEmail.status).toBe(400);
    const wrong = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${code}?email=otro@example.com`), { code });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.message).toBe("El email no coincide con la reserva");
    const missing = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/ZZZZZZZZ?email=a@b.co`), { code: "ZZZZZZZZ" });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toBe("Reserva no encontrada");
  });

  it("rate-limits lookups per client address so codes cannot be enumerated", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const code = `AAAA${String(i).padStart(4, "2")}`;
      statuses.push((await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${code}?email=a@b.co`, { ip: "198.51.100.9" }), { code })).status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 404)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it("cancels a pending reservation once, then answers 409", async () => {
    const code = await newReservation();
    const cancel = (guestEmail: string) =>
      callRoute(cancelRoute.action, jsonRequest(`/api/anonymous-reservations/code/${code}/cancel`, { method: "PUT", body: { guestEmail } }), { code });
    expect((await cancel("otra@example.com")).status).toBe(403);
    expect((await getReservationByCode(code))?.status).toBe("pending");
    const first = await cancel("lucia@example.com");
    expect(first.status).toBe(200);
    expect((await first.json()).data.status).toBe("cancelled");
    const second = await cancel("lucia@example.com");
    expect(second.status).toBe(409);
  });

  it("refuses to cancel by GET or POST", async () => {
    const code = await newReservation();
    const response = await callRoute(cancelRoute.action, jsonRequest(`/api/anonymous-reservations/code/${code}/cancel`, { method: "POST", body: { guestEmail: "lucia@example.com" } }), { code });
    expect(response.status).toBe(405);
    expect((await getReservationByCode(code))?.status).toBe("pending");
  });
});

describe("consultations", () => {
  const enquiry = { nombre: "Pablo", email: "pablo@example.com", telefono: "600000000", mensaje: "¿Tenéis plazas en enero?" };

  it("accepts a correct answer once, and never the question sent back", async () => {
    const { captchaId, answer } = await captcha();
    const response = await submit({ ...enquiry, captchaId, captchaAnswer: answer, captchaQuestion: "¿Cuánto es 1 + 1?" });
    expect(response.status).toBe(200);
    expect((await response.json()).success).toBe(true);
    const reuse = await submit({ ...enquiry, mensaje: "Otra pregunta", captchaId, captchaAnswer: answer });
    expect(reuse.status).toBe(400);
  });

  it("refuses a wrong answer and burns the challenge", async () => {
    const { captchaId, answer } = await captcha();
    const wrong = await submit({ ...enquiry, email: "w@example.com", captchaId, captchaAnswer: String(Number(answer) + 1) });
    expect(wrong.status).toBe(400);
    const retry = await submit({ ...enquiry, email: "w@example.com", captchaId, captchaAnswer: answer });
    expect(retry.status).toBe(400);
    expect(await countConsultationsByEmail("w@example.com")).toBe(0);
  });

  it("accepts a challenge answered twice at once only once", async () => {
    const { captchaId, answer } = await captcha();
    const [a, b] = await Promise.all([
      submit({ ...enquiry, email: "race@example.com", mensaje: "uno", captchaId, captchaAnswer: answer }),
      submit({ ...enquiry, email: "race@example.com", mensaje: "dos", captchaId, captchaAnswer: answer }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(await countConsultationsByEmail("race@example.com")).toBe(1);
  });

  it("refuses an expired challenge, and a forged one", async () => {
    const old = createCaptcha(Date.now() - CAPTCHA_TTL_MS - 1000);
    expect((await submit({ ...enquiry, email: "late@example.com", captchaId: old.captchaId, captchaAnswer: solve(old.question) })).status).toBe(400);
    const { captchaId, answer } = await captcha();
    const [nonce, , mac] = captchaId.split(".");
    const extended = `${nonce}.${(Date.now() + 3_600_000).toString(36)}.${mac}`;
    expect((await submit({ ...enquiry, email: "late@example.com", captchaId: extended, captchaAnswer: answer })).status).toBe(400);
    expect(await countConsultationsByEmail("late@example.com")).toBe(0);
  });

  it("answers 409 to the same message from the same email within 24 hours", async () => {
    const first = await captcha();
    expect((await submit({ ...enquiry, email: "dup@example.com", captchaId: first.captchaId, captchaAnswer: first.answer })).status).toBe(200);
    const second = await captcha();
    const response = await submit({ ...enquiry, email: "DUP@example.com", mensaje: "  ¿tenéis plazas en   enero? ", captchaId: second.captchaId, captchaAnswer: second.answer });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toBe("Una consulta similar ya fue enviada recientemente.");
    expect(await countConsultationsByEmail("dup@example.com")).toBe(1);
  });

  it.each([
    [{ nombre: "" }, "Por favor completa todos los campos"],
    [{ email: "mal" }, "Por favor ingresa un email válido"],
    [{ captchaAnswer: "" }, "Por favor completa todos los campos"],
  ])("validates %o", async (overrides, message) => {
    const { captchaId, answer } = await captcha();
    const response = await submit({ ...enquiry, captchaId, captchaAnswer: answer, ...overrides });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain(message);
  });

  it("pretends to accept a filled honeypot and stores nothing", async () => {
    const { captchaId, answer } = await captcha();
    const response = await submit({ ...enquiry, email: "bot@example.com", website: "http://spam", captchaId, captchaAnswer: answer });
    expect(response.status).toBe(200);
    expect(await countConsultationsByEmail("bot@example.com")).toBe(0);
  });

  it("limits accepted submissions per client address with 429; wrong answers do not count", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { captchaId } = await captcha();
      statuses.push((await submit({ ...enquiry, captchaId, captchaAnswer: "999" }, "203.0.113.50")).status);
    }
    for (let i = 0; i < 11; i++) {
      const { captchaId, answer } = await captcha();
      statuses.push((await submit({ ...enquiry, mensaje: `Pregunta ${i}`, captchaId, captchaAnswer: answer }, "203.0.113.50")).status);
    }
    expect(statuses).toEqual([...Array(5).fill(400), ...Array(10).fill(200), 429]);
  });

  it("each public form has its own limit: a full enquiry limit leaves visit requests alone", async () => {
    for (let i = 0; i < RATE_LIMITS.enquiryForm.limit; i++) {
      const { captchaId, answer } = await captcha();
      expect((await submit({ ...enquiry, mensaje: `Otra ${i}`, captchaId, captchaAnswer: answer }, "203.0.113.60")).status).toBe(200);
    }
    const visit = { nombre: "Eva", email: "eva@example.com", telefono: "611", fecha: addDays(today, 3), hora: "10:00" };
    const { captchaId, answer } = await captcha();
    expect((await submit({ ...visit, captchaId, captchaAnswer: answer }, "203.0.113.60")).status).toBe(200);
  });

  it("stores a visit request as a consultation with the composed message and the day and hour asked for", async () => {
    const visit = { nombre: "Irene", email: "irene@example.com", telefono: "611", fecha: addDays(today, 3), hora: "11:00", comentarios: "Con mi pareja" };
    const first = await captcha();
    expect((await submit({ ...visit, captchaId: first.captchaId, captchaAnswer: first.answer })).status).toBe(200);
    const [row] = (await getDb().$client.execute({ sql: "SELECT kind, mensaje, visit_date, visit_time FROM consultations WHERE email = ?", args: ["irene@example.com"] })).rows;
    expect(row?.kind).toBe("visita");
    expect([row?.visit_date, row?.visit_time]).toEqual([visit.fecha, "11:00"]);
    expect(String(row?.mensaje)).toContain("Hora preferida: 11:00");
    expect(String(row?.mensaje)).toContain("Comentarios: Con mi pareja");
    const again = await captcha();
    const duplicate = await submit({ ...visit, captchaId: again.captchaId, captchaAnswer: again.answer });
    expect(duplicate.status).toBe(409);
    expect((await duplicate.json()).error.message).toBe("Una solicitud similar ya fue enviada recientemente.");
  });

  it("refuses a visit for today or an hour outside the list", async () => {
    const { captchaId, answer } = await captcha();
    const today_ = await submit({ nombre: "I", email: "i@example.com", telefono: "1", fecha: today, hora: "11:00", captchaId, captchaAnswer: answer });
    expect((await today_.json()).error.message).toContain("al menos un día de antelación");
    const hour = await submit({ nombre: "I", email: "i@example.com", telefono: "1", fecha: addDays(today, 2), hora: "13:00", captchaId, captchaAnswer: answer });
    expect((await hour.json()).error.message).toContain("Por favor completa todos los campos obligatorios");
  });
});
