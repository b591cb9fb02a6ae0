// /admin/auditoria as Remix calls it: the guard, 50 events a page newest
// first, the filters (a value nobody could pick drops only itself), the
// details modal, the verification on request and the CSV download.
import { beforeAll, describe, expect, it } from "vitest";
import type { User } from "~/models/user.server";
import * as page from "~/routes/admin.auditoria";
import * as exportRoute from "~/routes/admin.auditoria.export";
import type { AuditEntry } from "~/services/audit.server";
import { createTestUser, sessionCookie, unique } from "../setup/fixtures";
import { callRoute, pageRequest } from "../setup/route";
import { recordTestEvents } from "../setup/audit";

let admin: User;
let adminCookie: string;
let residentCookie: string;

beforeAll(async () => {
  admin = await createTestUser({ role: "admin" });
  adminCookie = await sessionCookie(admin.id);
  residentCookie = await sessionCookie((await createTestUser()).id);
});

async function load(query = "", cookie = adminCookie) {
  return callRoute(page.loader, pageRequest(`/admin/auditoria${query}`, cookie));
}

const entry = (tag: string, i: number): AuditEntry => ({
  action: "door.update",
  entityType: "door",
  entityId: `${tag}-${i}`,
  summary: `editó la puerta ${tag} número ${i}`,
  before: { name: `Puerta ${i}` },
  after: { name: `Puerta ${i} renovada`, status: "active" },
});

describe("guard", () => {
  it("sends residents and visitors away from the screen and its download", async () => {
    expect((await load("", residentCookie)).headers.get("Location")).toBe("/");
    expect((await load("", "")).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fauditoria");
    expect((await callRoute(exportRoute.loader, pageRequest("/admin/auditoria/export", residentCookie))).headers.get("Location")).toBe("/");
  });
});

describe("loader", () => {
  it("shows 50 events a page, newest first, and the last page for a page past the end", async () => {
    const tag = unique();
    await recordTestEvents(admin, "198.51.100.9", Array.from({ length: 51 }, (_, i) => entry(tag, i)));
    const first = await (await load(`?search=${tag}`)).json();
    expect(first).toMatchObject({ total: 51, page: 1, pages: 2, limit: 50 });
    expect(first.events).toHaveLength(50);
    expect(first.events[0].entityId).toBe(`${tag}-50`);
    const past = await (await load(`?search=${tag}&page=9`)).json();
    expect(past.page).toBe(2);
    expect(past.events.map((event: { entityId: string }) => event.entityId)).toEqual([`${tag}-0`]);
  });

  it("keeps the filters a person could pick and drops only the others", async () => {
    const tag = unique();
    await recordTestEvents(admin, "198.51.100.9", [entry(tag, 1)]);
    const body = await (await load(`?search=${tag}&entityType=door&action=nada&from=2026-02-30&actor=${admin.username}`)).json();
    expect(body.filters).toEqual({ search: tag, entityType: "door", actor: admin.username });
    expect(body.total).toBe(1);
    expect(body.exportQuery).toBe(new URLSearchParams({ actor: admin.username, entityType: "door", search: tag }).toString());
  });

  it("opens an event's details, and says so when there is no such event", async () => {
    const tag = unique();
    await recordTestEvents(admin, "198.51.100.9", [entry(tag, 7)]);
    const [listed] = (await (await load(`?search=${tag}`)).json()).events;
    const body = await (await load(`?search=${tag}&modal=detail&event=${listed._id}`)).json();
    expect(body.modal).toEqual({ name: "detail", event: listed });
    expect(body.modal.event.before).toEqual({ name: "Puerta 7" });
    expect((await (await load("?modal=detail&event=999999999")).json()).modal).toEqual({ name: "detail", event: null });
    expect((await (await load("?modal=detail&event=uno")).json()).modal).toEqual({ name: "detail", event: null });
  });

  it("verifies the chain when asked", async () => {
    await recordTestEvents(admin, "198.51.100.9", [entry(unique(), 1)]);
    expect((await (await load()).json()).verification).toBeNull();
    expect((await (await load("?verify=1")).json()).verification).toMatchObject({ ok: true, firstBadId: null });
  });
});

describe("Exportar CSV", () => {
  it("downloads the screen's filtered events", async () => {
    const tag = unique();
    await recordTestEvents(admin, "198.51.100.9", [entry(tag, 1), entry(tag, 2)]);
    const response = await callRoute(exportRoute.loader, pageRequest(`/admin/auditoria/export?search=${tag}&entityType=door`, adminCookie));
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    const lines = (await response.text()).trim().split("\r\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`"${tag}-2"`);
    expect(lines[2]).toContain(`"${tag}-1"`);
  });
});
