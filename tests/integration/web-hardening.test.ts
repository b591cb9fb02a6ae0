// The web side's hardening (issue: holes found probing the running product):
// sessions that end on sign-out, redirects that stay on the site, the client
// address behind a proxy, bad input refused with nothing stored, and what
// stays out of logs.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { countConsultationsByEmail } from "~/models/consultation.server";
import { countReservations } from "~/models/reservation.server";
import * as adminPage from "~/routes/admin.cards";
import * as lookupRoute from "~/routes/api.anonymous-reservations.code.$code";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as submitRoute from "~/routes/api.consultations.submit";
import * as loginPage from "~/routes/login";
import * as logoutRoute from "~/routes/logout";
import * as themeRoute from "~/routes/theme";
import { newCaptcha } from "~/services/visitor.server";
import { resetEnvForTests } from "~/utils/env.server";
import { installHttpEdge } from "~/utils/http-edge.server";
import { addDays, todayInMadrid } from "~/utils/dates";
import { createTestUser, sessionCookie } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const today = todayInMadrid();

function formPost(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "http://localhost", ...headers },
    body: new URLSearchParams(fields),
  });
}

afterEach(() => {
  delete process.env.TRUST_PROXY;
  resetEnvForTests();
});

describe("sessions", () => {
  it("end on sign-out: the cookie from before no longer opens /admin", async () => {
    const admin = await createTestUser({ role: "admin" });
    const cookie = await sessionCookie(admin.id);
    const open = () => callRoute(adminPage.loader, new Request("http://localhost/admin/cards", { headers: { Cookie: cookie } }));
    expect((await open()).status).toBe(200);
    const out = await callRoute(logoutRoute.action, formPost("/logout", { redirectTo: "/" }, { Cookie: cookie }));
    expect(out.status).toBe(302);
    const after = await open();
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toBe("/login");
  });
});

describe("redirects", () => {
  /** /login (signing in, and signed in already), /logout and /theme all send `target` home. */
  async function expectSentHome(target: string) {
    const user = await createTestUser({ password: "contraseña-buena-9" });
    const signedIn = await callRoute(loginPage.action, formPost("/login", { username: user.username, password: "contraseña-buena-9", redirectTo: target }));
    // A resident's own home is the portal.
    expect(signedIn.headers.get("Location")).toBe("/portal");
    const cookie = await sessionCookie(user.id);
    const out = await callRoute(logoutRoute.action, formPost("/logout", { redirectTo: target }, { Cookie: cookie }));
    expect(out.headers.get("Location")).toBe("/");
    const theme = await callRoute(themeRoute.action, formPost("/theme", { theme: "dark", redirectTo: target }));
    expect(theme.headers.get("Location")).toBe("/");
    const loggedIn = await callRoute(
      loginPage.loader,
      new Request(`http://localhost/login?redirectTo=${encodeURIComponent(target)}`, { headers: { Cookie: await sessionCookie(user.id) } }),
    );
    expect(loggedIn.headers.get("Location")).toBe("/portal");
  }

  it.each(["%2F%09%2Fevil.example", "//evil.example", "/\\evil.example", "https://evil.example", "/%0d%0aSet-Cookie:x=1", "/ñ\r\n"])(
    "send %j to a safe place from /login, /logout and /theme",
    async (payload) => expectSentHome(decodeURIComponentSafe(payload)),
  );

  // Dot segments that new URL() resolves into "//host" (issue 25, point 3), sent as typed.
  it.each(["/.//evil.example", "/..//evil.example", "/a/..//evil.example", "/%2e//evil.example", "/a/%2E%2E//evil.example"])(
    "send %j (dot segments) to a safe place from /login, /logout and /theme",
    expectSentHome,
  );
});

function decodeURIComponentSafe(text: string) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

describe("the client address behind a proxy", () => {
  it("is the one the proxy appended: a spoofed X-Forwarded-For does not escape a limit", async () => {
    process.env.TRUST_PROXY = "true";
    resetEnvForTests();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      const request = jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        ip: "10.0.0.1",
        headers: { "X-Forwarded-For": `198.51.100.${attempt}, 203.0.113.77` },
        body: {
          guestName: "Ana",
          guestEmail: "ana@example.com",
          guestPhone: "600 123 456",
          reservationType: "sala",
          // A day of its own for each booking: the house has three salas.
          startDate: addDays(today, 3 + attempt),
          endDate: addDays(today, 4 + attempt),
        },
      });
      statuses.push((await callRoute(reservationsRoute.action, request)).status);
    }
    expect(statuses.slice(0, 10).every((status) => status === 201)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe("bad input", () => {
  const booking = (overrides: Record<string, unknown>) => ({
    guestName: "Ana",
    guestEmail: "ana-bad@example.com",
    guestPhone: "600 123 456",
    reservationType: "habitacion",
    roomType: "doble",
    startDate: addDays(today, 3),
    endDate: addDays(today, 5),
    ...overrides,
  });

  it.each([
    [{ startDate: "2026-13-45" }],
    [{ startDate: "2027-00-00", endDate: "2027-00-03" }],
    [{ endDate: "9999-12-31" }],
    [{ endDate: addDays(today, 400) }],
    [{ startDate: addDays(today, 800), endDate: addDays(today, 801) }],
    [{ guestEmail: "a@b.c,victim@example.org" }],
    [{ guestEmail: "a@b.c victim@example.org" }],
    [{ guestName: "Ana\u0000" }],
    [{ specialRequests: "abc\u202Edef" }],
  ])("a booking with %o is a 400 and stores nothing", async (overrides) => {
    const before = await countReservations();
    const response = await callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body: booking(overrides) }));
    expect(response.status).toBe(400);
    expect(await countReservations()).toBe(before);
  });

  it.each([[null], [[]], ["texto"], [42]])("a booking body of %j is a 400", async (body) => {
    const response = await callRoute(reservationsRoute.action, jsonRequest("/api/anonymous-reservations", { method: "POST", body }));
    expect(response.status).toBe(400);
  });

  it.each([["99/99/9999"], ["2026-02-30"], [addDays(today, 120)]])("a visit on %j is a 400 and stores nothing", async (fecha) => {
    const { captchaId, question } = newCaptcha();
    const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(question)!;
    const answer = String(op === "+" ? Number(a) + Number(b) : Number(a) - Number(b));
    const body = { nombre: "Iris", email: "iris-bad@example.com", telefono: "600", fecha, hora: "10:00", captchaId, captchaAnswer: answer };
    const response = await callRoute(submitRoute.action, jsonRequest("/api/consultations/submit", { method: "POST", body }));
    expect(response.status).toBe(400);
    expect(await countConsultationsByEmail("iris-bad@example.com")).toBe(0);
  });

  it("an enquiry with NUL or bidirectional controls is a 400 and stores nothing", async () => {
    for (const mensaje of ["hola\u0000", "hola \u202Eadiós"]) {
      const { captchaId } = newCaptcha();
      const body = { nombre: "Iris", email: "iris-ctl@example.com", telefono: "600", mensaje, captchaId, captchaAnswer: "1" };
      const response = await callRoute(submitRoute.action, jsonRequest("/api/consultations/submit", { method: "POST", body }));
      expect(response.status).toBe(400);
    }
    expect(await countConsultationsByEmail("iris-ctl@example.com")).toBe(0);
  });

  it.each([
    ["an empty body", "", "application/x-www-form-urlencoded"],
    ["JSON", '{"intent":"x"}', "application/json"],
    ["a broken multipart body", '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb', "multipart/form-data; boundary=zz"],
  ])("a page form posted with %s answers 4xx", async (_name, body, type) => {
    const response = await callRoute(
      loginPage.action,
      new Request("http://localhost/login", { method: "POST", headers: { "Content-Type": type, Origin: "http://localhost" }, body }),
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it("a cross-site form post is a 403", async () => {
    const response = await callRoute(loginPage.action, formPost("/login", { username: "x", password: "y" }, { Origin: "https://evil.example" }));
    expect(response.status).toBe(403);
  });
});

describe("the guest's email on a lookup", () => {
  it("may come in a header or a POST body instead of the query", async () => {
    const created = await callRoute(
      reservationsRoute.action,
      jsonRequest("/api/anonymous-reservations", {
        method: "POST",
        body: { guestName: "Leo", guestEmail: "leo@example.com", guestPhone: "600 123 456", reservationType: "sala", startDate: addDays(today, 2), endDate: addDays(today, 3) },
      }),
    );
    const code = (await created.json()).data.reservationCode as string;
    const byHeader = await callRoute(lookupRoute.loader, jsonRequest(`/api/anonymous-reservations/code/${code}`, { headers: { "X-Guest-Email": "LEO@example.com" } }), { code });
    expect(byHeader.status).toBe(200);
    const byBody = await callRoute(lookupRoute.action, jsonRequest(`/api/anonymous-reservations/code/${code}`, { method: "POST", body: { email: "leo@example.com" } }), { code });
    expect(byBody.status).toBe(200);
    expect((await byBody.json()).data.reservationCode).toBe(code);
    expect(byBody.headers.get("Cache-Control")).toBe("no-store");
  });

  it("stays out of the request log: the logged URL of that route has no query", async () => {
    installHttpEdge();
    const logged: string[] = [];
    const server = http.createServer((req, res) => {
      const withOriginal = req as http.IncomingMessage & { originalUrl?: string };
      withOriginal.originalUrl ??= req.url;
      // What remix-serve's logger does: read the URL when the response has finished.
      res.once("finish", () => logged.push(withOriginal.originalUrl!));
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/api/anonymous-reservations/code/ABCD1234?email=leo%40example.com`);
    await fetch(`http://127.0.0.1:${port}/admin/logs?search=ana`);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(logged).toEqual(["/api/anonymous-reservations/code/ABCD1234", "/admin/logs?search=ana"]);
  });
});
