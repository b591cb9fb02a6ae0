// Issue 40, point 5, as an anonymous client found it ("one client held a year
// of rooms"): with the house's defaults, a booking holds its room only once
// the guest follows the first mail's link; a hold lapses on time and stops
// counting at once (availability and the database's triggers), the release
// tells guest and house; open pending stays are capped per email and per
// address; a stay longer than MAX_ONLINE_NIGHTS is an enquiry. Through the
// JSON API, a real SMTP receiver and the release job; each test books suites
// on nights of its own (the house has 2).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getReservationByCode } from "~/models/reservation.server";
import * as availabilityRoute from "~/routes/api.availability";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as confirmRoute from "~/routes/api.anonymous-reservations.code.$code.confirm-email";
import { releaseLapsedHolds } from "~/services/pending-holds.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { resetMailTransport } from "~/utils/mail.server";
import { eventually } from "../../bridge/src/test-support/eventually";
import { unique } from "../setup/fixtures";
import { mailSubject, mimePart } from "../setup/mime";
import { callRoute, jsonRequest } from "../setup/route";
import { startSmtpReceiver } from "../setup/smtp";

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
const STAFF = "recepcion@lacasona.test";
const HOUSE_DEFAULTS = ["BOOKING_EMAIL_CONFIRMATION", "PENDING_PER_EMAIL", "PENDING_PER_ADDRESS"] as const;
const saved = Object.fromEntries(HOUSE_DEFAULTS.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  process.env.STAFF_EMAIL = STAFF;
  resetMailTransport();
});

beforeEach(() => {
  // The house's defaults (tests/setup/vitest-db.ts relaxes them for the older suites).
  for (const name of HOUSE_DEFAULTS) delete process.env[name];
  resetEnvForTests();
});

afterAll(async () => {
  for (const name of HOUSE_DEFAULTS) process.env[name] = saved[name];
  delete process.env.SMTP_URL;
  delete process.env.STAFF_EMAIL;
  resetEnvForTests();
  await smtp.close();
});

const today = todayInMadrid();
let windows = 0;
/** Nights of a test's own (this file has its own database): from 30 + 100·n days ahead. */
function nights(count = 3) {
  const start = addDays(today, 30 + 100 * windows++);
  return { startDate: start, endDate: addDays(start, count) };
}

const guest = (stay: { startDate: string; endDate: string }, email = `${unique()}@example.com`) => ({
  guestName: "Rosa Llaneza",
  guestEmail: email,
  guestPhone: "+34 600 333 444",
  reservationType: "habitacion",
  roomType: "suite",
  ...stay,
});

async function book(body: Record<string, unknown>, ip?: string) {
  const response = await callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body, ip }));
  return { status: response.status, body: await response.json() };
}

async function suitesFree(stay: { startDate: string; endDate: string }) {
  const query = new URLSearchParams({ reservationType: "habitacion", roomType: "suite", ...stay, holds: "1" });
  return (await (await callRoute(availabilityRoute.loader, jsonRequest(`/api/availability?${query}`))).json()).data as { available: number; total: number; unconfirmed: number };
}

/** The token of the first mail's link to this guest. */
async function linkToken(email: string) {
  const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(email) && mailSubject(m.raw)?.startsWith("Confirma tu email")), `the first mail to ${email}`, 2000);
  const url = /https?:\/\/\S*\/reserva-confirmar\?\S+/.exec(mimePart(mail.raw, "text/plain") ?? "")![0];
  return new URL(url).searchParams.get("token")!;
}

async function confirmEmail(code: string, token: string) {
  const response = await callRoute(
    confirmRoute.action,
    jsonRequest(`/api/anonymous-reservations/code/${code}/confirm-email`, { method: "POST", body: { token } }),
    { code },
  );
  return { status: response.status, body: await response.json() };
}

/** The stay's time ran out a moment ago (no code stores that instant; the clock would take an hour or three days). */
async function lapse(code: string) {
  await getDb().$client.execute({ sql: "UPDATE anonymous_reservations SET expires_at = ? WHERE reservation_code = ?", args: [Date.now() - 1000, code] });
}

describe("pending holds (BOOKING_EMAIL_CONFIRMATION on)", () => {
  it("holds a room only once the email is confirmed, stops counting a lapsed hold at once, and the release tells guest and house", async () => {
    const stay = nights();
    const [ana, bea, carla] = [`ana-${unique()}@example.com`, `bea-${unique()}@example.com`, `carla-${unique()}@example.com`];
    const codes: string[] = [];
    for (const email of [ana, bea, carla]) {
      const booked = await book(guest(stay, email));
      expect(booked.status).toBe(201);
      expect(booked.body.data).toMatchObject({ status: "pending", awaitingEmail: true });
      codes.push(booked.body.data.reservationCode);
    }
    // Three bookings of the two suites, none confirmed by email: nothing is held.
    expect(await suitesFree(stay)).toEqual({ available: 2, total: 2, unconfirmed: 0 });
    const staffNotice = await eventually(() => smtp.messages.find((m) => m.to.includes(STAFF) && mailSubject(m.raw) === `Nueva reserva: ${codes[0]}`), "the staff notice", 2000);
    expect(mimePart(staffNotice.raw, "text/plain")).toContain("Aún no retiene plaza");

    const [anaToken, beaToken, carlaToken] = [await linkToken(ana), await linkToken(bea), await linkToken(carla)];
    expect((await confirmEmail(codes[0]!, "x".repeat(32))).status).toBe(404);
    const held = await confirmEmail(codes[0]!, anaToken);
    expect(held.status).toBe(200);
    expect(held.body.data).toMatchObject({ status: "pending", awaitingEmail: false });
    expect(Date.parse(held.body.data.holdUntil) - Date.now()).toBeGreaterThan(71 * 3600_000);
    expect(await suitesFree(stay)).toEqual({ available: 1, total: 2, unconfirmed: 1 });
    const heldMail = await eventually(() => smtp.messages.find((m) => m.to.includes(ana) && mailSubject(m.raw) === `Reserva retenida: ${codes[0]}`), "the hold's mail", 2000);
    expect(mimePart(heldMail.raw, "text/plain")).toContain("(72 horas)");
    expect((await confirmEmail(codes[1]!, beaToken)).status).toBe(200);
    // The suites are held: the last guest's link is refused by the database itself.
    expect(await confirmEmail(codes[2]!, carlaToken)).toEqual({ status: 409, body: { success: false, error: { message: "No quedan habitaciones suites libres para esas fechas" } } });
    // ...and so is a new booking of them, though it would hold nothing yet.
    expect((await book(guest(stay))).status).toBe(409);

    // Ana's hold runs out: it stops counting before any job runs, and Carla's link now holds.
    await lapse(codes[0]!);
    expect(await suitesFree(stay)).toEqual({ available: 1, total: 2, unconfirmed: 1 });
    expect((await confirmEmail(codes[2]!, carlaToken)).status).toBe(200);

    expect(await releaseLapsedHolds()).toBeGreaterThanOrEqual(1);
    const released = await getReservationByCode(codes[0]!);
    expect(released).toMatchObject({ status: "cancelled" });
    expect(released!.lapsedAt).toBeInstanceOf(Date);
    const { rows } = await getDb().$client.execute({ sql: "SELECT action, summary FROM audit_events WHERE entity_id = ? ORDER BY id", args: [released!.id] });
    expect(rows.map((row) => row.action)).toEqual(["reservation.create", "reservation.email_confirm", "reservation.expire"]);
    const told = await eventually(() => smtp.messages.find((m) => m.to.includes(ana) && mailSubject(m.raw) === `Reserva anulada: ${codes[0]}`), "the guest's release mail", 2000);
    expect(mimePart(told.raw, "text/plain")).toContain("llevaba 72 horas pendiente");
    await eventually(() => smtp.messages.find((m) => m.to.includes(STAFF) && mailSubject(m.raw) === `Reserva anulada sin confirmar: ${codes[0]}`), "the house's release notice", 2000);
  });

  it("releases a booking whose email was not confirmed in time, without mail; its link then says so", async () => {
    const stay = nights();
    const email = `dani-${unique()}@example.com`;
    const { body } = await book(guest(stay, email));
    const code = body.data.reservationCode as string;
    expect(Date.parse(body.data.holdUntil) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    const token = await linkToken(email);
    await lapse(code);
    expect(await confirmEmail(code, token)).toEqual({ status: 409, body: { success: false, error: { message: "Esta reserva ha caducado porque el email no se confirmó a tiempo. Haz la reserva de nuevo." } } });
    await releaseLapsedHolds();
    expect(await getReservationByCode(code)).toMatchObject({ status: "cancelled" });
    expect(await confirmEmail(code, token)).toMatchObject({ status: 409 });
    expect(smtp.messages.filter((m) => m.to.includes(email)).map((m) => mailSubject(m.raw))).toEqual([`Confirma tu email: reserva ${code}`]);
  });

  it("caps open pending stays per email (409) and per address a day (429)", async () => {
    const stay = nights();
    const email = `eva-${unique()}@example.com`;
    const ip = `198.51.100.${windows}`;
    expect((await book(guest(stay, email), ip)).status).toBe(201);
    expect((await book(guest(stay, email.toUpperCase()), ip)).status).toBe(201);
    expect(await book(guest(stay, email), `${ip}-otra`)).toEqual({
      status: 409,
      body: { success: false, error: { message: "Ya tienes 2 reservas pendientes con este email, el máximo. Cancela una o espera a que la confirmemos para hacer otra." } },
    });
    expect((await book(guest(stay), ip)).status).toBe(201);
    const refused = await callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body: guest(stay), ip }));
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toBe("Ya se han hecho 3 reservas pendientes desde tu conexión hoy, el máximo. Vuelve a intentarlo mañana o escríbenos.");
  });

  it("takes a stay longer than MAX_ONLINE_NIGHTS as an enquiry that holds nothing", async () => {
    const stay = nights(93);
    const email = `fran-${unique()}@example.com`;
    expect(await book(guest(stay, email))).toEqual({ status: 202, body: { success: true, data: { enquiry: true, nights: 93, emailSent: true } } });
    const { rows } = await getDb().$client.execute({ sql: "SELECT (SELECT count(*) FROM anonymous_reservations WHERE guest_email = ?) AS stays, (SELECT mensaje FROM consultations WHERE email = ?) AS mensaje", args: [email, email] });
    expect(Number(rows[0]!.stays)).toBe(0);
    expect(String(rows[0]!.mensaje)).toContain("Solicitud de estancia larga (93 noches; en línea se reservan hasta 92)");
    expect((await book(guest(nights(92), `${unique()}@example.com`))).status).toBe(201);
  });

  it("with BOOKING_EMAIL_CONFIRMATION off, holds at once for PENDING_HOLD_HOURS and the first mail says until when", async () => {
    process.env.BOOKING_EMAIL_CONFIRMATION = "off";
    resetEnvForTests();
    const stay = nights();
    const email = `gil-${unique()}@example.com`;
    const { status, body } = await book(guest(stay, email));
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ awaitingEmail: false });
    expect(await suitesFree(stay)).toEqual({ available: 1, total: 2, unconfirmed: 1 });
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(email) && mailSubject(m.raw) === `Reserva recibida: ${body.data.reservationCode}`), "the booking's mail", 2000);
    expect(mimePart(mail.raw, "text/plain")).toMatch(/Te la guardamos hasta el \d{2}\/\d{2}\/\d{4}.* \(72 horas\)/);
  });
});
