// Sign-in limits (issue: rate limits that punished the wrong people): only
// failures count; an address that failed too often is stopped; a username
// under attack is stopped only from the addresses that failed for it; a
// success clears the username's failures. Page and API share the service.
import { describe, expect, it } from "vitest";
import * as apiLogin from "~/routes/api.auth.login";
import * as loginPage from "~/routes/login";
import { RATE_LIMITS, TOO_MANY_ATTEMPTS } from "~/utils/rate-limit-rules.server";
import { createTestUser } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const LIMIT = RATE_LIMITS.loginAddress.limit;

function apiSignIn(username: string, password: string, ip: string) {
  return callRoute(apiLogin.action, jsonRequest("/api/auth/login", { method: "POST", body: { username, password }, ip }));
}

function pageSignIn(username: string, password: string, ip: string) {
  return callRoute(
    loginPage.action,
    jsonRequest("/login", {
      method: "POST",
      ip,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      rawBody: new URLSearchParams({ username, password }).toString(),
    }),
  );
}

describe("sign-in limits", () => {
  it("stop an address after too many failures, for every username", async () => {
    const user = await createTestUser({ password: "contraseña-buena-1" });
    for (let attempt = 0; attempt < LIMIT; attempt++) expect((await apiSignIn(`nadie-${attempt}`, "x", "198.51.100.1")).status).toBe(401);
    const refused = await apiSignIn(user.username, "contraseña-buena-1", "198.51.100.1");
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toBe(TOO_MANY_ATTEMPTS);
  });

  it("let the owner in from a clean address while their username is under attack elsewhere", async () => {
    const admin = await createTestUser({ role: "admin", password: "contraseña-admin-1" });
    for (let attempt = 0; attempt < LIMIT; attempt++) {
      expect((await apiSignIn(admin.username, "adivinando", `203.0.113.${attempt}`)).status).toBe(401);
    }
    // The attackers' addresses are stopped for this username, even with the right password…
    expect((await apiSignIn(admin.username, "contraseña-admin-1", "203.0.113.3")).status).toBe(429);
    // …but the admin, from an address that never failed, gets in (the page and the API alike).
    expect((await apiSignIn(admin.username, "contraseña-admin-1", "192.0.2.200")).status).toBe(200);
    const page = await pageSignIn(admin.username, "contraseña-admin-1", "192.0.2.201");
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/admin");
  });

  it("do not count successes, and clear a username's failures on success", async () => {
    const user = await createTestUser({ password: "contraseña-buena-2" });
    for (let round = 0; round < LIMIT + 5; round++) {
      expect((await apiSignIn(user.username, "contraseña-buena-2", "198.51.100.2")).status).toBe(200);
    }
    for (let attempt = 0; attempt < LIMIT - 1; attempt++) await apiSignIn(user.username, "mal", "198.51.100.3");
    expect((await apiSignIn(user.username, "contraseña-buena-2", "198.51.100.3")).status).toBe(200);
    // The failures were cleared: a few more mistakes do not lock this address out of this username.
    for (let attempt = 0; attempt < 3; attempt++) expect((await apiSignIn(user.username, "mal", "198.51.100.4")).status).toBe(401);
  });
});
