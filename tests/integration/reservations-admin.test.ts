// Guests' reservations as the house manages them: the SPEC §4 rules (confirm
// only pending, cancel pending or confirmed, enforced on the server), the
// guest's mail for each change (a real SMTP receiver), the confirm-after-
// cancel race, stays that are over, /admin/reservations and the admin calls
// of /api/anonymous-reservations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getReservationById } from "~/models/reservation.server";
import * as listRoute from "~/routes/api.anonymous-reservations";
import * as statusRoute from "~/routes/api.anonymous-reservations.$id.status";
import * as page from "~/routes/admin.reservations";
import { changeReservationDates, changeReservationStatus } from "~/services/reservations.server";
import { createRoom } from "~/services/rooms.server";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import { cancelGuestReservation } from "~/services/visitor.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { resetEnvForTests } from "~/utils/env.server";
import { resetMailTransport } from "~/utils/mail.server";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createApiCallers, createTestReservation, createTestUser, sessionCookie, toastOf } from "../setup/fixtures";
import { callRoute, jsonRequest, callApi, type ApiCall } from "../setup/route";
import { mailSubject, mimePart } from "../setup/mime";
import { startSmtpReceiver } from "../setup/smtp";

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let adminToken: string;
let residentToken: string;
let adminCookie: string;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  resetEnvForTests();
  resetMailTransport();
  const callers = await createApiCallers();
  ({ adminToken, residentToken } = callers);
  adminCookie = await sessionCookie(callers.admin.id);
});

afterAll(async () => {
  delete process.env.SMTP_URL;
  resetEnvForTests();
  resetMailTransport();
  await smtp.close();
});

function mailsTo(address: string) {
  return smtp.messages.filter((message) => message.to.includes(address));
}

function waitForMail(address: string, subject: string) {
  return eventually(() => mailsTo(address).find((message) => mailSubject(message.raw) === subject), `the mail "${subject}" to ${address}`, 2000);
}

/** A stay that ended yesterday (stored straight, as the booking form would refuse it). */
async function pastReservation(status: "pending" | "confirmed") {
  const reservation = await createTestReservation({ startDate: addDays(todayInMadrid(), -5), endDate: addDays(todayInMadrid(), -1) });
  if (status === "confirmed") {
    const { getDb } = await import("~/utils/db.server");
    await getDb().$client.execute({ sql: "UPDATE anonymous_reservations SET status = 'confirmed' WHERE id = ?", args: [reservation.id] });
  }
  return reservation;
}

describe("rules and mail", () => {
  it("confirms a pending reservation and mails the guest in Spanish; a second confirmation is refused", async () => {
    const reservation = await createTestReservation({ guestName: "Nuria", specialRequests: "Cuna" });
    const confirmed = await changeReservationStatus(reservation.id, "confirmed");
    if (!confirmed.ok) throw new Error(confirmed.message);
    expect(confirmed.emailSent).toBe(true);
    expect(confirmed.reservation).toMatchObject({ status: "confirmed", specialRequests: "Cuna" });
    expect(confirmed.reservation.confirmedAt).not.toBeNull();

    const mail = await waitForMail(reservation.guestEmail, `Reserva confirmada: ${reservation.reservationCode}`);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain("Hola, Nuria:");
    expect(text).toContain("está confirmada");
    expect(text).toContain(`Código de reserva: ${reservation.reservationCode}`);
    expect(text).toContain(`Fecha de entrada: ${reservation.startDate.split("-").reverse().join("/")}`);
    expect(text).toContain("/reserva-consulta");

    expect(await changeReservationStatus(reservation.id, "confirmed")).toEqual({ ok: false, status: 409, message: "Solo se puede confirmar una reserva pendiente" });
    expect(mailsTo(reservation.guestEmail)).toHaveLength(1);
  });

  it("cancels a pending or a confirmed reservation with the house's cancellation mail; never a cancelled one", async () => {
    for (const start of ["pending", "confirmed"] as const) {
      const reservation = await createTestReservation();
      if (start === "confirmed") expect((await changeReservationStatus(reservation.id, "confirmed")).ok).toBe(true);
      const cancelled = await changeReservationStatus(reservation.id, "cancelled");
      if (!cancelled.ok) throw new Error(cancelled.message);
      expect(cancelled.reservation.status).toBe("cancelled");
      expect(cancelled.reservation.cancelledAt).not.toBeNull();
      const mail = await waitForMail(reservation.guestEmail, `Reserva cancelada: ${reservation.reservationCode}`);
      expect(mimePart(mail.raw, "text/plain")).toContain("ha cancelado tu reserva");

      const again = await changeReservationStatus(reservation.id, "cancelled");
      expect(again).toEqual({ ok: false, status: 409, message: "Solo se puede cancelar una reserva pendiente o confirmada" });
      expect(await changeReservationStatus(reservation.id, "confirmed")).toMatchObject({ status: 409 });
    }
  });

  it("new dates mail the guest the new stay and, confirmed, its key's new window", async () => {
    const room = await createRoom({ name: `M${Math.random().toString(36).slice(2, 7)}`, floor: 2, roomType: "individual", status: "available" });
    if (!room.ok) throw new Error(room.message);
    const email = `fechas.${Math.random().toString(36).slice(2, 8)}@correo.es`;
    const reservation = await createTestReservation({ guestEmail: email, roomType: "individual", startDate: addDays(todayInMadrid(), 600), endDate: addDays(todayInMadrid(), 602) });
    expect((await changeReservationStatus(reservation.id, "confirmed", new Date(), { roomId: room.room._id })).ok).toBe(true);
    const [startDate, endDate] = [addDays(todayInMadrid(), 604), addDays(todayInMadrid(), 607)];
    const changed = await changeReservationDates(reservation.id, { startDate, endDate });
    expect(changed).toMatchObject({ ok: true, emailSent: true });
    const key = (await getActiveKeyOfReservation(reservation.id))!;
    const text = mimePart((await waitForMail(email, `Reserva modificada: ${reservation.reservationCode}`)).raw, "text/plain")!;
    expect(text).toContain(`Fecha de entrada: ${startDate.split("-").reverse().join("/")}`);
    expect(text).toContain(`Fecha de salida: ${endDate.split("-").reverse().join("/")}`);
    expect(text).toContain(`Tu código de acceso: ${key.pin} · válido del ${startDate.split("-").reverse().join("/")} 15:00 al ${endDate.split("-").reverse().join("/")} 11:00`);
    // The same dates again: nothing changes, nothing is mailed.
    expect(await changeReservationDates(reservation.id, { startDate, endDate })).toMatchObject({ ok: true, emailSent: false });
  });

  it("a stay that is over shows as completed and can be neither confirmed nor cancelled", async () => {
    for (const status of ["pending", "confirmed"] as const) {
      const reservation = await pastReservation(status);
      const refused = await changeReservationStatus(reservation.id, status === "pending" ? "confirmed" : "cancelled");
      expect(refused).toEqual({ ok: false, status: 409, message: "La estancia de esta reserva ya ha terminado" });
      expect((await getReservationById(reservation.id))?.status).toBe(status);
      const { body } = await api(`/api/anonymous-reservations?status=completed&limit=100`);
      expect(body.data.find((r: { _id: string }) => r._id === reservation.id)).toMatchObject({ status: "completed" });
    }
    expect(await changeReservationStatus("nope", "confirmed")).toEqual({ ok: false, status: 404, message: "Reserva no encontrada" });
  });

  it("never confirms a reservation the guest has just cancelled", async () => {
    // The admin's screen still shows it pending; the guest cancels first.
    const reservation = await createTestReservation();
    expect((await cancelGuestReservation(reservation.reservationCode, reservation.guestEmail, { ip: "192.0.2.90" })).ok).toBe(true);
    const late = await changeReservationStatus(reservation.id, "confirmed");
    expect(late).toEqual({ ok: false, status: 409, message: "Solo se puede confirmar una reserva pendiente" });
    expect((await getReservationById(reservation.id))?.status).toBe("cancelled");
    expect(mailsTo(reservation.guestEmail).map((m) => mailSubject(m.raw))).not.toContain(`Reserva confirmada: ${reservation.reservationCode}`);

    // Both at once, many times: whichever write lands first, the reservation ends cancelled.
    for (let i = 0; i < 10; i++) {
      const racing = await createTestReservation();
      const [confirm, cancel] = await Promise.all([
        changeReservationStatus(racing.id, "confirmed"),
        cancelGuestReservation(racing.reservationCode, racing.guestEmail, { ip: `192.0.2.${100 + i}` }),
      ]);
      expect(cancel.ok).toBe(true);
      const stored = await getReservationById(racing.id);
      expect(stored?.status).toBe("cancelled");
      // A confirmation that won the race was then cancelled by the guest; one that lost was refused.
      if (!confirm.ok) expect(confirm.status).toBe(409);
      else expect(stored?.confirmedAt).not.toBeNull();
    }
  });
});

async function api(path: string, { method = "GET", ...options }: ApiCall = {}) {
  const fn = path.endsWith("/status") ? statusRoute : listRoute;
  return callApi(method === "GET" ? fn.loader : fn.action, path, { token: adminToken, method, ...options });
}

describe("GET /api/anonymous-reservations (admin)", () => {
  it("401 without a token, 403 for a resident; the public POST stays public", async () => {
    expect(await api("/api/anonymous-reservations", { token: null })).toEqual({ status: 401, body: { success: false, error: { message: "No autenticado" } } });
    expect(await api("/api/anonymous-reservations", { token: residentToken })).toEqual({ status: 403, body: { success: false, error: { message: "Acceso denegado" } } });
    const booked = await callRoute(
      listRoute.action,
      jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        body: { guestName: "Ana", guestEmail: "ana-public@example.com", guestPhone: "600 123 456", reservationType: "sala", startDate: addDays(todayInMadrid(), 3), endDate: addDays(todayInMadrid(), 4) },
      }),
    );
    expect(booked.status).toBe(201);
  });

  it("answers data (newest first), pagination and stats, filtered by status", async () => {
    const before = (await api("/api/anonymous-reservations")).body;
    const pending = await createTestReservation({ reservationType: "sala", roomType: null, contactPreference: "both" });
    const confirmed = await createTestReservation();
    expect((await changeReservationStatus(confirmed.id, "confirmed")).ok).toBe(true);

    const { status, body } = await api("/api/anonymous-reservations?page=1&limit=20");
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.pagination).toMatchObject({ page: 1, limit: 20, total: before.pagination.total + 2 });
    expect(body.stats.total - before.stats.total).toBe(2);
    expect(body.stats.pending - before.stats.pending).toBe(1);
    expect(body.stats.confirmed - before.stats.confirmed).toBe(1);
    expect(body.data[0]).toMatchObject({ _id: confirmed.id, status: "confirmed", days: 3 });
    expect(body.data[1]).toMatchObject({
      _id: pending.id,
      reservationCode: pending.reservationCode,
      guestName: pending.guestName,
      guestEmail: pending.guestEmail,
      reservationType: "sala",
      roomType: null,
      contactPreference: "both",
      status: "pending",
      confirmedAt: null,
    });
    expect(body.data[1]).not.toHaveProperty("ipAddress");

    const onlyPending = await api("/api/anonymous-reservations?status=pending&limit=100");
    expect(onlyPending.body.data.every((r: { status: string }) => r.status === "pending")).toBe(true);
    expect(onlyPending.body.pagination.total).toBe(onlyPending.body.stats.pending);
    expect((await api("/api/anonymous-reservations?status=done")).body.error.message).toBe("status debe ser uno de: pending, confirmed, cancelled, completed");
    expect((await api("/api/anonymous-reservations?limit=0")).status).toBe(400);
  });
});

describe("PUT /api/anonymous-reservations/{id}/status", () => {
  it("401, 403, 405; confirms and cancels with mail; saves notes alone; refuses what the rules refuse", async () => {
    const reservation = await createTestReservation();
    const path = `/api/anonymous-reservations/${reservation.id}/status`;
    const params = { id: reservation.id };
    expect((await api(path, { method: "PUT", params, body: { status: "confirmed" }, token: null })).status).toBe(401);
    expect((await api(path, { method: "PUT", params, body: { status: "confirmed" }, token: residentToken })).status).toBe(403);
    expect((await api(path, { method: "POST", params, body: { status: "confirmed" } })).status).toBe(405);
    expect((await getReservationById(reservation.id))?.status).toBe("pending");

    expect(await api(path, { method: "PUT", params, body: { status: "completed" } })).toEqual({
      status: 400,
      body: { success: false, error: { message: "status debe ser confirmed (confirmar) o cancelled (cancelar)" } },
    });
    expect((await api(path, { method: "PUT", params, body: {} })).body.error.message).toBe("Indica el estado o las notas (status o adminNotes)");

    const confirmed = await api(path, { method: "PUT", params, body: { status: "confirmed", adminNotes: "Llega tarde" } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ status: "confirmed", adminNotes: "Llega tarde", emailSent: true });
    await waitForMail(reservation.guestEmail, `Reserva confirmada: ${reservation.reservationCode}`);

    const notes = await api(path, { method: "PUT", params, body: { adminNotes: "" } });
    expect(notes.body.data).toMatchObject({ status: "confirmed", adminNotes: null });
    expect(notes.body.data).not.toHaveProperty("emailSent");

    const refused = await api(path, { method: "PUT", params, body: { status: "confirmed", adminNotes: "no se guarda" } });
    expect(refused).toEqual({ status: 409, body: { success: false, error: { message: "Solo se puede confirmar una reserva pendiente" } } });
    expect((await getReservationById(reservation.id))?.adminNotes).toBeNull();

    const cancelled = await api(path, { method: "PUT", params, body: { status: "cancelled" } });
    expect(cancelled.body.data.status).toBe("cancelled");
    await waitForMail(reservation.guestEmail, `Reserva cancelada: ${reservation.reservationCode}`);

    expect(await api("/api/anonymous-reservations/nope/status", { method: "PUT", params: { id: "nope" }, body: { status: "cancelled" } })).toEqual({
      status: 404,
      body: { success: false, error: { message: "Reserva no encontrada" } },
    });
  });
});

describe("/admin/reservations", () => {
  async function load(search = "") {
    return callRoute(page.loader, new Request(`http://localhost/admin/reservations${search}`, { headers: { Cookie: adminCookie } }));
  }
  async function post(fields: Record<string, string>, search = "") {
    return callRoute(
      page.action,
      new Request(`http://localhost/admin/reservations${search}`, {
        method: "POST",
        headers: { Cookie: adminCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      }),
    );
  }

  it("lists, opens the details, confirms, saves notes and cancels with the SPEC's toasts", async () => {
    const reservation = await createTestReservation({ specialRequests: "Planta baja" });
    const listed = await (await load("?status=pending")).json();
    expect(listed.reservations.map((r: { _id: string }) => r._id)).toContain(reservation.id);
    const detail = await (await load(`?modal=detail&reservation=${reservation.id}`)).json();
    expect(detail.modal).toMatchObject({ name: "detail", reservation: { _id: reservation.id, specialRequests: "Planta baja" } });

    const confirmed = await post({ intent: "set-status", id: reservation.id, status: "confirmed" }, `?status=pending&modal=detail&reservation=${reservation.id}`);
    expect(confirmed.headers.get("Location")).toBe(`/admin/reservations?status=pending&modal=detail&reservation=${reservation.id}`);
    expect(await toastOf(confirmed)).toMatchObject({
      type: "success",
      title: "Estado actualizado correctamente",
      description: `Reserva ${reservation.reservationCode} confirmada. Se ha enviado un email al huésped.`,
    });

    const refused = await post({ intent: "set-status", id: reservation.id, status: "confirmed" });
    expect(refused.status).toBe(409);
    expect(await toastOf(refused)).toMatchObject({ type: "error", title: "Error al actualizar el estado", description: "Solo se puede confirmar una reserva pendiente" });

    const notes = await post({ intent: "save-notes", id: reservation.id, adminNotes: " Pide factura " }, `?modal=detail&reservation=${reservation.id}`);
    expect(await toastOf(notes)).toMatchObject({ title: "Notas actualizadas" });
    expect((await getReservationById(reservation.id))?.adminNotes).toBe("Pide factura");

    const cancelled = await post({ intent: "set-status", id: reservation.id, status: "cancelled" }, `?modal=cancel&reservation=${reservation.id}`);
    expect(cancelled.headers.get("Location")).toBe("/admin/reservations");
    expect(await toastOf(cancelled)).toMatchObject({ description: `Reserva ${reservation.reservationCode} cancelada. Se ha enviado un email al huésped.` });
    expect((await getReservationById(reservation.id))?.status).toBe("cancelled");
  });

  it("sends residents away", async () => {
    const resident = await sessionCookie((await createTestUser()).id);
    const response = await callRoute(page.loader, new Request("http://localhost/admin/reservations", { headers: { Cookie: resident } }));
    expect(response.headers.get("Location")).toBe("/");
  });
});
