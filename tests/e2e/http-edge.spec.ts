// The app's edge over plain HTTP (issue 25, points 2, 7 and 9). Runs once (in
// the JavaScript project): it speaks HTTP, not through a page. Bodies over
// their cap answer 413, declared or chunked, with nothing echoed and the
// server unharmed; cross-site posts to pages answer 403 with the Spanish
// refusal, never 500; private answers say Cache-Control: no-store.
import { E2E } from "../setup/e2e-env";
import { postSlowly } from "../setup/http-client";
import { expect, test } from "./fixtures";

const { sessionCookieFor } = await import("~/utils/auth.server");
const { issueApiToken } = await import("~/models/api-token.server");

const TOO_LARGE = "La solicitud es demasiado grande";
const CROSS_ORIGIN = "Solicitud rechazada: origen no permitido.";
const MB = 1024 * 1024;

test("bodies over their cap answer 413 before they are read, and nothing comes back", async ({ clientIp, javaScriptEnabled }) => {
  expect(javaScriptEnabled).toBe(true);
  const json = { Origin: E2E.baseURL, "X-Forwarded-For": clientIp, "Content-Type": "application/json" };
  const form = { ...json, "Content-Type": "application/x-www-form-urlencoded" };
  const api = `${E2E.baseURL}/api/anonymous-reservations`;

  const declared = await postSlowly(api, { headers: json, contentLength: 300 * MB, prefix: '{"guestName":"', fill: MB });
  expect(declared.status).toBe(413);
  expect(JSON.parse(declared.body)).toEqual({ success: false, error: { message: TOO_LARGE } });

  const chunked = await postSlowly(api, { headers: json, prefix: '{"guestName":"', fill: 32 * MB });
  expect(chunked.status).toBe(413);
  expect(JSON.parse(chunked.body)).toEqual({ success: false, error: { message: TOO_LARGE } });
  expect(chunked.headers.connection).toBe("close");

  const page = `${E2E.baseURL}/reservar`;
  const field = "guestName=Eva&specialRequests=";
  const declaredField = await postSlowly(page, { headers: form, contentLength: 20 * MB, prefix: field, fill: 20 * MB });
  expect(declaredField.status).toBe(413);
  expect(declaredField.body).toContain(TOO_LARGE);
  expect(declaredField.body.length).toBeLessThan(4096);

  const chunkedField = await postSlowly(page, { headers: form, prefix: field, fill: 20 * MB });
  expect(chunkedField.status).toBe(413);
  expect(chunkedField.body).toContain("Solicitud demasiado grande");
  expect(chunkedField.body).not.toContain("a".repeat(64));

  expect((await fetch(`${E2E.baseURL}/healthz`)).status).toBe(200);
});

test("cross-site posts to pages answer 403 with the Spanish refusal, never 500", async ({ request, createUser }) => {
  const admin = await createUser({ role: "admin" });
  const cookie = (await sessionCookieFor(admin)).split(";")[0]!;
  const pages = ["/reservar", "/consulta", "/visita", "/incidencias", "/login", "/logout", "/theme", "/portal", "/admin/users", "/admin/cards", "/admin/reservations", "/reservar.data"];
  const callers: Record<string, string>[] = [
    { Origin: "https://evil.example" },
    { Origin: "https://evil.example", Cookie: cookie },
    { Origin: "null" },
  ];
  for (const path of pages) {
    for (const headers of callers) {
      const response = await request.post(path, { headers, form: { intent: "x", guestName: "Eva" }, maxRedirects: 0, failOnStatusCode: false });
      expect(response.status(), `${path} ${JSON.stringify(headers)}`).toBe(403);
      expect(await response.text()).toContain(CROSS_ORIGIN);
    }
  }
});

test("private answers say Cache-Control: no-store", async ({ request, createUser }) => {
  const admin = await createUser({ role: "admin" });
  const resident = await createUser();
  const adminCookie = { Cookie: (await sessionCookieFor(admin)).split(";")[0]! };
  const residentCookie = { Cookie: (await sessionCookieFor(resident)).split(";")[0]! };
  for (const path of ["/admin", "/admin/users", "/admin/logs", "/admin/users.data"]) {
    const response = await request.get(path, { headers: adminCookie });
    expect(response.status(), path).toBe(200);
    expect(response.headers()["cache-control"], path).toBe("no-store");
  }
  for (const path of ["/portal", "/portal.data"]) {
    const response = await request.get(path, { headers: residentCookie });
    expect(response.status(), path).toBe(200);
    expect(response.headers()["cache-control"], path).toBe("no-store");
  }
  const signedIn = await request.post("/api/auth/login", { headers: { Origin: E2E.baseURL }, data: { username: resident.username, password: resident.password } });
  expect(signedIn.status()).toBe(200);
  expect(signedIn.headers()["cache-control"]).toBe("no-store");
  const { token } = await issueApiToken(resident.id);
  const profile = await request.get("/api/user-portal/profile", { headers: { Authorization: `Bearer ${token}` } });
  expect(profile.status()).toBe(200);
  expect(profile.headers()["cache-control"]).toBe("no-store");
  // A public page may be kept.
  expect((await request.get("/reservar")).headers()["cache-control"]).toBeUndefined();
});
