import { describe, expect, it } from "vitest";
import { getUserByApiToken, issueApiToken } from "~/models/api-token.server";
import { createUser, verifyLogin } from "~/models/user.server";
import { changeUserStatus } from "~/services/users.server";
import { requireAdmin, requireApiAdmin } from "~/utils/auth.server";
import { checkRateLimit, clearRateLimit, RATE_LIMITS, TOO_MANY_ATTEMPTS } from "~/services/rate-limits.server";
import { createTestUser, sessionCookie } from "../setup/fixtures";

/** The admin who changes the statuses below. */
const admin = await createTestUser({ role: "admin" });

describe("verifyLogin", () => {
  it("accepts the password, refuses a wrong one and an inactive user", async () => {
    const user = await createUser({ username: "Marta", email: "marta@example.com", password: "secreto-123" });
    expect((await verifyLogin("marta", "secreto-123")).ok).toBe(true);
    expect(await verifyLogin("marta", "otra")).toEqual({ ok: false, reason: "invalid" });
    expect(await verifyLogin("nadie", "otra")).toEqual({ ok: false, reason: "invalid" });
    await changeUserStatus(user.id, "suspended", admin);
    expect(await verifyLogin("marta", "secreto-123")).toEqual({ ok: false, reason: "inactive" });
  });
});

describe("API tokens", () => {
  it("are stored hashed, expire and die with the user's deactivation", async () => {
    const user = await createUser({ username: "tok", email: "tok@example.com", password: "secreto-123" });
    const { token } = await issueApiToken(user.id);
    expect((await getUserByApiToken(token))?.id).toBe(user.id);
    expect(await getUserByApiToken(token, Date.now() + 13 * 3600_000)).toBeNull();
    await changeUserStatus(user.id, "inactive", admin);
    await changeUserStatus(user.id, "active", admin);
    expect(await getUserByApiToken(token)).toBeNull();
  });

  it("API guards answer 401 and 403 as JSON", async () => {
    const anonymous = await requireApiAdmin(new Request("http://x/api/doors")).catch((r: Response) => r);
    expect((anonymous as Response).status).toBe(401);
    expect(await (anonymous as Response).json()).toEqual({ success: false, error: { message: "No autenticado" } });
    const resident = await createUser({ username: "res", email: "res@example.com", password: "secreto-123" });
    const { token } = await issueApiToken(resident.id);
    const forbidden = await requireApiAdmin(
      new Request("http://x/api/doors", { headers: { Authorization: `Bearer ${token}` } }),
    ).catch((r: Response) => r);
    expect((forbidden as Response).status).toBe(403);
  });
});

describe("API guards with the session cookie", () => {
  it("accept a signed-in browser, and refuse its cross-site mutations", async () => {
    const admin = await createUser({ username: "cookie-admin", email: "cookie-admin@example.com", password: "secreto-123", role: "admin" });
    const cookie = await sessionCookie(admin.id);
    const read = await requireApiAdmin(new Request("http://x/api/doors", { headers: { Cookie: cookie } }));
    expect(read.id).toBe(admin.id);
    const crossSite = await requireApiAdmin(
      new Request("http://x/api/doors", { method: "POST", headers: { Cookie: cookie, Origin: "https://evil.example" } }),
    ).catch((r: Response) => r);
    expect((crossSite as Response).status).toBe(403);
    const sameSite = await requireApiAdmin(new Request("http://x/api/doors", { method: "POST", headers: { Cookie: cookie, Origin: "http://x" } }));
    expect(sameSite.id).toBe(admin.id);
  });
});

describe("page guards", () => {
  it("send anonymous visitors to /login with redirectTo", async () => {
    const response = await requireAdmin(new Request("http://x/admin/cards?sort=alias")).catch((r: Response) => r);
    expect((response as Response).status).toBe(302);
    expect((response as Response).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fcards%3Fsort%3Dalias");
  });

  it("refuse cross-site mutations", async () => {
    const response = await requireAdmin(
      new Request("http://x/admin", { method: "POST", headers: { Origin: "https://evil.example" } }),
    ).catch((r: Response) => r);
    expect((response as Response).status).toBe(403);
  });
});

describe("rate limits", () => {
  it("count hits per key in the database, refuse past the rule's limit with 429, and reset after the window", async () => {
    const { limit, windowMs } = RATE_LIMITS.loginAddress;
    const now = Date.now();
    for (let hit = 0; hit < limit; hit++) expect(await checkRateLimit("loginAddress", ["t:key"], now)).toBeNull();
    const refused = await checkRateLimit("loginAddress", ["t:key"], now);
    expect(refused).toMatchObject({ ok: false, status: 429, message: TOO_MANY_ATTEMPTS });
    expect(refused!.retryAfterSeconds).toBe(Math.ceil(windowMs / 1000));
    expect(await checkRateLimit("loginAddress", ["t:key"], now + windowMs + 1)).toBeNull();
  });

  it("refuse when any of the keys is over, and forget a cleared key", async () => {
    const { limit } = RATE_LIMITS.enquiryForm;
    for (let hit = 0; hit < limit; hit++) await checkRateLimit("enquiryForm", ["t:full"]);
    expect(await checkRateLimit("enquiryForm", ["t:fresh", "t:full"])).toMatchObject({ status: 429 });
    await clearRateLimit("enquiryForm", ["t:full"]);
    expect(await checkRateLimit("enquiryForm", ["t:full"])).toBeNull();
  });

  it("stay exact under concurrent hits", async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => checkRateLimit("loginAddress", ["t:burst"])));
    expect(results.filter((refusal) => refusal === null)).toHaveLength(RATE_LIMITS.loginAddress.limit);
  });
});
