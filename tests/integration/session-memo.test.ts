// A page load runs the root loader, the layout's guard and the page's guard,
// each asking for the signed-in user: within one GET (the request context the
// server gives each request) the session and its user are read once; a form
// post, whose action may change them, reads them each time. A session
// cookie's signature is checked the first time the process sees the cookie.
import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { countUnread, getNotifications } from "~/services/notifications.server";
import { getSessionId, requireAdmin } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { withRequestContext } from "~/utils/request-context.server";
import { createTestUser, sessionCookie } from "../setup/fixtures";

const client = getDb().$client;
const original = client.execute.bind(client);
afterEach(() => {
  client.execute = original;
});

/** The statements `work` runs that read the sessions table. */
async function sessionReads(work: () => Promise<unknown>) {
  const statements: string[] = [];
  client.execute = ((statement: { sql: string }) => {
    statements.push(statement.sql);
    return original(statement as never);
  }) as typeof client.execute;
  await work();
  client.execute = original;
  return statements.filter((sql) => /from "sessions"/i.test(sql)).length;
}

/** The statements `work` runs that count unread notifications. */
async function unreadCounts(work: () => Promise<unknown>) {
  let counts = 0;
  client.execute = ((statement: { sql: string }) => {
    if (/count\(\*\) from "notifications"/i.test(statement.sql)) counts++;
    return original(statement as never);
  }) as typeof client.execute;
  await work();
  client.execute = original;
  return counts;
}

/** How many times `work` checks a cookie's signature (the module @remix-run/node signs cookies with). */
async function signatureChecks(work: () => Promise<unknown>) {
  const cookieSignature = createRequire(require.resolve("@remix-run/node"))("cookie-signature") as { unsign: (...args: unknown[]) => unknown };
  const unsign = vi.spyOn(cookieSignature, "unsign");
  try {
    await work();
    return unsign.mock.calls.length;
  } finally {
    unsign.mockRestore();
  }
}

const context = (readOnly: boolean) => ({ rendersDocument: true, toasts: [], forwardedProto: null, readOnly });

describe("the signed-in user within one request", () => {
  it("is read once per GET, and on every guard of a form post", async () => {
    const admin = await createTestUser({ role: "admin" });
    const cookie = await sessionCookie(admin.id);
    const request = (method: string) =>
      new Request("http://localhost/admin", { method, headers: { Cookie: cookie, Origin: "http://localhost" } });
    const threeGuards = (method: string) => async () => {
      for (let i = 0; i < 3; i++) expect((await requireAdmin(request(method))).id).toBe(admin.id);
    };
    expect(await sessionReads(() => withRequestContext(context(true), threeGuards("GET")))).toBe(1);
    expect(await sessionReads(() => withRequestContext(context(false), threeGuards("POST")))).toBe(3);
    // Each request has its own context: the next GET reads again.
    expect(await sessionReads(() => withRequestContext(context(true), threeGuards("GET")))).toBe(1);
  });

  it("checks a session cookie's signature the first time the process sees it, not on each guard or request", async () => {
    const admin = await createTestUser({ role: "admin" });
    const cookie = await sessionCookie(admin.id);
    const threeGuards = (method: string, headers: Record<string, string> = {}) => async () => {
      const request = new Request("http://localhost/admin", { method, headers: { Cookie: cookie, Origin: "http://localhost", ...headers } });
      for (let i = 0; i < 3; i++) expect((await requireAdmin(request)).id).toBe(admin.id);
    };
    expect(await signatureChecks(() => withRequestContext(context(true), threeGuards("GET")))).toBe(1);
    expect(await signatureChecks(() => withRequestContext(context(true), threeGuards("GET")))).toBe(0);
    expect(await signatureChecks(() => withRequestContext(context(false), threeGuards("POST")))).toBe(0);
    // A forged cookie is checked (and refused) like any other: no session.
    const forged = `${cookie.slice(0, -3)}xyz`;
    const forgedRequest = new Request("http://localhost/admin", { headers: { Cookie: forged } });
    expect(await signatureChecks(() => withRequestContext(context(true), () => getSessionId(forgedRequest)))).toBe(1);
    expect(await withRequestContext(context(true), () => getSessionId(forgedRequest))).toBeNull();
  });

  it("counts the unread notifications once per GET: the root loader's badge and the portal's list", async () => {
    const resident = await createTestUser();
    const badgeAndList = async () => {
      await countUnread(resident.id);
      expect((await getNotifications(resident.id)).unread).toBe(0);
    };
    expect(await unreadCounts(() => withRequestContext(context(true), badgeAndList))).toBe(1);
    expect(await unreadCounts(() => withRequestContext(context(false), badgeAndList))).toBe(2);
  });
});
