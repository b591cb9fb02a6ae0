// /api/access-groups*, /api/settings and users' `accessGroups`: the shape
// docs/api.md gives, admin only, Spanish refusals that change nothing, and a
// new resident joining the default group. The doors' side (decisions and
// offline lists) is in access-groups-doors.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import * as groupRoute from "~/routes/api.access-groups.$id";
import * as groupsRoute from "~/routes/api.access-groups";
import * as settingsRoute from "~/routes/api.settings";
import * as usersRoute from "~/routes/api.users";
import * as userRoute from "~/routes/api.users.$id";
import { createApiCallers, createTestDoor, unique } from "../setup/fixtures";
import { callApi, type ApiCall, type ApiRoute } from "../setup/route";

let adminToken: string;
let residentToken: string;

beforeAll(async () => {
  ({ adminToken, residentToken } = await createApiCallers());
});

const call = (fn: ApiRoute, path: string, options: ApiCall = {}) => callApi(fn, path, { token: adminToken, ...options });
const weekdays = [{ days: [1, 2, 3, 4, 5], from: "08:00", to: "20:00" }];

async function newGroup(doors: { doorId: string; schedule?: unknown }[] = [], name = `Grupo ${unique()}`) {
  const created = await call(groupsRoute.action, "/api/access-groups", { method: "POST", body: { name, doors } });
  expect(created.status).toBe(201);
  return created.body.data as { _id: string; name: string; doors: { doorId: string; schedule: unknown }[] };
}

describe("/api/access-groups", () => {
  it("creates, reads, lists, changes and deletes a group, doors named by their code", async () => {
    const entrance = await createTestDoor();
    const gym = await createTestDoor();
    const group = await newGroup([{ doorId: entrance.code }, { doorId: gym.code, schedule: weekdays }]);
    expect(group).toMatchObject({
      name: expect.stringMatching(/^Grupo /),
      doors: expect.arrayContaining([
        { doorId: entrance.code, doorName: entrance.name, schedule: [] },
        { doorId: gym.code, doorName: gym.name, schedule: weekdays },
      ]),
      memberCount: 0,
    });

    const read = await call(groupRoute.loader, "/api/access-groups/x", { params: { id: group._id } });
    expect(read.body.data).toEqual(group);
    const list = await call(groupsRoute.loader, "/api/access-groups");
    expect(list.body.data.map((g: { _id: string }) => g._id)).toContain(group._id);

    // PUT changes only what it is sent: the name alone keeps the doors.
    const renamed = await call(groupRoute.action, "/api/access-groups/x", { method: "PUT", params: { id: group._id }, body: { name: `${group.name} bis` } });
    expect(renamed.body.data).toMatchObject({ name: `${group.name} bis`, doors: group.doors });
    const moved = await call(groupRoute.action, "/api/access-groups/x", { method: "PUT", params: { id: group._id }, body: { doors: [{ doorId: gym.id }] } });
    expect(moved.body.data.doors).toEqual([{ doorId: gym.code, doorName: gym.name, schedule: [] }]);

    const deleted = await call(groupRoute.action, "/api/access-groups/x", { method: "DELETE", params: { id: group._id } });
    expect(deleted.status).toBe(200);
    expect((await call(groupRoute.loader, "/api/access-groups/x", { params: { id: group._id } })).body).toEqual({
      success: false,
      error: { message: "Grupo de acceso no encontrado" },
    });
  });

  it("refuses bad input with Spanish messages and changes nothing", async () => {
    const door = await createTestDoor();
    const name = `Grupo ${unique()}`;
    const cases: [unknown, number, RegExp][] = [
      [{ name: "" }, 400, /nombre es requerido/],
      [{ name, doors: [{ doorId: "no-such-door" }] }, 400, /La puerta «no-such-door» no existe/],
      [{ name, doors: [{ doorId: door.code, schedule: [{ days: [1], from: "20:00", to: "08:00" }] }] }, 400, /franja/],
      [{ name, doors: [{ doorId: door.code, schedule: [{ days: [8], from: "08:00", to: "09:00" }] }] }, 400, /franja|7/],
      [{ name, doors: [{ doorId: door.code, schedule: [{ days: [1], from: "8:00", to: "09:00" }] }] }, 400, /./],
    ];
    for (const [body, status, message] of cases) {
      const refused = await call(groupsRoute.action, "/api/access-groups", { method: "POST", body });
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(refused.body.error.message).toMatch(message);
    }
    const list = await call(groupsRoute.loader, "/api/access-groups");
    expect(list.body.data.some((g: { name: string }) => g.name === name)).toBe(false);

    await newGroup([], name);
    const clash = await call(groupsRoute.action, "/api/access-groups", { method: "POST", body: { name: name.toUpperCase() } });
    expect(clash).toMatchObject({ status: 409, body: { error: { message: `Ya existe un grupo de acceso llamado «${name.toUpperCase()}»` } } });
    const empty = await call(groupRoute.action, "/api/access-groups/x", { method: "PUT", params: { id: "x" }, body: {} });
    expect(empty.status).toBe(400);
  });

  it("is for admins only", async () => {
    for (const [fn, method] of [
      [groupsRoute.loader, "GET"],
      [groupsRoute.action, "POST"],
      [groupRoute.loader, "GET"],
      [groupRoute.action, "DELETE"],
      [settingsRoute.loader, "GET"],
      [settingsRoute.action, "PUT"],
    ] as const) {
      const body = method === "GET" ? undefined : { name: "x" };
      const resident = await call(fn, "/api/access-groups", { method, token: residentToken, params: { id: "x" }, body });
      expect(resident.status).toBe(403);
    }
  });
});

describe("users' access groups and the default group", () => {
  it("a fresh install has 'Residentes' (the default) and 'Coworking'; a new resident joins the default group", async () => {
    const list = (await call(groupsRoute.loader, "/api/access-groups")).body.data as { _id: string; name: string }[];
    expect(list.map((g) => g.name)).toEqual(expect.arrayContaining(["Residentes", "Coworking"]));
    const settings = await call(settingsRoute.loader, "/api/settings");
    expect(settings.body.data).toEqual({ defaultAccessGroupId: "residentes" });

    const username = `res-${unique()}`;
    const created = await call(usersRoute.action, "/api/users", {
      method: "POST",
      body: { username, email: `${username}@example.com`, password: "hórreo-de-la-abuela", role: "user" },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.accessGroups).toEqual(["residentes"]);
    const adminName = `adm-${unique()}`;
    const admin = await call(usersRoute.action, "/api/users", {
      method: "POST",
      body: { username: adminName, email: `${adminName}@example.com`, password: "hórreo-de-la-abuela", role: "admin" },
    });
    expect(admin.body.data.accessGroups).toEqual([]);
  });

  it("PUT /api/users/{id} sets accessGroups; left out, they stay; an unknown group is refused", async () => {
    const group = await newGroup();
    const username = `res-${unique()}`;
    const body = { username, email: `${username}@example.com`, role: "user" };
    const created = await call(usersRoute.action, "/api/users", { method: "POST", body: { ...body, password: "hórreo-de-la-abuela", accessGroups: [] } });
    const id = created.body.data._id as string;
    expect(created.body.data.accessGroups).toEqual([]);

    const joined = await call(userRoute.action, "/api/users/x", { method: "PUT", params: { id }, body: { ...body, accessGroups: [group._id, "coworking"] } });
    expect(joined.status).toBe(200);
    expect([...joined.body.data.accessGroups].sort()).toEqual([group._id, "coworking"].sort());
    const kept = await call(userRoute.action, "/api/users/x", { method: "PUT", params: { id }, body: { ...body, firstName: "Xana" } });
    expect([...kept.body.data.accessGroups].sort()).toEqual([group._id, "coworking"].sort());
    const refused = await call(userRoute.action, "/api/users/x", { method: "PUT", params: { id }, body: { ...body, accessGroups: ["nope"] } });
    expect(refused).toMatchObject({ status: 400, body: { error: { message: "Alguno de los grupos de acceso no existe" } } });
    expect((await call(userRoute.loader, "/api/users/x", { params: { id } })).body.data.accessGroups.length).toBe(2);

    // Deleting the group takes the user out of it.
    await call(groupRoute.action, "/api/access-groups/x", { method: "DELETE", params: { id: group._id } });
    expect((await call(userRoute.loader, "/api/users/x", { params: { id } })).body.data.accessGroups).toEqual(["coworking"]);
  });

  it("PUT /api/settings names the default group; an unknown one is refused", async () => {
    const group = await newGroup();
    try {
      expect((await call(settingsRoute.action, "/api/settings", { method: "PUT", body: { defaultAccessGroupId: group._id } })).body.data).toEqual({
        defaultAccessGroupId: group._id,
      });
      const refused = await call(settingsRoute.action, "/api/settings", { method: "PUT", body: { defaultAccessGroupId: "nope" } });
      expect(refused).toMatchObject({ status: 400, body: { error: { message: "Grupo de acceso no encontrado" } } });
    } finally {
      await call(settingsRoute.action, "/api/settings", { method: "PUT", body: { defaultAccessGroupId: "residentes" } });
    }
  });
});
