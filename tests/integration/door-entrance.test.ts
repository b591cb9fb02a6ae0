// The door field isEntrance ('Acceso principal', issue 29): the API reads and
// writes it, the dashboard's door form sets and clears it with its checkbox,
// and each change leaves its audit event.
import { beforeAll, describe, expect, it } from "vitest";
import { getLastAuditEvent } from "~/models/audit-event.server";
import { getDoorById } from "~/models/door.server";
import * as dashboard from "~/routes/admin._index";
import * as doorRoute from "~/routes/api.doors.$id";
import * as doorsRoute from "~/routes/api.doors";
import { createApiCallers, createTestDoor, createTestUser, hexPrefix, sessionCookie } from "../setup/fixtures";
import { callApi, callRoute, formPost } from "../setup/route";

let adminToken = "";
beforeAll(async () => {
  ({ adminToken } = await createApiCallers());
});

const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

describe("isEntrance on /api/doors", () => {
  it("is false unless sent, is read back by GET and changed alone by PUT, with its audit event", async () => {
    const code = `ent-${hexPrefix(3).toLowerCase()}`;
    const plain = await callApi(doorsRoute.action, "/api/doors", { method: "POST", token: adminToken, body: { name: "Patio", location: "PB", doorId: `${code}-p` } });
    expect(plain.status).toBe(201);
    expect(plain.body.data.isEntrance).toBe(false);

    const created = await callApi(doorsRoute.action, "/api/doors", {
      method: "POST",
      token: adminToken,
      body: { name: "Portal", location: "PB", doorId: code, isEntrance: true },
    });
    expect(created.status).toBe(201);
    const door = created.body.data;
    expect(door.isEntrance).toBe(true);
    expect(json((await getLastAuditEvent())!.after)).toMatchObject({ isEntrance: true });

    const list = await callApi(doorsRoute.loader, "/api/doors", { token: adminToken });
    expect(list.body.data.find((row: { _id: string }) => row._id === door._id)).toMatchObject({ isEntrance: true });

    const cleared = await callApi(doorRoute.action, `/api/doors/${door._id}`, { method: "PUT", token: adminToken, params: { id: door._id }, body: { isEntrance: false } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ isEntrance: false, name: "Portal" });
    const event = (await getLastAuditEvent())!;
    expect(event).toMatchObject({ action: "door.update", entityId: door._id });
    expect([json(event.before), json(event.after)]).toEqual([{ isEntrance: true }, { isEntrance: false }]);
  });

  it("refuses a value that is not a boolean and changes nothing", async () => {
    const door = await createTestDoor();
    const refused = await callApi(doorRoute.action, `/api/doors/${door.id}`, { method: "PUT", token: adminToken, params: { id: door.id }, body: { isEntrance: "sí" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("isEntrance debe ser verdadero o falso");
    expect((await getDoorById(door.id))?.isEntrance).toBe(false);
  });
});

describe("the dashboard's door form", () => {
  it("ticks 'Acceso principal' on and off with its checkbox", async () => {
    const door = await createTestDoor();
    const cookie = await sessionCookie((await createTestUser({ role: "admin" })).id);
    const fields = { intent: "update-door", id: door.id, name: door.name, location: door.location, doorId: door.code, status: "active" };
    const ticked = await callRoute(dashboard.action, formPost(`/admin?modal=edit&door=${door.id}`, cookie, { ...fields, isEntrance: "on" }));
    expect(ticked.status).toBe(302);
    expect((await getDoorById(door.id))?.isEntrance).toBe(true);
    await callRoute(dashboard.action, formPost(`/admin?modal=edit&door=${door.id}`, cookie, fields));
    expect((await getDoorById(door.id))?.isEntrance).toBe(false);
  });
});
