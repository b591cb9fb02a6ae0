#!/usr/bin/env node
// `npm run bench:users`: the admin's users screen and GET /api/users with
// many users. Fills a scratch database (scripts/generate-users.mjs: 10,000
// users, ~12,000 cards), starts the production build on it, then measures,
// one request at a time, p50 and p95 of GET /admin/users (an admin's session)
// and GET /api/users (an admin's token) for: no search (first and last page),
// searches that match many users (a first name, a surname, an email domain, a
// department), one user, and nobody; and the API with limit=100.
//
//   node scripts/bench-users.mjs [--users=10000] [--requests=30] [--warmup=5] [--db=/path/app.db] [--keep]
//
// Needs `npm run build` first.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { generateUsers } from "./generate-users.mjs";
import { assertBuilt, BENCH_ADMIN, measureSequential, signInWithToken, startApp } from "./lib/server.mjs";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "10000" },
    requests: { type: "string", default: "30" },
    warmup: { type: "string", default: "5" },
    db: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const options = { requests: Number(args.requests), warmup: Number(args.warmup) };

assertBuilt();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-users-"));
const databaseFile = args.db ? path.resolve(args.db) : path.join(dir, "app.db");
// The server starts first, on the empty database, so it creates the bench admin
// (the generated users include admins, and an admin is only created when there is none).
const server = await startApp({ dataDir: dir, env: { DATABASE_URL: `file:${databaseFile}`, ACCESS_SERVICE: "off" } });
const baseUrl = server.url;
let someone = "nadie";
if (args.db) {
  console.info(`[bench] reusing ${databaseFile}`);
} else {
  const { userRows } = await generateUsers({ url: `file:${databaseFile}`, users: Number(args.users) });
  someone = userRows[Math.floor(userRows.length / 2)].username;
}
try {
  const { cookie, token } = await signInWithToken(baseUrl, BENCH_ADMIN);
  const firstPage = await (await fetch(`${baseUrl}/api/users`, { headers: { Authorization: `Bearer ${token}` } })).json();
  const { total, pages } = firstPage.data.pagination;
  console.info(`[bench] ${total} users, ${pages} pages of 10`);
  const cases = [
    { name: "no search, page 1", query: "" },
    { name: `no search, last page (${pages})`, query: `page=${pages}` },
    { name: "first name (mar)", query: "search=mar" },
    { name: "surname (garcia)", query: "search=garcia" },
    { name: "email domain (correo.es)", query: "search=correo.es" },
    { name: "department (Coworking)", query: "search=Coworking" },
    { name: `one user (${someone})`, query: `search=${encodeURIComponent(someone)}` },
    { name: "nobody", query: "search=nadie-se-llama-asi" },
  ];
  const rows = [];
  for (const { name, query } of cases) {
    const page = await measureSequential(baseUrl, `/admin/users${query ? `?${query}` : ""}`, { Cookie: cookie }, options);
    const api = await measureSequential(baseUrl, `/api/users${query ? `?${query}` : ""}`, { Authorization: `Bearer ${token}` }, options);
    const row = { case: name, page: { p50: page.p50, p95: page.p95 }, api: { p50: api.p50, p95: api.p95 } };
    rows.push(row);
    console.info(JSON.stringify(row));
  }
  const wide = await measureSequential(baseUrl, "/api/users?search=a&limit=100", { Authorization: `Bearer ${token}` }, options);
  console.info(JSON.stringify({ case: "api search=a limit=100", api: { p50: wide.p50, p95: wide.p95 } }));
  const worst = (key) => rows.reduce((max, row) => (row[key].p95 > max[key].p95 ? row : max));
  console.info(`\n[bench] ${options.requests} requests per case, one at a time`);
  console.info(`[bench] GET /admin/users: worst p95 ${worst("page").page.p95} ms (${worst("page").case})`);
  console.info(`[bench] GET /api/users: worst p95 ${worst("api").api.p95} ms (${worst("api").case})`);
} finally {
  await server.stop();
  if (args.keep) console.info(`[bench] database kept in ${databaseFile}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
