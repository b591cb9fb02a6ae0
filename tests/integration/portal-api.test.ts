// The resident portal's JSON API besides bookings and incidents: profile,
// password, notifications, building info and the facility catalogue; with a
// bearer token or the browser's cookie, always the caller's own data.
import { describe, expect, it } from "vitest";
import { getUserByApiToken, issueApiToken } from "~/models/api-token.server";
import { insertBuildingReading } from "~/models/building-reading.server";
import { insertNotification } from "~/models/notification.server";
import { verifyLogin } from "~/models/user.server";
import * as buildingApi from "~/routes/api.user-portal.building-info";
import * as facilitiesApi from "~/routes/api.user-portal.facilities";
import * as notificationsApi from "~/routes/api.user-portal.notifications";
import * as readApi from "~/routes/api.user-portal.notifications.read";
import * as passwordApi from "~/routes/api.user-portal.password";
import * as profileApi from "~/routes/api.user-portal.profile";
import { notifyUser } from "~/services/notifications.server";
import { createTestResident, sessionCookie } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

async function bearer(userId: string) {
  return `Bearer ${(await issueApiToken(userId)).token}`;
}

describe("profile", () => {
  it("answers the caller's profile without the password hash, by token or by cookie", async () => {
    const resident = await createTestResident({ firstName: "Irene", unitNumber: "4C" });
    const byToken = await (await callRoute(profileApi.loader, jsonRequest("/api/user-portal/profile", { headers: { Authorization: await bearer(resident.id) } }))).json();
    expect(byToken).toMatchObject({ success: true, data: { _id: resident.id, firstName: "Irene", unitNumber: "4C", buildingName: "La Casona Coliving" } });
    expect(JSON.stringify(byToken)).not.toMatch(/password/i);
    const byCookie = await callRoute(profileApi.loader, jsonRequest("/api/user-portal/profile", { headers: { Cookie: await sessionCookie(resident.id) } }));
    expect((await byCookie.json()).data._id).toBe(resident.id);
  });

  it("updates the profile, refusing bad values in Spanish; a cookie's PUT must come from our own pages", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const put = (body: unknown, headers: Record<string, string> = { Authorization: token }) =>
      callRoute(profileApi.action, jsonRequest("/api/user-portal/profile", { method: "PUT", body, headers }));
    const ok = await put({ firstName: "Irene", lastName: "Sanz", email: "Irene.Sanz@Example.com", phone: "" });
    expect((await ok.json()).data).toMatchObject({ firstName: "Irene", lastName: "Sanz", email: "irene.sanz@example.com", phone: null });
    const bad = await put({ firstName: " ", email: "no-es-email", phone: "abc" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe("El nombre es requerido, El email no es válido, El teléfono no es válido");
    const crossSite = await put({ firstName: "X", email: "x@example.com" }, { Cookie: await sessionCookie(resident.id), Origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    const get = await callRoute(profileApi.action, jsonRequest("/api/user-portal/profile", { method: "DELETE", headers: { Authorization: token } }));
    expect(get.status).toBe(405);
  });
});

describe("password", () => {
  it("changes the password with the current one, ending the API tokens; refuses a wrong current one", async () => {
    const resident = await createTestResident();
    const { token } = await issueApiToken(resident.id);
    const put = (body: unknown) =>
      callRoute(passwordApi.action, jsonRequest("/api/user-portal/password", { method: "PUT", body, headers: { Authorization: `Bearer ${token}` } }));
    const wrong = await put({ currentPassword: "otra", newPassword: "una-nueva-clave" });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.message).toBe("La contraseña actual no es correcta");
    const short = await put({ currentPassword: "secreto-123", newPassword: "corta" });
    expect((await short.json()).error.message).toBe("La contraseña debe tener al menos 10 caracteres");
    const ok = await put({ currentPassword: "secreto-123", newPassword: "una-nueva-clave" });
    expect(ok.status).toBe(200);
    expect((await verifyLogin(resident.username, "una-nueva-clave")).ok).toBe(true);
    expect(await getUserByApiToken(token)).toBeFalsy();
  });

  it("locks the change for a while after 10 wrong current passwords", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const put = (currentPassword: string) =>
      callRoute(passwordApi.action, jsonRequest("/api/user-portal/password", { method: "PUT", body: { currentPassword, newPassword: "una-nueva-clave" }, headers: { Authorization: token } }));
    for (let i = 0; i < 10; i++) expect((await put(`mal-${i}`)).status).toBe(400);
    const locked = await put("secreto-123");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("Retry-After")).toBeTruthy();
    expect((await verifyLogin(resident.username, "secreto-123")).ok).toBe(true);
  });
});

describe("notifications", () => {
  it("lists the caller's notifications newest first, and marks them all read", async () => {
    const [ana, ben] = [await createTestResident(), await createTestResident()];
    await insertNotification(ana.id, { type: "card", title: "Primera", message: "1" }, new Date(Date.now() - 60_000));
    await notifyUser(ana.id, { type: "booking", title: "Segunda", message: "2" });
    await notifyUser(ben.id, { type: "info", title: "De Ben", message: "3" });
    const token = await bearer(ana.id);
    const list = await (await callRoute(notificationsApi.loader, jsonRequest("/api/user-portal/notifications", { headers: { Authorization: token } }))).json();
    expect(list.data.unread).toBe(2);
    expect(list.data.notifications.map((n: { title: string }) => n.title)).toEqual(["Segunda", "Primera"]);
    expect(list.data.notifications[0]).toEqual({ _id: expect.any(String), type: "booking", title: "Segunda", message: "2", read: false, createdAt: expect.any(String) });
    const read = await callRoute(readApi.action, jsonRequest("/api/user-portal/notifications/read", { method: "PUT", headers: { Authorization: token } }));
    expect((await read.json()).data).toEqual({ marked: 2 });
    const after = await (await callRoute(notificationsApi.loader, jsonRequest("/api/user-portal/notifications", { headers: { Authorization: token } }))).json();
    expect(after.data.unread).toBe(0);
    const bens = await (await callRoute(notificationsApi.loader, jsonRequest("/x", { headers: { Authorization: await bearer(ben.id) } }))).json();
    expect(bens.data.unread).toBe(1);
  });
});

describe("building info and facilities", () => {
  it("answers the latest reading of the last hour, else the defaults", async () => {
    const resident = await createTestResident();
    const token = await bearer(resident.id);
    const get = async () => (await (await callRoute(buildingApi.loader, jsonRequest("/api/user-portal/building-info", { headers: { Authorization: token } }))).json()).data;
    expect(await get()).toEqual({ temperature: 22, humidity: 45, wifiStatus: "Conectado", recordedAt: null, isDefault: true });
    const recordedAt = new Date(Date.now() - 5 * 60_000);
    await insertBuildingReading({ temperature: 20.5, humidity: 48.2, wifiStatus: "Conectado", recordedAt });
    await insertBuildingReading({ temperature: 18, humidity: 70, wifiStatus: "Conectado", recordedAt: new Date(recordedAt.getTime() - 60_000) });
    expect(await get()).toEqual({ temperature: 20.5, humidity: 48.2, wifiStatus: "Conectado", recordedAt: recordedAt.toISOString(), isDefault: false });
    expect((await callRoute(buildingApi.loader, jsonRequest("/api/user-portal/building-info"))).status).toBe(401);
  });

  it("lists the facility catalogue of the SPEC", async () => {
    const resident = await createTestResident();
    const body = await (await callRoute(facilitiesApi.loader, jsonRequest("/api/user-portal/facilities", { headers: { Authorization: await bearer(resident.id) } }))).json();
    const catalogue = body.data.filter((f: { _id: string }) => !f._id.startsWith("test-"));
    expect(catalogue.map((f: { name: string }) => f.name)).toEqual([
      "Sala de Reuniones A",
      "Sala de Reuniones B",
      "Sala de Conferencias",
      "Gimnasio Principal",
      "Sala de Yoga",
      "Piscina Principal",
      "Jacuzzi",
      "Estacionamiento Visitantes",
      "Estacionamiento Temporal",
      "Sala de Eventos Grande",
      "Sala de Eventos Pequeña",
    ]);
    expect(catalogue[0]).toEqual({ _id: "sala-reuniones-a", type: "meeting-room", typeLabel: "Salas de Reuniones", name: "Sala de Reuniones A", capacity: 4 });
  });
});
