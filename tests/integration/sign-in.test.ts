// Sign-in limits (issue: rate limits that punished the wrong people): only
// failures count; an address that failed too often is stopped; a username
// under attack is stopped only from the addresses that failed for it; a
// success clears the username's failures. Page and API share the service.
// Issue 25, point 5: attempts sent at once count before their passwords are
// checked, and a burst waits its turn or, past the queue, is refused at once.
import { describe, expect, it } from "vitest";
import * as apiLogin from "~/routes/api.auth.login";
import * as loginPage from "~/routes/login";
import { getRateLimitKey, hitRateLimitKey } from "~/models/rate-limit.server";
import { MAX_CONCURRENT_SIGN_INS, MAX_WAITING_SIGN_INS, signInLoad } from "~/services/sign-in.server";
import { RATE_LIMITS, TOO_MANY_ATTEMPTS } from "~/services/rate-limits.server";
import { CONTROL_CHARACTERS_MESSAGE } from "~/schemas/fields";
import { eventually } from "../../bridge/src/test-support/eventually";
import { resetEnvForTests } from "~/utils/env.server";
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
    // About 25 password checks in a row, two at a time at most: slow on a busy machine.
  }, 60_000);
});

describe("sign-ins sent at once", () => {
  it("check at most the limit of wrong passwords from one address; the rest answer 429", async () => {
    const user = await createTestUser({ password: "contraseña-buena-3" });
    const statuses = await Promise.all(Array.from({ length: 60 }, () => apiSignIn(user.username, "adivinando", "198.51.100.20").then((r) => r.status)));
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((status) => status !== 401).every((status) => status === 429)).toBe(true);
  });

  it("count each attempt before its check: with one failure left, two at once get one check", async () => {
    const user = await createTestUser({ password: "contraseña-buena-6" });
    for (let failure = 0; failure < LIMIT - 1; failure++) await hitRateLimitKey("loginAddress:198.51.100.23", RATE_LIMITS.loginAddress.windowMs);
    const statuses = await Promise.all([apiSignIn(user.username, "mal-1", "198.51.100.23"), apiSignIn(user.username, "mal-2", "198.51.100.23")]);
    expect(statuses.map((response) => response.status).sort()).toEqual([401, 429]);
  });

  it("refuse a right password hidden in a burst once the limit is reached, on the page and the API", async () => {
    const user = await createTestUser({ password: "contraseña-buena-4" });
    const burst = Array.from({ length: 40 }, (_, index) => {
      if (index === 30) return apiSignIn(user.username, "contraseña-buena-4", "198.51.100.21");
      if (index === 35) return pageSignIn(user.username, "contraseña-buena-4", "198.51.100.21");
      return apiSignIn(user.username, `adivinando-${index}`, "198.51.100.21");
    });
    const responses = await Promise.all(burst);
    expect(responses[30]!.status).toBe(429);
    expect(responses[35]!.status).toBe(429);
    expect(responses.filter((response) => response.status === 401).length).toBeLessThanOrEqual(LIMIT);
  });

  it("answer 429 at once, counting nothing, while too many sign-ins wait their turn", async () => {
    // A hash at the production cost (tests hash cheaply), so that each check
    // takes long enough for the queue behind the running ones to fill.
    const user = await withEnv({ PASSWORD_HASH_COST: "15" }, () => createTestUser({ password: "contraseña-buena-5" }));
    await eventually(() => signInLoad().running === 0, "no sign-in running");
    const queued = Array.from({ length: MAX_CONCURRENT_SIGN_INS + MAX_WAITING_SIGN_INS }, (_, index) => apiSignIn(user.username, "relleno", `198.51.100.${100 + index}`));
    await eventually(() => signInLoad().waiting === MAX_WAITING_SIGN_INS, "the sign-in queue to fill");
    expect(signInLoad()).toEqual({ running: MAX_CONCURRENT_SIGN_INS, waiting: MAX_WAITING_SIGN_INS });
    const busy = await apiSignIn(user.username, "contraseña-buena-5", "198.51.100.22");
    expect(busy.status).toBe(429);
    expect(busy.headers.get("Retry-After")).toBe("1");
    expect((await getRateLimitKey("loginAddress:198.51.100.22")).count).toBe(0);
    expect((await Promise.all(queued)).map((response) => response.status)).toEqual(queued.map(() => 401));
    expect(signInLoad()).toEqual({ running: 0, waiting: 0 });
    expect((await apiSignIn(user.username, "contraseña-buena-5", "198.51.100.22")).status).toBe(200);
  });
});

// Issue 40, point 10: a username no database text can hold (NUL, a lone
// surrogate) is refused by the shared login schema, before any rate-limit key
// is counted for it.
describe("a username with characters no text can hold", () => {
  it.each([
    ["a NUL", "admin\u0000x"],
    ["a lone surrogate", "admin\ud800"],
  ])("with %s answers the API 400 with the text rule's message, and counts nothing", async (_what, username) => {
    const api = await apiSignIn(username, "contraseña-cualquiera", "198.51.100.40");
    expect(api.status).toBe(400);
    expect((await api.json()).error.message).toBe(CONTROL_CHARACTERS_MESSAGE);
    expect((await getRateLimitKey("loginAddress:198.51.100.40")).count).toBe(0);
    // In a password the same characters are just a wrong password.
    expect((await apiSignIn("nadie-en-particular", username, "198.51.100.44")).status).toBe(401);
  });

  it("with a NUL answers the page 400 with the text rule's message, and counts nothing", async () => {
    const page = await pageSignIn("admin\u0000x", "contraseña-cualquiera", "198.51.100.41");
    expect(page.status).toBe(400);
    expect(JSON.stringify(await page.json())).toContain(CONTROL_CHARACTERS_MESSAGE);
    expect((await getRateLimitKey("loginAddress:198.51.100.41")).count).toBe(0);
    // A form cannot carry a lone surrogate: the browser's UTF-8 turns it into U+FFFD, ordinary text.
    expect((await pageSignIn("admin\ud800", "contraseña-cualquiera", "198.51.100.43")).status).toBe(401);
  });

  it("a lone surrogate written as a JSON escape in the raw body is refused alike", async () => {
    const raw = '{"username":"\\ud800admin","password":"x"}';
    const response = await callRoute(apiLogin.action, jsonRequest("/api/auth/login", { method: "POST", rawBody: raw, ip: "198.51.100.42" }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe(CONTROL_CHARACTERS_MESSAGE);
  });
});

/** Runs `work` with these environment variables set, then puts them back. */
async function withEnv<T>(values: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  resetEnvForTests();
  try {
    return await work();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvForTests();
  }
}
