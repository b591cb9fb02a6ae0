import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as cancelRoute from "~/routes/api.anonymous-reservations.code.$code.cancel";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as captchaRoute from "~/routes/api.consultations.captcha";
import * as submitRoute from "~/routes/api.consultations.submit";
import { addDays, todayInMadrid } from "~/utils/dates";
import { resetMailTransport } from "~/utils/mail.server";
import { eventually } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";
import { mailSubject, mimePart, startSmtpReceiver } from "../setup/smtp";

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  const { resetEnvForTests } = await import("~/utils/env.server");
  resetEnvForTests();
  resetMailTransport();
});

afterAll(async () => {
  delete process.env.SMTP_URL;
  await smtp.close();
});

function waitForMail(predicate: (raw: string) => boolean) {
  return eventually(() => smtp.messages.find((m) => predicate(m.raw)), 1000);
}

describe("visitor mail over SMTP", () => {
  it("confirms a booking with its code, dates, lookup link and an .ics of the stay; then confirms the cancellation", async () => {
    const start = addDays(todayInMadrid(), 10);
    const end = addDays(todayInMadrid(), 13);
    const response = await callRoute(
      reservationsRoute.action,
      jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        body: { guestName: "Nuria", guestEmail: "nuria@example.com", guestPhone: "600", reservationType: "habitacion", roomType: "suite", startDate: start, endDate: end },
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

    await callRoute(
      cancelRoute.action,
      jsonRequest(`/api/anonymous-reservations/code/${reservationCode}/cancel`, { method: "PUT", body: { guestEmail: "nuria@example.com" } }),
      { code: reservationCode },
    );
    const cancelled = await waitForMail((raw) => raw.includes(`Reserva cancelada: ${reservationCode}`));
    expect(mimePart(cancelled.raw, "text/plain")).toContain("ha sido cancelada");
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
    const mail = await waitForMail((raw) => raw.includes("tomas@example.com") && (mailSubject(raw) ?? "").length > 0);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Hora preferida: 17:00");
    expect(text).toContain("Hola, Tomás");
  });
});
