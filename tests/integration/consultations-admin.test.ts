// Consultations as the admin handles them: /admin/consultations (search,
// status, stats, opening the details marks a pending one read, notes,
// delete) and the admin calls of /api/consultations.
import fs from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { getConsultationById } from "~/models/consultation.server";
import * as listRoute from "~/routes/api.consultations";
import * as consultationRoute from "~/routes/api.consultations.$id";
import * as statusRoute from "~/routes/api.consultations.$id.status";
import * as submitRoute from "~/routes/api.consultations.submit";
import * as page from "~/routes/admin.consultations";
import { composeVisitMessage } from "~/services/visitor.server";
import { getDb } from "~/utils/db.server";
import { createApiCallers, createTestConsultation, createTestUser, sessionCookie, toastOf } from "../setup/fixtures";
import { callApi, callRoute, type ApiCall, type ApiRoute } from "../setup/route";

let adminToken: string;
let residentToken: string;
let adminCookie: string;

beforeAll(async () => {
  const callers = await createApiCallers();
  ({ adminToken, residentToken } = callers);
  adminCookie = await sessionCookie(callers.admin.id);
});

/** Calls an API route function with the admin's token unless told otherwise. */
const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });

const unique = () => Math.random().toString(36).slice(2, 8);

describe("API authentication", () => {
  const routes = [
    { name: "GET /api/consultations", fn: listRoute.loader, path: "/api/consultations", method: "GET", params: {} },
    { name: "PUT /api/consultations/{id}/status", fn: statusRoute.action, path: "/api/consultations/x/status", method: "PUT", params: { id: "x" }, body: { status: "read" } },
    { name: "DELETE /api/consultations/{id}", fn: consultationRoute.action, path: "/api/consultations/x", method: "DELETE", params: { id: "x" } },
  ] as const;
  for (const route of routes) {
    it(`${route.name}: 401 without a token, 403 with a resident's`, async () => {
      const body = "body" in route ? route.body : undefined;
      expect(await call(route.fn, route.path, { method: route.method, params: route.params, body, token: null })).toEqual({
        status: 401,
        body: { success: false, error: { message: "No autenticado" } },
      });
      expect(await call(route.fn, route.path, { method: route.method, params: route.params, body, token: residentToken })).toEqual({
        status: 403,
        body: { success: false, error: { message: "Acceso denegado" } },
      });
    });
  }

  it("answers 405 for other methods, and the public submit stays where it was", async () => {
    expect((await call(listRoute.action, "/api/consultations", { method: "POST", body: {} })).status).toBe(405);
    expect((await call(consultationRoute.loader, "/api/consultations/x", { params: { id: "x" } })).status).toBe(405);
    expect((await call(statusRoute.action, "/api/consultations/x/status", { method: "POST", params: { id: "x" }, body: {} })).status).toBe(405);
    // A bad public submission is judged by the public route (400), not by an admin guard.
    expect((await call(submitRoute.action, "/api/consultations/submit", { method: "POST", body: {}, token: null })).status).toBe(400);
  });
});

describe("GET /api/consultations", () => {
  it("answers data.consultations, data.pagination {total, pages} and data.stats; searches name, email and message; filters by status", async () => {
    const tag = unique();
    const before = (await call(listRoute.loader, "/api/consultations")).body.data;
    const byName = await createTestConsultation({ nombre: `Rocío ${tag}` });
    const byEmail = await createTestConsultation({ email: `${tag}@example.org` });
    const byMessage = await createTestConsultation({ mensaje: `Quiero ver la casa (ref ${tag.toUpperCase()}) este mes`, kind: "visita", visitDate: "2026-12-24", visitTime: "17:00" });
    await createTestConsultation({ mensaje: "100% seguro_que no" });

    const all = (await call(listRoute.loader, "/api/consultations?page=1&limit=20")).body.data;
    expect(all.stats.total - before.stats.total).toBe(4);
    expect(all.stats.pending - before.stats.pending).toBe(4);
    expect(all.pagination).toMatchObject({ page: 1, limit: 20, total: before.pagination.total + 4 });
    expect(all.pagination.pages).toBe(Math.ceil(all.pagination.total / 20));
    expect(all.consultations[1]).toMatchObject({
      _id: byMessage.id,
      kind: "visita",
      visitDate: "2026-12-24",
      visitTime: "17:00",
      status: "pending",
      ipAddress: "192.0.2.30",
      adminNotes: null,
    });

    const found = (await call(listRoute.loader, `/api/consultations?search=${tag}`)).body.data;
    expect(found.consultations.map((c: { _id: string }) => c._id)).toEqual([byMessage.id, byEmail.id, byName.id]);
    expect(found.pagination).toEqual({ page: 1, limit: 20, total: 3, pages: 1 });
    expect(found.stats).toEqual({ total: 3, pending: 3, read: 0, replied: 0, closed: 0 });
    // `%` and `_` are plain characters, in the index (3+ characters) and in the LIKE fallback.
    const literal = (await call(listRoute.loader, `/api/consultations?search=${encodeURIComponent("0% seguro_")}`)).body.data;
    expect(literal.pagination.total).toBe(1);
    expect((await call(listRoute.loader, `/api/consultations?search=${encodeURIComponent("%")}`)).body.data.pagination.total).toBe(1);

    // From three characters on, case and accents do not matter.
    const accents = (await call(listRoute.loader, `/api/consultations?search=${encodeURIComponent(`ROCIO ${tag}`)}`)).body.data;
    expect(accents.consultations.map((c: { _id: string }) => c._id)).toEqual([byName.id]);
    // A deleted consultation leaves the index too.
    const gone = await createTestConsultation({ mensaje: `Borrable ${tag}` });
    await call(consultationRoute.action, `/api/consultations/${gone.id}`, { method: "DELETE", params: { id: gone.id } });
    expect((await call(listRoute.loader, `/api/consultations?search=borrable ${tag}`)).body.data.pagination.total).toBe(0);
    const indexed = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM consultations_search WHERE consultations_search MATCH ?", args: [`"borrable ${tag}"`] });
    expect(Number(indexed.rows[0]!.n)).toBe(0);

    await call(statusRoute.action, `/api/consultations/${byName.id}/status`, { method: "PUT", params: { id: byName.id }, body: { status: "replied" } });
    const replied = (await call(listRoute.loader, `/api/consultations?search=${tag}&status=replied`)).body.data;
    expect(replied.consultations.map((c: { _id: string }) => c._id)).toEqual([byName.id]);
    expect(replied.stats).toEqual({ total: 3, pending: 2, read: 0, replied: 1, closed: 0 });

    expect((await call(listRoute.loader, "/api/consultations?status=new")).body.error.message).toBe("status debe ser uno de: pending, read, replied, closed");
    expect((await call(listRoute.loader, `/api/consultations?search=${"x".repeat(101)}`)).body.error.message).toBe("Máximo 100 caracteres");
  });
});

describe("PUT /api/consultations/{id}/status and DELETE", () => {
  it("sets any status freely, saves notes alone, clears them, and deletes", async () => {
    const consultation = await createTestConsultation();
    const path = `/api/consultations/${consultation.id}/status`;
    const params = { id: consultation.id };
    for (const status of ["closed", "pending", "read", "replied"]) {
      const response = await call(statusRoute.action, path, { method: "PUT", params, body: { status } });
      expect(response.status).toBe(200);
      expect(response.body.data.status).toBe(status);
    }
    const notes = await call(statusRoute.action, path, { method: "PUT", params, body: { adminNotes: " Llamar el lunes " } });
    expect(notes.body.data).toMatchObject({ status: "replied", adminNotes: "Llamar el lunes" });
    expect((await call(statusRoute.action, path, { method: "PUT", params, body: { adminNotes: null } })).body.data.adminNotes).toBeNull();
    expect((await call(statusRoute.action, path, { method: "PUT", params, body: { status: "archived" } })).body.error.message).toBe(
      "status debe ser uno de: pending, read, replied, closed",
    );
    expect((await call(statusRoute.action, path, { method: "PUT", params, body: {} })).body.error.message).toBe("Indica el estado o las notas (status o adminNotes)");

    expect(await call(consultationRoute.action, `/api/consultations/${consultation.id}`, { method: "DELETE", params })).toEqual({
      status: 200,
      body: { success: true, data: { _id: consultation.id } },
    });
    expect(await getConsultationById(consultation.id)).toBeUndefined();
    const notFound = { status: 404, body: { success: false, error: { message: "Consulta no encontrada" } } };
    expect(await call(consultationRoute.action, `/api/consultations/${consultation.id}`, { method: "DELETE", params })).toEqual(notFound);
    expect(await call(statusRoute.action, path, { method: "PUT", params, body: { status: "read" } })).toEqual(notFound);
  });
});

describe("/admin/consultations", () => {
  async function load(search = "", cookie = adminCookie) {
    return callRoute(page.loader, new Request(`http://localhost/admin/consultations${search}`, { headers: { Cookie: cookie } }));
  }
  async function post(fields: Record<string, string>, search = "") {
    return callRoute(
      page.action,
      new Request(`http://localhost/admin/consultations${search}`, {
        method: "POST",
        headers: { Cookie: adminCookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      }),
    );
  }

  it("sends residents away", async () => {
    const resident = await sessionCookie((await createTestUser()).id);
    expect((await load("", resident)).headers.get("Location")).toBe("/");
  });

  it("searches, pages by 20 and clamps a page past the last", async () => {
    const tag = unique();
    for (let i = 0; i < 21; i++) await createTestConsultation({ nombre: `Serie ${tag} ${i}` });
    const first = await (await load(`?search=${tag}`)).json();
    expect(first).toMatchObject({ total: 21, page: 1, pages: 2, filters: { search: tag } });
    expect(first.consultations[0].nombre).toBe(`Serie ${tag} 20`);
    const last = await (await load(`?search=${tag}&page=7`)).json();
    expect(last.page).toBe(2);
    expect(last.consultations.map((c: { nombre: string }) => c.nombre)).toEqual([`Serie ${tag} 0`]);
    const odd = await (await load(`?search=${tag}&status=nuevo`)).json();
    expect(odd.filters).toEqual({ search: tag });
  });

  it("opening a pending consultation's details marks it read (and only a pending one); viewing the message does not", async () => {
    const pending = await createTestConsultation();
    const message = await (await load(`?modal=message&consultation=${pending.id}`)).json();
    expect(message.modal).toMatchObject({ name: "message", consultation: { _id: pending.id, status: "pending" } });
    expect((await getConsultationById(pending.id))?.status).toBe("pending");

    const opened = await post({ intent: "open-details", id: pending.id }, "?search=x");
    expect(opened.headers.get("Location")).toBe(`/admin/consultations?search=x&modal=detail&consultation=${pending.id}`);
    expect(await toastOf(opened)).toBeNull();
    expect((await getConsultationById(pending.id))?.status).toBe("read");

    await post({ intent: "set-status", id: pending.id, status: "pending" }, `?modal=detail&consultation=${pending.id}`);
    // Reloading the open details (e.g. after that change) does not mark it again.
    const detail = await (await load(`?modal=detail&consultation=${pending.id}`)).json();
    expect(detail.modal.consultation.status).toBe("pending");

    const replied = await createTestConsultation();
    await post({ intent: "set-status", id: replied.id, status: "replied" });
    await post({ intent: "open-details", id: replied.id });
    expect((await getConsultationById(replied.id))?.status).toBe("replied");

    const missing = await post({ intent: "open-details", id: "nope" });
    expect(missing.status).toBe(404);
    expect(await toastOf(missing)).toMatchObject({ type: "error", description: "Consulta no encontrada" });
  });

  it("changes the status and saves notes with the SPEC's toasts, redirecting without JavaScript and answering in place with it", async () => {
    const consultation = await createTestConsultation({ nombre: "Begoña" });
    const changed = await post({ intent: "set-status", id: consultation.id, status: "closed" }, "?status=pending&index");
    expect(changed.status).toBe(302);
    expect(changed.headers.get("Location")).toBe("/admin/consultations?status=pending");
    expect(await toastOf(changed)).toMatchObject({ type: "success", title: "Estado actualizado", description: "Consulta de Begoña: Cerrada" });

    const inPlace = await post({ intent: "set-status", id: consultation.id, status: "read", stayOnPage: "1" });
    expect(inPlace.status).toBe(200);
    expect(await inPlace.json()).toEqual({ intent: "set-status", result: { status: "success" } });
    expect(await toastOf(inPlace)).toMatchObject({ title: "Estado actualizado", description: "Consulta de Begoña: Leída" });

    const refused = await post({ intent: "set-status", id: consultation.id, status: "archived" });
    expect(refused.status).toBe(400);
    expect(await toastOf(refused)).toMatchObject({ type: "error", title: "No se pudo actualizar el estado" });
    expect((await getConsultationById(consultation.id))?.status).toBe("read");

    const notes = await post({ intent: "save-notes", id: consultation.id, adminNotes: "Interesada en enero", stayOnPage: "1" });
    expect(await toastOf(notes)).toMatchObject({ title: "Notas actualizadas", description: "Consulta de Begoña" });
    expect((await getConsultationById(consultation.id))?.adminNotes).toBe("Interesada en enero");
    const tooLong = await post({ intent: "save-notes", id: consultation.id, adminNotes: "x".repeat(2001) });
    expect(await toastOf(tooLong)).toMatchObject({ title: "No se pudieron guardar las notas", description: "Máximo 2000 caracteres" });
    const gone = await post({ intent: "save-notes", id: "nope", adminNotes: "x" });
    expect(await toastOf(gone)).toMatchObject({ title: "No se pudieron guardar las notas", description: "Consulta no encontrada" });
  });

  it("deletes after the confirmation naming the sender", async () => {
    const consultation = await createTestConsultation({ nombre: "Xuan" });
    const deleted = await post({ intent: "delete-consultation", id: consultation.id }, `?modal=delete&consultation=${consultation.id}`);
    expect(deleted.headers.get("Location")).toBe("/admin/consultations");
    expect(await toastOf(deleted)).toMatchObject({ title: "Consulta eliminada", description: "Consulta de Xuan" });
    const again = await post({ intent: "delete-consultation", id: consultation.id });
    expect(await toastOf(again)).toMatchObject({ title: "No se pudo eliminar la consulta", description: "Consulta no encontrada" });
  });
});

describe("migration …_backfill_visit_fields", () => {
  it("reads the day and hour back from visit requests stored before the columns existed", async () => {
    const mensaje = composeVisitMessage({ fecha: "2027-02-03", hora: "10:00", comentarios: "Con perro" });
    const older = await createTestConsultation({ kind: "visita", mensaje });
    const enquiry = await createTestConsultation({ mensaje: "Fecha preferida: ninguna" });
    expect((await getConsultationById(older.id))?.visitDate).toBeNull();
    const file = fs.readdirSync("drizzle").find((name) => name.endsWith("_backfill_visit_fields.sql"))!;
    const sql = fs.readFileSync(`drizzle/${file}`, "utf8");
    await getDb().$client.executeMultiple(sql);
    expect(await getConsultationById(older.id)).toMatchObject({ visitDate: "2027-02-03", visitTime: "10:00" });
    expect(await getConsultationById(enquiry.id)).toMatchObject({ visitDate: null, visitTime: null });
  });
});
