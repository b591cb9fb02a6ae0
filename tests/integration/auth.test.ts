import { describe, expect, it } from "vitest";
import { getUserByApiToken, issueApiToken } from "~/models/api-token.server";
import { createUser, setUserStatus, verifyLogin } from "~/models/user.server";
import { requireAdmin, requireApiAdmin, safeRedirect } from "~/utils/auth.server";
import { hitRateLimit } from "~/utils/rate-limit.server";

describe("verifyLogin", () => {
  it("accepts the password, refuses a wrong one and an inactive user", async () => {
    const user = await createUser({ username: "Marta", email: "marta@example.com", password: "secreto-123" });
    expect((await verifyLogin("marta", "secreto-123")).ok).toBe(true);
    expect(await verifyLogin("marta", "otra")).toEqual({ ok: false, reason: "invalid" });
    expect(await verifyLogin("nadie", "otra")).toEqual({ ok: false, reason: "invalid" });
    await setUserStatus(user.id, "suspended");
    expect(await verifyLogin("marta", "secreto-123")).toEqual({ ok: false, reason: "inactive" });
  });
});

describe("API tokens", () => {
  it("are stored hashed, expire and die with the user's deactivation", async () => {
    const user = await createUser({ username: "tok", email: "tok@example.com", password: "secreto-123" });
    const { token } = await issueApiToken(user.id);
    expect((await getUserByApiToken(token))?.id).toBe(user.id);
    expect(await getUserByApiToken(token, Date.now() + 13 * 3600_000)).toBeNull();
    await setUserStatus(user.id, "inactive");
    await setUserStatus(user.id, "active");
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

describe("page guards", () => {
  it("send anonymous visitors to /login with redirectTo", async () => {
    const response = await requireAdmin(new Request("http://x/admin/cards?sort=alias")).catch((r: Response) => r);
    expect((response as Response).status).toBe(302);
    expect((response as Response).headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fcards%3Fsort%3Dalias");
  });

  it("refuse cross-site mutations", async () => {
    const response = await requireAdmin(
      new Request("http://x/admin", { method: "POST", headers: { Origin: "https://evil.example" } }),
    ).catch((r: unknown) => r);
    expect((response as { init: ResponseInit }).init?.status ?? (response as Response).status).toBe(403);
  });
});

describe("safeRedirect", () => {
  it("keeps same-site paths only", () => {
    expect(safeRedirect("/admin/cards", "/")).toBe("/admin/cards");
    expect(safeRedirect("//evil.example", "/")).toBe("/");
    expect(safeRedirect("https://evil.example", "/")).toBe("/");
    expect(safeRedirect("/\\evil.example", "/")).toBe("/");
  });
});

describe("rate limits", () => {
  it("count hits in the database and reset after the window", async () => {
    const rule = { limit: 2, windowMs: 1000 };
    const now = Date.now();
    expect((await hitRateLimit("t:key", rule, now)).allowed).toBe(true);
    expect((await hitRateLimit("t:key", rule, now)).allowed).toBe(true);
    expect((await hitRateLimit("t:key", rule, now)).allowed).toBe(false);
    expect((await hitRateLimit("t:key", rule, now + 1001)).allowed).toBe(true);
  });

  it("stay exact under concurrent hits", async () => {
    const rule = { limit: 10, windowMs: 60_000 };
    const results = await Promise.all(Array.from({ length: 25 }, () => hitRateLimit("t:burst", rule)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });
});
