// `npm run bench:edge`: what attacks at the app's edge cost it (issue 25,
// points 2 and 5), on the production build and a scratch database.
//
//   node scripts/bench-edge.mjs [--body-mb=300] [--burst=200] [--samples=40]
//
// - Bodies: the web process's resident memory (VmRSS, and its peak VmHWM)
//   before and after two bodies of --body-mb to POST
//   /api/anonymous-reservations, one declared by Content-Length and one
//   chunked, each sent in full whatever the server answers (a hostile
//   client); both must answer 413.
// - Sign-in bursts: --burst wrong passwords at once to POST /api/auth/login,
//   first from one address, then each from its own (X-Forwarded-For; the
//   bench server trusts it), while GET /reservar is timed one request at a
//   time: how many passwords were checked (401) and refused (429), and
//   /reservar's p50 and max during each burst against alone.
//
// stdout: one JSON line per measurement.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { procStatus } from "./lib/proc.mjs";
import { startApp } from "./lib/server.mjs";

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=")));
const bodyMB = Number(args["body-mb"] ?? 300);
const burst = Number(args.burst ?? 200);
const samples = Number(args.samples ?? 40);

/** Sends `totalBytes` of a JSON string as the body, in full, and answers the status (null if the server reset first). */
function sendHugeBody(url, totalBytes, { declared }) {
  return new Promise((resolve) => {
    let status = null;
    const request = http.request(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: new URL(url).origin, ...(declared ? { "Content-Length": String(totalBytes) } : {}) },
    });
    request.on("response", (response) => {
      status = response.statusCode;
      response.resume();
    });
    request.on("error", () => {});
    request.on("close", () => resolve(status));
    const chunk = Buffer.alloc(1024 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        sent += chunk.length;
        if (!request.write(sent === chunk.length ? Buffer.concat([Buffer.from('{"guestName":"'), chunk]) : chunk)) return request.once("drain", pump);
      }
      request.end();
    };
    request.on("socket", pump);
  });
}

async function timeGets(url, count, { until } = {}) {
  const times = [];
  for (let i = 0; i < count || (until && !until.done); i++) {
    const start = performance.now();
    const response = await fetch(`${url}/reservar`);
    await response.arrayBuffer();
    times.push(performance.now() - start);
    if (until?.done && i >= count) break;
  }
  times.sort((a, b) => a - b);
  return { p50Ms: Math.round(times[Math.floor(times.length / 2)]), maxMs: Math.round(times.at(-1)), n: times.length };
}

async function signInBurst(url, addresses) {
  const started = performance.now();
  const statuses = await Promise.all(
    addresses.map((address, i) =>
      fetch(`${url}/api/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": address },
        body: JSON.stringify({ username: "bench-admin", password: `wrong-${i}` }),
      }).then(async (response) => (await response.arrayBuffer(), response.status)),
    ),
  );
  const count = (status) => statuses.filter((s) => s === status).length;
  return { checked401: count(401), refused429: count(429), other: statuses.length - count(401) - count(429), seconds: +((performance.now() - started) / 1000).toFixed(2) };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-edge-"));
const server = await startApp({ dataDir: dir, env: { ACCESS_SERVICE: "off" } });
try {
  const webPid = server.webPid();
  await timeGets(server.url, 20); // warm-up
  const before = procStatus(webPid);
  const declared = await sendHugeBody(`${server.url}/api/anonymous-reservations`, bodyMB * 1024 * 1024, { declared: true });
  const chunked = await sendHugeBody(`${server.url}/api/anonymous-reservations`, bodyMB * 1024 * 1024, { declared: false });
  const after = procStatus(webPid);
  console.log(
    JSON.stringify({
      measurement: "huge bodies",
      bodyMB,
      declaredStatus: declared,
      chunkedStatus: chunked,
      rssBeforeMB: Math.round(before.rssMB),
      rssAfterMB: Math.round(after.rssMB),
      peakMB: Math.round(after.hwmMB),
    }),
  );

  const alone = await timeGets(server.url, samples);
  console.log(JSON.stringify({ measurement: "GET /reservar alone", ...alone }));
  for (const [name, addresses] of [
    ["one address", Array.from({ length: burst }, () => "198.51.100.7")],
    ["one address each", Array.from({ length: burst }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)],
  ]) {
    const until = { done: false };
    const during = timeGets(server.url, 5, { until });
    const result = await signInBurst(server.url, addresses);
    until.done = true;
    console.log(JSON.stringify({ measurement: `sign-in burst, ${name}`, requests: burst, ...result, reservarDuring: await during }));
  }
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
