// Residents' incidents through the JSON API (JSON and multipart with
// photos) and the services: the one incident store, photo rules checked by
// their bytes with nothing half-stored, photos served only to the reporter
// and admins, edits only while open, and the admin's status change that
// notifies the resident.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { issueApiToken } from "~/models/api-token.server";
import { createPublicIncident, getIncidentById } from "~/models/incident.server";
import { listNotificationsOfUser } from "~/models/notification.server";
import * as incidentsApi from "~/routes/api.user-portal.incidents";
import * as incidentApi from "~/routes/api.user-portal.incidents.$id";
import * as cancelApi from "~/routes/api.user-portal.incidents.$id.cancel";
import * as photoApi from "~/routes/api.user-portal.incidents.$id.photos.$name";
import { changeIncidentStatus } from "~/services/incidents.server";
import { cancelResidentIncident, editResidentIncident, reportResidentIncident } from "~/services/resident-incidents.server";
import { savePhotoFiles } from "~/models/incident-photo.server";
import { removeOrphanPhotos } from "~/boot.server";
import { getDb } from "~/utils/db.server";
import { createTestResident, createTestUser, TINY_JPEG, TINY_PNG, TINY_WEBP } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const FIELDS = { title: "Grifo que gotea", category: "plumbing", location: "Baño", description: "Gotea toda la noche", priority: "high" } as const;
const photoDir = () => path.join(process.env.DATA_DIR!, "uploads", "incidents");
const storedPhotos = () => (fs.existsSync(photoDir()) ? fs.readdirSync(photoDir()) : []);

async function bearer(userId: string) {
  return `Bearer ${(await issueApiToken(userId)).token}`;
}

function multipart(token: string, fields: Record<string, string>, files: { name: string; bytes: Uint8Array; type?: string }[]) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append("photos", new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "image/png" }), file.name);
  return new Request("http://localhost/api/user-portal/incidents", { method: "POST", headers: { Authorization: token }, body: form });
}

async function countIncidentsTitled(title: string) {
  const result = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM incidents WHERE title = ?", args: [title] });
  return Number(result.rows[0]!.n);
}

function getPhoto(url: string, token: string) {
  const [, , , , id, , name] = url.split("/");
  return callRoute(photoApi.loader, jsonRequest(url, { headers: { Authorization: token } }), { id: id!, name: name! });
}

describe("reporting", () => {
  it("refuses a body that claims to be multipart but is cut short, storing nothing", async () => {
    const resident = await createTestResident();
    const request = new Request("http://localhost/api/user-portal/incidents", {
      method: "POST",
      headers: { Authorization: await bearer(resident.id), "Content-Type": "multipart/form-data; boundary=zzz" },
      body: '--zzz\r\nContent-Disposition: form-data; name="title"\r\n\r\nCortado',
    });
    const response = await callRoute(incidentsApi.action, request);
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe("El formulario enviado no es válido");
    expect(await countIncidentsTitled("Cortado")).toBe(0);
  });

  it("stores a JSON report in the one incident store, as the admins see incidents", async () => {
    const resident = await createTestResident({ firstName: "Lucía", lastName: "Pérez" });
    const response = await callRoute(
      incidentsApi.action,
      jsonRequest("/api/user-portal/incidents", { method: "POST", body: { ...FIELDS, priority: undefined }, headers: { Authorization: await bearer(resident.id) } }),
    );
    expect(response.status).toBe(201);
    const { data } = await response.json();
    expect(data).toMatchObject({ title: FIELDS.title, category: "plumbing", priority: "medium", status: "open", photos: [], editable: true });
    const stored = await getIncidentById(data._id);
    expect(stored).toMatchObject({ source: "resident", type: "maintenance", urgency: "medium", reportedById: resident.id, reporterName: "Lucía Pérez" });
  });

  it("takes photos as multipart, stores them under the data directory with random names, and serves them to the reporter and admins only", async () => {
    const resident = await createTestResident();
    const other = await createTestResident();
    const admin = await createTestUser({ role: "admin" });
    const token = await bearer(resident.id);
    const response = await callRoute(
      incidentsApi.action,
      multipart(token, { ...FIELDS, title: "Con fotos" }, [
        { name: "grifo.png", bytes: TINY_PNG },
        // The name lies; the bytes decide.
        { name: "foto.png", bytes: TINY_JPEG, type: "image/png" },
        { name: "webp", bytes: TINY_WEBP, type: "application/octet-stream" },
      ]),
    );
    expect(response.status).toBe(201);
    const { data } = await response.json();
    expect(data.photos).toHaveLength(3);
    const names = data.photos.map((url: string) => url.split("/").pop());
    expect(names[0]).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(names[1]).toMatch(/^[0-9a-f]{32}\.jpg$/);
    expect(names[2]).toMatch(/^[0-9a-f]{32}\.webp$/);
    expect(storedPhotos()).toEqual(expect.arrayContaining(names));
    expect(fs.existsSync(path.resolve("public", names[0]))).toBe(false);

    const mine = await getPhoto(data.photos[1], token);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("Content-Type")).toBe("image/jpeg");
    expect(mine.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(Buffer.from(await mine.arrayBuffer()).equals(TINY_JPEG)).toBe(true);
    expect((await getPhoto(data.photos[0], await bearer(admin.id))).headers.get("Content-Type")).toBe("image/png");

    const theirs = await getPhoto(data.photos[0], await bearer(other.id));
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual({ success: false, error: { message: "Foto no encontrada" } });
    // A name that is not one of this incident's photos, even with a path in it.
    const id = data._id as string;
    for (const name of ["0".repeat(32) + ".png", "../app.db", names[0].replace(".png", ".jpg")]) {
      expect((await callRoute(photoApi.loader, jsonRequest("/x", { headers: { Authorization: token } }), { id, name })).status).toBe(404);
    }
  });

  it("refuses a text file named .png, too many photos and a photo over 5 MB, storing nothing", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const before = storedPhotos().length;
    const cases = [
      { files: [{ name: "ok.png", bytes: TINY_PNG }, { name: "notas.png", bytes: Buffer.from("hola, esto es texto\n") }], status: 415, message: "notas.png: Solo se admiten fotos JPEG, PNG o WebP" },
      { files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.png`, bytes: TINY_PNG })), status: 413, message: "Puedes adjuntar como máximo 5 fotos" },
      { files: [{ name: "enorme.png", bytes: Buffer.concat([TINY_PNG, Buffer.alloc(5 * 1024 * 1024)]) }], status: 413, message: "enorme.png: Cada foto puede ocupar como máximo 5 MB" },
    ];
    for (const [i, { files, status, message }] of cases.entries()) {
      const title = `Rechazada ${i} ${resident.id}`;
      const response = await callRoute(incidentsApi.action, multipart(token, { ...FIELDS, title }, files));
      expect(response.status, message).toBe(status);
      expect(await response.json()).toEqual({ success: false, error: { message } });
      expect(await countIncidentsTitled(title)).toBe(0);
    }
    expect(storedPhotos()).toHaveLength(before);
  });

  it("decodes each photo's header: a bare signature or a cut header is refused (415), storing nothing", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const before = storedPhotos().length;
    const fakes = {
      "firma.png": TINY_PNG.subarray(0, 8),
      "cabecera-cortada.png": TINY_PNG.subarray(0, 20),
      "sin-tamano.png": Buffer.concat([TINY_PNG.subarray(0, 16), Buffer.alloc(8), TINY_PNG.subarray(24)]),
      "firma.jpg": Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]),
      "firma.webp": Buffer.from("RIFF\x16\x00\x00\x00WEBPVP8 ", "latin1"),
      "animada.gif": Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00", "latin1"),
    };
    for (const [name, bytes] of Object.entries(fakes)) {
      const title = `Falsa ${name} ${resident.id}`;
      const response = await callRoute(incidentsApi.action, multipart(token, { ...FIELDS, title }, [{ name, bytes }]));
      expect(response.status, name).toBe(415);
      expect((await response.json()).error.message).toBe(`${name}: Solo se admiten fotos JPEG, PNG o WebP`);
      expect(await countIncidentsTitled(title)).toBe(0);
    }
    expect(storedPhotos()).toHaveLength(before);
  });

  it("refuses an oversized text field and a body over the limit without reading it", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const title = `Enorme ${resident.id}`;
    const huge = await callRoute(incidentsApi.action, multipart(token, { ...FIELDS, title, description: "x".repeat(70 * 1024) }, []));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ success: false, error: { message: "La solicitud es demasiado grande" } });
    const declared = new Request("http://localhost/api/user-portal/incidents", {
      method: "POST",
      headers: { Authorization: token, "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(27 * 1024 * 1024) },
      body: "--x--",
    });
    expect((await callRoute(incidentsApi.action, declared)).status).toBe(413);
    expect(await countIncidentsTitled(title)).toBe(0);
  });

  it("refuses missing fields in Spanish", async () => {
    const resident = await createTestResident();
    const response = await callRoute(
      incidentsApi.action,
      jsonRequest("/api/user-portal/incidents", { method: "POST", body: { category: "lava" }, headers: { Authorization: await bearer(resident.id) } }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe("El título es requerido, La categoría es requerida, La ubicación es requerida, La descripción es requerida");
  });
});

describe("photo files left by a crash", () => {
  it("are deleted by the start-up sweep once an hour old; files of stored incidents and fresh files stay", async () => {
    const resident = await createTestResident();
    const reported = await reportResidentIncident(resident, FIELDS, [{ filename: "a.png", bytes: TINY_PNG }]);
    if (!reported.ok) throw new Error(reported.message);
    const kept = path.basename(reported.incident.photos[0]!);
    // What a crash between writing the files and storing the incident leaves: files and no row.
    const [orphan, fresh] = await savePhotoFiles([
      { bytes: TINY_JPEG, type: "jpeg" },
      { bytes: TINY_WEBP, type: "webp" },
    ]);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const name of [kept, orphan!]) fs.utimesSync(path.join(photoDir(), name), twoHoursAgo, twoHoursAgo);

    expect(await removeOrphanPhotos()).toBeGreaterThanOrEqual(1);
    const files = storedPhotos();
    expect(files).not.toContain(orphan);
    expect(files).toContain(kept);
    expect(files).toContain(fresh);
    expect((await getPhoto(reported.incident.photos[0]!, await bearer(resident.id))).status).toBe(200);
  });
});

describe("editing and cancelling", () => {
  it("edits and cancels only the reporter's own incidents, only while open", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    const admin = await createTestUser({ role: "admin" });
    const reported = await reportResidentIncident(ana, { ...FIELDS, title: "Luz fundida", category: "electrical" });
    if (!reported.ok) throw new Error(reported.message);
    const id = reported.incident._id;
    const put = (token: string, body: unknown) =>
      callRoute(incidentApi.action, jsonRequest(`/api/user-portal/incidents/${id}`, { method: "PUT", body, headers: { Authorization: token } }), { id });

    const foreign = await put(await bearer(ben.id), { ...FIELDS, title: "Ajeno" });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.message).toBe("Incidencia no encontrada");
    expect((await callRoute(incidentApi.loader, jsonRequest("/x", { headers: { Authorization: await bearer(ben.id) } }), { id })).status).toBe(404);
    expect(await cancelResidentIncident(ben, id)).toMatchObject({ ok: false, status: 404 });

    const edited = await put(await bearer(ana.id), { ...FIELDS, title: "Luz del pasillo", priority: "critical" });
    expect(edited.status).toBe(200);
    expect((await edited.json()).data).toMatchObject({ title: "Luz del pasillo", priority: "critical", status: "open" });

    await changeIncidentStatus(id, "in-progress", admin);
    const late = await put(await bearer(ana.id), FIELDS);
    expect(late.status).toBe(409);
    expect((await late.json()).error.message).toBe("Solo se pueden editar incidencias abiertas");
    const cancel = await callRoute(cancelApi.action, jsonRequest(`/x`, { method: "PUT", headers: { Authorization: await bearer(ana.id) } }), { id });
    expect(cancel.status).toBe(409);
    expect((await cancel.json()).error.message).toBe("Solo se pueden cancelar incidencias abiertas");
    expect((await getIncidentById(id))?.title).toBe("Luz del pasillo");

    const another = await reportResidentIncident(ana, FIELDS);
    if (!another.ok) throw new Error(another.message);
    expect(await cancelResidentIncident(ana, another.incident._id)).toMatchObject({ ok: true, incident: { status: "cancelled", editable: false } });
    expect(await editResidentIncident(ana, another.incident._id, FIELDS)).toMatchObject({ ok: false, status: 409 });
  });
});

describe("a partial edit through the API", () => {
  it("changes only the fields sent: a PUT without priority keeps the stored one; an empty body is a 400", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const reported = await reportResidentIncident(resident, { ...FIELDS, priority: "critical" });
    if (!reported.ok) throw new Error(reported.message);
    const id = reported.incident._id;
    const put = (body: unknown) =>
      callRoute(incidentApi.action, jsonRequest(`/api/user-portal/incidents/${id}`, { method: "PUT", body, headers: { Authorization: token } }), { id });

    const retitled = await put({ title: "Grifo roto", category: "other", location: "Cocina", description: "Ya no cierra" });
    expect(retitled.status).toBe(200);
    expect((await retitled.json()).data).toMatchObject({ title: "Grifo roto", category: "other", location: "Cocina", priority: "critical" });
    const moved = await put({ location: "Baño grande" });
    expect((await moved.json()).data).toMatchObject({ title: "Grifo roto", location: "Baño grande", description: "Ya no cierra", priority: "critical" });
    expect(await getIncidentById(id)).toMatchObject({ urgency: "critical", type: "other", category: "other" });

    const empty = await put({});
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.message).toBe("No hay cambios que guardar");
    expect((await put({ priority: "urgentísima" })).status).toBe(400);
    expect((await put({ title: " " })).status).toBe(400);
    expect((await getIncidentById(id))?.title).toBe("Grifo roto");
  });
});

describe("an admin's status change", () => {
  it("notifies the resident who reported the incident, once per change", async () => {
    const resident = await createTestResident();
    const admin = await createTestUser({ role: "admin" });
    const reported = await reportResidentIncident(resident, { ...FIELDS, title: "Calefacción apagada", category: "hvac" });
    if (!reported.ok) throw new Error(reported.message);
    expect(await changeIncidentStatus(reported.incident._id, "resolved", admin)).toMatchObject({ ok: true, incident: { status: "resolved" } });
    const [notification] = await listNotificationsOfUser(resident.id);
    expect(notification).toMatchObject({ type: "incident", title: "Incidencia actualizada", read: false });
    expect(notification?.message).toBe("Tu incidencia «Calefacción apagada» está ahora resuelta.");
    // The same status again changes nothing and tells nobody.
    expect(await changeIncidentStatus(reported.incident._id, "resolved", admin)).toMatchObject({ ok: true });
    expect(await listNotificationsOfUser(resident.id)).toHaveLength(1);
    expect(await changeIncidentStatus("nope", "closed", admin)).toMatchObject({ ok: false, status: 404 });
  });

  it("notifies nobody for a public report", async () => {
    const admin = await createTestUser({ role: "admin" });
    const publicReport = await createPublicIncident({ nombre: "Vecino", departamento: "2", tipo: "otro", ubicacion: "Portal", descripcion: "Puerta", urgencia: "baja" });
    const before = await getDb().$client.execute("SELECT count(*) AS n FROM notifications");
    expect(await changeIncidentStatus(publicReport.id, "closed", admin)).toMatchObject({ ok: true, incident: { status: "closed" } });
    const after = await getDb().$client.execute("SELECT count(*) AS n FROM notifications");
    expect(Number(after.rows[0]!.n)).toBe(Number(before.rows[0]!.n));
  });
});
