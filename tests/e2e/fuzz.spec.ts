// Malformed requests against the running server, for every route the app has
// (found from app/routes, so a new route is fuzzed without editing this
// file): every method, bodies that are not what the route expects, odd path
// parameters and Remix's own data URLs, as anonymous, resident and admin
// callers. No answer may be a 5xx, and nothing of the bad input may be stored. Runs once (in
// the JavaScript project): it speaks HTTP, not through a page.
//
// In `npm test` every route gets every method, every body, every query and
// every caller at least once (about 2,500 requests); `npm run test:system`
// (FUZZ_VOLUME=full) sends every combination (about 8,000).
import fs from "node:fs";
import path from "node:path";
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { getDb } = await import("~/utils/db.server");
const { issueApiToken } = await import("~/models/api-token.server");
const { sessionCookieFor } = await import("~/utils/auth.server");

/** Every text a fuzz body carries includes this, so a row stored from bad input can be found. */
const MARKER = `fuzz${Date.now().toString(36)}`;

const PARAM_VALUES = ["x", "00000000-0000-0000-0000-000000000000", "..%2F..%2Fetc%2Fpasswd", "%00", "ñ%20%E2%80%AE", "a".repeat(300)];

/** Each route file as its Remix route id and URL pattern: `api.cards.$id.ts` → `/api/cards/:id`. */
function routePatterns() {
  const dir = path.resolve("app/routes");
  return fs
    .readdirSync(dir)
    .filter((file) => /\.tsx?$/.test(file) && !/\.(server|test)\.tsx?$/.test(file))
    .map((file) => file.replace(/\.tsx?$/, ""))
    .map((name) => {
      const segments = name
        .split(".")
        .filter((segment) => segment !== "_index")
        .map((segment) => (segment === "$" ? "no-existe" : segment.startsWith("$") ? `:${segment.slice(1)}` : segment));
      return { routeId: `routes/${name}`, pattern: `/${segments.join("/")}` };
    });
}

function expand(pattern: string) {
  if (!pattern.includes(":")) return [pattern];
  return PARAM_VALUES.map((value) => pattern.replace(/:[A-Za-z]+/g, value));
}

type Body = { name: string; headers: Record<string, string>; data?: string };

const BODIES: Body[] = [
  { name: "none", headers: {} },
  { name: "empty", headers: { "Content-Type": "application/json" }, data: "" },
  { name: "json null", headers: { "Content-Type": "application/json" }, data: "null" },
  { name: "json array", headers: { "Content-Type": "application/json" }, data: "[1,2]" },
  { name: "json number", headers: { "Content-Type": "application/json" }, data: "123" },
  { name: "broken json", headers: { "Content-Type": "application/json" }, data: '{"a":' },
  {
    name: "wrong types",
    headers: { "Content-Type": "application/json" },
    data: JSON.stringify({ id: 1, email: [`${MARKER}@b.c`, "x@y.z"], status: {}, page: "-1", limit: 1e9, date: "2026-13-45", name: `${MARKER}\u0000\u202e` }),
  },
  { name: "form garbage", headers: { "Content-Type": "application/x-www-form-urlencoded" }, data: `intent=%ZZ&&=&a=%00&status=__proto__&nombre=${MARKER}` },
  {
    name: "form half right",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    data: `nombre=${MARKER}&email=${MARKER}%40example.com,otro%40example.com&telefono=600&mensaje=${MARKER}%00&startDate=2026-02-30&guestName=${MARKER}`,
  },
  { name: "form as json", headers: { "Content-Type": "application/x-www-form-urlencoded" }, data: '{"intent":"x"}' },
  { name: "broken multipart", headers: { "Content-Type": "multipart/form-data; boundary=zzz" }, data: "--zzz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb" },
  { name: "text", headers: { "Content-Type": "text/plain" }, data: "hola" },
];

const QUERIES = ["", "?_data=ROUTE_ID", "?index&page=-5&limit=abc&redirectTo=%2F%09%2Fevil.example", "?search=%00%E2%80%AE&dateRange=ayer"];

/** Tables holding a row with the marker in any text column (other tests may add rows meanwhile). */
async function tablesWithMarker() {
  const db = getDb();
  const tables = await db.$client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'");
  const found: string[] = [];
  for (const row of tables.rows) {
    const table = String(row.name);
    const columns = await db.$client.execute(`SELECT name FROM pragma_table_info('${table}') WHERE type = 'text'`);
    if (columns.rows.length === 0) continue;
    const where = columns.rows.map((column) => `"${String(column.name)}" LIKE '%${MARKER}%'`).join(" OR ");
    const result = await db.$client.execute(`SELECT count(*) AS n FROM "${table}" WHERE ${where}`);
    if (Number(result.rows[0]!.n) > 0) found.push(table);
  }
  return found;
}

/**
 * One request, answered by its status. Node's fetch resolves on the headers,
 * so a server-sent events stream (which never ends) is answered by its status
 * and then let go; any other body is read to its end.
 */
async function send(url: string, method: string, body: Body, headers: Record<string, string>) {
  const response = await fetch(new URL(url, E2E.baseURL), {
    method,
    headers: { Origin: E2E.baseURL, ...headers, ...body.headers },
    body: method === "GET" || method === "HEAD" ? undefined : body.data,
    redirect: "manual",
    // A route that never answers is a failure too, named by the check below.
    signal: AbortSignal.timeout(20_000),
  });
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) await response.body?.cancel();
  else await response.arrayBuffer();
  return response.status;
}

/** Runs the tasks with at most `width` of them in flight. */
async function inTurns(tasks: Array<() => Promise<void>>, width: number) {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: width }, lane));
}

test("malformed requests to every route answer 4xx (never 5xx) and store nothing", async ({ createUser, clientIp, javaScriptEnabled }) => {
  test.setTimeout(300_000);
  expect(javaScriptEnabled).toBe(true);
  const admin = await createUser({ role: "admin" });
  const resident = await createUser({ role: "user" });
  const callers: Record<string, Record<string, string>> = {
    anonymous: {},
    resident: { Cookie: (await sessionCookieFor(resident)).split(";")[0]! },
    admin: { Cookie: (await sessionCookieFor(admin)).split(";")[0]! },
    "admin token": { Authorization: `Bearer ${(await issueApiToken(admin.id)).token}` },
  };
  const failures: string[] = [];
  let sent = 0;
  const check = async (url: string, method: string, body: Body, caller: string) => {
    const status = await send(url, method, body, { "X-Forwarded-For": clientIp, ...callers[caller]! }).catch((error: Error) => {
      failures.push(`${error.name} ${method} ${url} (${body.name}) as ${caller}`);
      return 0;
    });
    sent += 1;
    if (status >= 500) failures.push(`${status} ${method} ${url} (${body.name}) as ${caller}`);
  };
  // Signing out ends the callers' sessions: it goes last.
  const routes = routePatterns().sort((a, b) => Number(a.pattern === "/logout") - Number(b.pattern === "/logout"));
  const names = Object.keys(callers);
  let turn = 0;
  // Each (method, body) pair goes to one route as one caller, the callers taking turns.
  const nextCaller = () => names[turn++ % names.length]!;
  const full = process.env.FUZZ_VOLUME === "full";
  const methods = ["POST", "PUT", "DELETE", "PATCH"];
  for (const [routeIndex, { routeId, pattern }] of routes.entries()) {
    const [plain, ...odd] = expand(pattern);
    const checks: Array<() => Promise<void>> = [];
    for (const query of QUERIES) {
      // Lean: each query as one caller, the callers taking turns.
      for (const caller of full ? names : [nextCaller()]) checks.push(() => check(`${plain}${query.replace("ROUTE_ID", encodeURIComponent(routeId))}`, "GET", BODIES[0]!, caller));
    }
    // Lean: one odd value per route, a different one from route to route.
    for (const url of full ? odd : odd.slice(routeIndex % Math.max(odd.length, 1)).slice(0, 1)) {
      const caller = nextCaller();
      checks.push(() => check(url, "GET", BODIES[0]!, caller));
    }
    for (const [methodIndex, method] of methods.entries()) {
      for (const [bodyIndex, body] of BODIES.entries()) {
        // Lean: each body once per route, by a method that turns from route to route.
        if (!full && (bodyIndex + routeIndex) % methods.length !== methodIndex) continue;
        const caller = nextCaller();
        checks.push(() => check(plain!, method, body, caller));
      }
    }
    // Remix's single-fetch data URLs of the same route.
    const dataCaller = nextCaller();
    checks.push(() => check(`${plain}.data`, "GET", BODIES[0]!, dataCaller));
    for (const body of BODIES.slice(0, 4)) {
      const caller = nextCaller();
      checks.push(() => check(`${plain}.data`, "POST", body, caller));
    }
    // A route's requests a few at a time (the server has two cores' worth of work to overlap); routes one after another.
    await inTurns(checks, 4);
  }
  const stored = await tablesWithMarker();
  console.info(`[fuzz] ${sent} requests, ${failures.length} answered 5xx, tables holding fuzz input: ${stored.length ? stored.join(", ") : "none"}`);
  expect(failures).toEqual([]);
  expect(stored).toEqual([]);
});
