import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as cancelRoute from "~/routes/api.anonymous-reservations.code.$code.cancel";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as captchaRoute from "~/routes/api.consultations.captcha";
import * as submitRoute from "~/routes/api.consultations.submit";
import { addDays, todayInMadrid } from "~/utils/dates";
import { resetMailTransport } from "~/utils/mail.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { reportResidentIncident } from "~/services/resident-incidents.server";
import { reportPublicIncident } from "~/services/visitor.server";
import { getEnv, resetEnvForTests } from "~/utils/env.server";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestReservation, createTestResident, unique } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";
import { mailSubject, mimePart } from "../setup/mime";
import { startSmtpReceiver } from "../setup/smtp";

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
const STAFF = "mantenimiento@lacasona.test";

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  process.env.STAFF_EMAIL = STAFF;
  resetEnvForTests();
  resetMailTransport();
});

afterAll(async () => {
  delete process.env.SMTP_URL;
  delete process.env.STAFF_EMAIL;
  resetEnvForTests();
  await smtp.close();
});

function waitForMail(predicate: (raw: string) => boolean) {
  return eventually(() => smtp.messages.find((m) => predicate(m.raw)), "the mail", 1000);
}

/** The staff notice whose plain text contains `text`. */
function waitForStaffNotice(text: string) {
  return eventually(() => smtp.messages.find((m) => m.to.includes(STAFF) && (mimePart(m.raw, "text/plain") ?? "").includes(text)), `the staff notice with "${text}"`, 1000);
}

/** The cancellation's calendar withdraws the published event: same UID, METHOD:CANCEL, a higher SEQUENCE. */
function expectCalendarCancel(raw: string, published: string) {
  const ics = mimePart(raw, "text/calendar")!;
  const field = (text: string, name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(text)?.[1]?.trim();
  expect(field(published, "METHOD")).toBe("PUBLISH");
  expect(field(ics, "METHOD")).toBe("CANCEL");
  expect(field(ics, "STATUS")).toBe("CANCELLED");
  expect(field(ics, "UID")).toBe(field(published, "UID"));
  expect(Number(field(ics, "SEQUENCE"))).toBeGreaterThan(Number(field(published, "SEQUENCE")));
  expect(raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=CANCEL/i);
}

describe("visitor mail over SMTP", () => {
  it("confirms a booking with its code, dates, lookup link and an .ics of the stay; then confirms the cancellation", async () => {
    const start = addDays(todayInMadrid(), 10);
    const end = addDays(todayInMadrid(), 13);
    const response = await callRoute(
      reservationsRoute.action,
      jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        body: { guestName: "Nuria", guestEmail: "nuria@example.com", guestPhone: "600 123 456", reservationType: "habitacion", roomType: "suite", startDate: start, endDate: end },
      }),
    );
    const { reservationCode } = (await response.json()).data;
    const mail = await waitForMail((raw) => raw.includes(`Reserva recibida: ${reservationCode}`));
    expect(mail.to).toEqual(["nuria@example.com"]);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain(`Código de reserva: ${reservationCode}`);
    expect(text).toContain(`Fecha de entrada: ${start.split("-").reverse().join("/")}`);
    expect(text).toContain("/reserva-consulta");
    expect(mimePart(mail.raw, "text/html")).toContain(`<td>${reservationCode}</td>`);
    const ics = mimePart(mail.raw, "text/calendar")!;
    expect(ics).toContain("BEGIN:VEVENT");
    expect(ics).toContain(`DTSTART;VALUE=DATE:${start.replace(/-/g, "")}`);
    expect(ics).toContain(`DTEND;VALUE=DATE:${end.replace(/-/g, "")}`);
    expect(ics).toContain(`UID:${reservationCode}@`);
    // Pending until the house confirms it.
    expect(ics).toContain("STATUS:TENTATIVE");
    expect(ics).toContain("SEQUENCE:0");

    await callRoute(
      cancelRoute.action,
      jsonRequest(`/api/anonymous-reservations/code/${reservationCode}/cancel`, { method: "PUT", body: { guestEmail: "nuria@example.com" } }),
      { code: reservationCode },
    );
    const cancelled = await waitForMail((raw) => raw.includes(`Reserva cancelada: ${reservationCode}`));
    expect(mimePart(cancelled.raw, "text/plain")).toContain("ha sido cancelada");
    expectCalendarCancel(cancelled.raw, ics);
  });

  it("confirms the stay in the guest's calendar when the house confirms it (same UID, CONFIRMED, higher SEQUENCE), and a later cancellation goes higher still", async () => {
    const reservation = await createTestReservation();
    const field = (text: string, name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(text)?.[1]?.trim();
    expect((await changeReservationStatus(reservation.id, "confirmed")).ok).toBe(true);
    const confirmed = await waitForMail((raw) => raw.includes(`Reserva confirmada: ${reservation.reservationCode}`));
    const ics = mimePart(confirmed.raw, "text/calendar")!;
    expect(field(ics, "UID")).toBe(`${reservation.reservationCode}@lacasona-coliving.es`);
    expect(field(ics, "METHOD")).toBe("PUBLISH");
    expect(field(ics, "STATUS")).toBe("CONFIRMED");
    expect(Number(field(ics, "SEQUENCE"))).toBeGreaterThan(0);
    expect(confirmed.raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=PUBLISH/i);

    expect((await changeReservationStatus(reservation.id, "cancelled")).ok).toBe(true);
    const cancelled = await waitForMail((raw) => raw.includes(`Reserva cancelada: ${reservation.reservationCode}`));
    expectCalendarCancel(cancelled.raw, ics);
  });

  it("withdraws the stay from the guest's calendar when the house cancels it", async () => {
    const reservation = await createTestReservation();
    const cancelled = await changeReservationStatus(reservation.id, "cancelled");
    expect(cancelled.ok).toBe(true);
    const mail = await waitForMail((raw) => raw.includes(`Reserva cancelada: ${reservation.reservationCode}`));
    const ics = mimePart(mail.raw, "text/calendar")!;
    expect(ics).toContain(`UID:${reservation.reservationCode}@`);
    expect(ics).toContain("METHOD:CANCEL");
    expect(ics).toContain("STATUS:CANCELLED");
  });

  it("acknowledges an enquiry, in Spanish, without repeating the message", async () => {
    const captcha = (await (await callRoute(captchaRoute.loader, jsonRequest("/api/consultations/captcha"))).json()).data;
    const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(captcha.question)!;
    const answer = op === "+" ? Number(a) + Number(b) : Number(a) - Number(b);
    const mensaje = `¿Admitís mascotas? ${unique()}`;
    const response = await callRoute(
      submitRoute.action,
      jsonRequest("/api/consultations/submit", {
        method: "POST",
        body: { nombre: "Berta", email: "berta@example.com", telefono: "600 123 456", mensaje, captchaId: captcha.captchaId, captchaAnswer: String(answer) },
      }),
    );
    expect(response.status).toBe(200);
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes("berta@example.com")), "the enquiry acknowledgement", 1000);
    expect(mailSubject(mail.raw)).toBe("Hemos recibido tu consulta");
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Hola, Berta");
    expect(text).toContain("te responderemos lo antes posible");
    expect(text).not.toContain(mensaje);
  });

  it("acknowledges a visit request", async () => {
    const captcha = (await (await callRoute(captchaRoute.loader, jsonRequest("/api/consultations/captcha"))).json()).data;
    const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(captcha.question)!;
    const answer = op === "+" ? Number(a) + Number(b) : Number(a) - Number(b);
    const fecha = addDays(todayInMadrid(), 4);
    const response = await callRoute(
      submitRoute.action,
      jsonRequest("/api/consultations/submit", {
        method: "POST",
        body: { nombre: "Tomás", email: "tomas@example.com", telefono: "600", fecha, hora: "17:00", captchaId: captcha.captchaId, captchaAnswer: String(answer) },
      }),
    );
    expect(response.status).toBe(200);
    // The visitor's own acknowledgement (the staff notice names the address too).
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes("tomas@example.com")), "the mail to tomas@example.com", 1000);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Hora preferida: 17:00");
    expect(text).toContain("Hola, Tomás");
  });
});

describe("staff notices (STAFF_EMAIL)", () => {
  it("tells the staff of a new booking, with a link to it in the admin panel", async () => {
    const response = await callRoute(
      reservationsRoute.action,
      jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        body: { guestName: "Iván Rey", guestEmail: "ivan@example.com", guestPhone: "644 123 456", reservationType: "sala", startDate: addDays(todayInMadrid(), 5), endDate: addDays(todayInMadrid(), 6), specialRequests: "Proyector" },
      }),
    );
    const { _id, reservationCode } = (await response.json()).data;
    const mail = await waitForStaffNotice(`Código de reserva: ${reservationCode}`);
    expect(mail.to).toEqual([STAFF]);
    expect(mailSubject(mail.raw)).toBe(`Nueva reserva: ${reservationCode}`);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Iván Rey");
    expect(text).toContain("Solicitudes especiales: Proyector");
    expect(text).toContain(`/admin/reservations?modal=detail&reservation=${_id}`);
  });

  it("tells the staff of a new enquiry and of a new visit request", async () => {
    const ask = async () => {
      const captcha = (await (await callRoute(captchaRoute.loader, jsonRequest("/api/consultations/captcha"))).json()).data;
      const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(captcha.question)!;
      return { captchaId: captcha.captchaId, captchaAnswer: String(op === "+" ? Number(a) + Number(b) : Number(a) - Number(b)) };
    };
    const message = `¿Hay plaza en enero? ${unique()}`;
    const enquiry = await callRoute(
      submitRoute.action,
      jsonRequest("/api/consultations/submit", { method: "POST", body: { nombre: "Lucia Gil", email: "lucia@example.com", telefono: "655", mensaje: message, ...(await ask()) } }),
    );
    expect(enquiry.status).toBe(200);
    const enquiryMail = await waitForStaffNotice(message);
    expect(mailSubject(enquiryMail.raw)).toBe("Nueva consulta: Lucia Gil");
    expect(mimePart(enquiryMail.raw, "text/plain")).toContain("Email: lucia@example.com");

    const fecha = addDays(todayInMadrid(), 6);
    const visitor = `Visitante ${unique()}`;
    await callRoute(
      submitRoute.action,
      jsonRequest("/api/consultations/submit", { method: "POST", body: { nombre: visitor, email: "visitante@example.com", telefono: "666", fecha, hora: "11:00", comentarios: "Vengo con mi hermana", ...(await ask()) } }),
    );
    const visitMail = await waitForStaffNotice(`${visitor} quiere visitar la casa.`);
    expect(mailSubject(visitMail.raw)).toBe(`Nueva solicitud de visita: ${visitor}`);
    const text = mimePart(visitMail.raw, "text/plain")!;
    expect(text).toContain(`Fecha preferida: ${fecha.split("-").reverse().join("/")}`);
    expect(text).toContain("Hora preferida: 11:00");
    // Once each (the stored message repeats them, so it is not shown).
    expect(text.match(/Fecha preferida/g)).toHaveLength(1);
    expect(text.match(/Hora preferida/g)).toHaveLength(1);
    expect(text).toContain("Comentarios: Vengo con mi hermana");
  });

  it("tells the staff of a public fault report and of a resident's incident", async () => {
    const reporter = `Vecina ${unique()}`;
    await reportPublicIncident(
      { nombre: reporter, departamento: "3", tipo: "electrico", ubicacion: "Pasillo 3", descripcion: "No hay luz", urgencia: "alta", website: "" },
      { ip: "203.0.113.9" },
    );
    const fault = mimePart((await waitForStaffNotice(`${reporter} ha enviado un aviso de avería`)).raw, "text/plain")!;
    expect(fault).toContain("Ubicación: Pasillo 3");
    expect(fault).toContain("Piso / departamento: 3");
    expect(fault).toContain("Descripción: No hay luz");

    const resident = await createTestResident({ firstName: "Olga", lastName: `Sanz ${unique()}`, unitNumber: "4C" });
    const reported = await reportResidentIncident(resident, {
      title: "Persiana rota",
      category: "structural",
      location: "Dormitorio",
      description: "No sube",
      priority: "low",
    });
    expect(reported.ok).toBe(true);
    const incidentMail = await waitForStaffNotice(`Olga ${resident.lastName} ha reportado una incidencia`);
    const text = mimePart(incidentMail.raw, "text/plain")!;
    expect(text).toContain("Unidad: 4C");
    expect(text).toContain(`/admin/incidents?modal=edit&incident=${reported.ok ? reported.incident._id : ""}`);
  });

  it("keeps the notices in the outbox when STAFF_EMAIL is unset, even with an SMTP server", async () => {
    delete process.env.STAFF_EMAIL;
    resetEnvForTests();
    try {
      const reporter = `Vecino ${unique()}`;
      const before = smtp.messages.length;
      await reportPublicIncident(
        { nombre: reporter, departamento: "1", tipo: "otro", ubicacion: "Portal", descripcion: "Timbre roto", urgencia: "baja", website: "" },
        { ip: "203.0.113.10" },
      );
      const outbox = path.join(getEnv().DATA_DIR, "outbox");
      const kept = await eventually(() =>
        (fs.existsSync(outbox) ? fs.readdirSync(outbox) : [])
          .map((file) => fs.readFileSync(path.join(outbox, file), "utf8"))
          .find((raw) => (mimePart(raw, "text/plain") ?? "").includes(reporter)),
      );
      expect(kept).toMatch(/^To: .*hola@lacasona-coliving\.es/m);
      expect(smtp.messages.slice(before).some((m) => m.raw.includes(reporter))).toBe(false);
    } finally {
      process.env.STAFF_EMAIL = STAFF;
      resetEnvForTests();
    }
  });
});
