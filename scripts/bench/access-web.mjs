// `bench:access --scenario web`, `export`, `flood` and `signin` (see scripts/bench-access.mjs).
//
// Both run the whole product the way `npm start` does (scripts/start.mjs:
// remix-serve on the production build, NODE_ENV=production, the access
// service wherever the app runs it by default, its embedded MQTT broker on a
// free port) on a scratch database holding `--rows` access-log rows
// (scripts/generate-access-logs.mjs). Needs `npm run build` first.
//
// web: doors with bridge credentials and cards are seeded through the app's
// models (scripts/bench/seed-doors.ts); simulated bridges (lib/bridges.mjs)
// swipe at --rate, open loop, for --duration seconds in two phases:
//   alone  swipes only;
//   web    the same swipes while an admin downloads the whole log as CSV
//          (/admin/logs/export?dateRange=all, Accept-Encoding: gzip, again
//          whenever it ends before the phase) and --clients admins load
//          /admin/logs pages in a closed loop.
// flood: the same swipes, alone and then while a building sensor (provisioned
//   by the seed, scripts/bench/sensor-flood-worker.mjs) publishes --readings
//   (1,000) readings a second on the product's broker; then counts the
//   readings stored.
// signin: the same swipes, alone and then while --bursts (3) bursts of --burst
//   (200) wrong-password POST /login, each burst sent at once from one
//   address (scripts/bench/signin-burst-worker.mjs), run back to back; the
//   phase lasts as long as the bursts.
//   flood and signin start on a fresh log (--rows 0 unless given).
// export: only the CSV download of the whole log, --repeat times in a row.
//   (`npm run bench:admin -- --only=export` is a neighbour, not the same: it
//   downloads /api/logs/export with a bearer token from the web process alone
//   (ACCESS_SERVICE=off), with and without gzip, and reads one process's VmHWM.
//   This one is the admin screen's download from the product as started.)
//
// --logs-db FILE reuses the generated log (copied from FILE, made by the first
// run that names it), so that runs compare on the same rows without generating
// them again.
//
// Each phase's line also gives `serviceMs`: the access service's own view of
// the same decisions, from a swipe's arrival to its decision's publication
// (its door_decision_duration_seconds histogram, read from GET /metrics before
// and after the phase, as the upper bounds of the buckets holding the p50 and
// p99): what is left of `decisionsMs` is the broker hops and the benchmark's
// own wait for the CPU.
//
// stdout carries JSON lines only: one per export, one per phase (web) or a
// summary (export); progress goes to stderr. Server memory is the summed
// RSS of the server's process tree (lib/proc.mjs): peakRssMB sampled every
// 200 ms (a lower bound), hwmSumMB the summed per-process VmHWM (an upper bound).
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { createClient } from "@libsql/client";
import { generateAccessLogs } from "../generate-access-logs.mjs";
import { connectBridges, endBridges, percentile, PREFIX, sendSwipes } from "../lib/bridges.mjs";
import { cpuSeconds, machineBusySeconds, processTree } from "../lib/proc.mjs";
import { runLoad } from "../lib/load.mjs";
import { bundleTs } from "../lib/run-ts.mjs";
import { freePort, signIn, sleep, startApp, waitForPort } from "../lib/server.mjs";

const EXPORT_PATH = "/admin/logs/export?dateRange=all";
// What the admins page through: the screen as it opens (last 24 h), its next
// pages, and the wider periods whose counts cover most of the log.
const DEFAULT_PAGES = ["/admin/logs", "/admin/logs?page=2", "/admin/logs?dateRange=7d", "/admin/logs?dateRange=all&page=3"];
/** The bridge's default decisionTimeoutMs: a later decision means the door decided offline. */
const BRIDGE_TIMEOUT_MS = 400;

const progress = (text) => console.error(`[bench] ${text}`);
const round1 = (value) => Math.round(value * 10) / 10;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length === 0 ? null : sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Doors with credentials, residents and cards (and a sensor), through the app's models (own process, before the server). */
async function seedDoorsAndCards(dir, databaseUrl, doors, cards, sensorId = null) {
  // In the cache under node_modules, where the bundle's bare imports resolve.
  const entry = await bundleTs("scripts/bench/seed-doors.ts");
  const out = path.join(dir, "seed.json");
  try {
    execFileSync(process.execPath, [entry], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dir,
        BENCH_DOORS: String(doors),
        BENCH_CARDS: String(cards),
        BENCH_SEED_OUT: out,
        ...(sensorId ? { BENCH_SENSOR: sensorId } : {}),
      },
      stdio: ["ignore", 2, 2],
    });
  } finally {
    fs.rmSync(entry, { force: true });
  }
  const seeded = JSON.parse(fs.readFileSync(out, "utf8"));
  return {
    doors: seeded.doors,
    cards: seeded.cards.map((card) => ({ number: card.number, allowedDoors: new Set(card.allowedDoors) })),
    sensor: seeded.sensor,
  };
}

/** Runs the web side of one phase in a worker; `during()` runs in the main thread meanwhile. */
async function observed(options, during) {
  const worker = new Worker(new URL("./web-load-worker.mjs", import.meta.url), { workerData: options });
  const done = new Promise((resolve, reject) => {
    worker.on("message", (message) => {
      if (message.export) printExport(options.label, message.export);
      if (message.done) resolve(message.done);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`web load worker exited (${code}) before its results`)));
  });
  await new Promise((resolve) => worker.once("message", resolve)); // "ready"
  const cpu = cpuCounter(options.rootPid);
  worker.postMessage("start");
  const [web, main] = await Promise.all([done, during()]);
  await worker.terminate();
  return { web, main, cpu: cpu() };
}

/** CPU (% of one core) of the server tree, this benchmark process and the whole machine since the call. */
function cpuCounter(rootPid) {
  const treeCpu = () => processTree(rootPid).reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
  const started = performance.now();
  const [server, bench, machine] = [treeCpu(), process.cpuUsage(), machineBusySeconds()];
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(bench);
    const percent = (value) => Math.round((value / seconds) * 100);
    return {
      serverPercent: percent(treeCpu() - server),
      benchPercent: percent((used.user + used.system) / 1e6),
      machinePercent: machine === null ? null : percent(machineBusySeconds() - machine),
    };
  };
}

function printExport(label, e) {
  console.info(
    JSON.stringify({
      ...label,
      export: {
        status: e.status,
        complete: e.complete,
        rows: e.rows,
        seconds: round1(e.seconds),
        rowsPerSecond: Math.round(e.rowsPerSecond),
        firstByteMs: e.firstByteMs === null ? null : Math.round(e.firstByteMs),
        bytes: e.bytes,
        wireBytes: e.wireBytes,
        contentEncoding: e.contentEncoding,
      },
      server: { peakRssMB: e.peakRssMB, hwmSumMB: e.hwmSumMB },
    }),
  );
}

/** Runs a worker beside `during()` (given an AbortSignal the worker's end aborts): "ready", then "start", then its { done }. */
async function besideWorker(file, workerData, during, { stopAfter = null } = {}) {
  const worker = new Worker(new URL(file, import.meta.url), { workerData });
  const done = new Promise((resolve, reject) => {
    worker.on("message", (message) => {
      if (message?.done) resolve(message.done);
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`${file} exited (${code}) before its results`)));
  });
  await new Promise((resolve, reject) => {
    worker.once("message", resolve); // "ready"
    worker.once("error", reject);
  });
  const finished = new AbortController();
  void done.then(() => finished.abort(), () => finished.abort());
  worker.postMessage("start");
  const main = await during(finished.signal);
  if (stopAfter) worker.postMessage(stopAfter);
  const result = await done;
  await worker.terminate();
  return { main, worker: result };
}

function swipeFigures(run) {
  const sorted = run.latencies.sort((a, b) => a - b);
  return {
    swipes: { sent: run.total, decided: run.decided, lost: run.lost, overBridgeTimeout: sorted.filter((ms) => ms > BRIDGE_TIMEOUT_MS).length },
    decisionsMs: { p50: round1(percentile(sorted, 50)), p99: round1(percentile(sorted, 99)), max: round1(sorted.at(-1) ?? NaN) },
  };
}

/** Sums the exports of a phase: rows/s over all of them (an unfinished last one included). */
function exportSummary(exports) {
  if (exports.length === 0) return null;
  const rows = exports.reduce((sum, e) => sum + e.rows, 0);
  const seconds = exports.reduce((sum, e) => sum + e.seconds, 0);
  return {
    count: exports.length,
    completed: exports.filter((e) => e.complete).length,
    rowsPerSecond: Math.round(rows / seconds),
    rowsPerExport: Math.max(...exports.map((e) => e.rows)),
    bytes: Math.max(...exports.map((e) => e.bytes)),
    wireBytes: Math.max(...exports.map((e) => e.wireBytes)),
    contentEncoding: [...new Set(exports.map((e) => e.contentEncoding))].join(","),
    statuses: [...new Set(exports.map((e) => e.status))].join(","),
  };
}

/** The access service's decision-duration histogram: cumulative counts by upper bound (seconds). */
async function decisionHistogram(baseUrl, token) {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) return null;
  const buckets = new Map();
  for (const match of (await response.text()).matchAll(/^door_decision_duration_seconds_bucket\{le="([^"]+)",process="access"\} (\d+)$/gm)) {
    buckets.set(match[1] === "+Inf" ? Infinity : Number(match[1]), Number(match[2]));
  }
  return buckets.size > 0 ? buckets : null;
}

/** p50 and p99 (ms, as the upper bound of the bucket that holds them) of the decisions between two histograms. */
function histogramFigures(before, after) {
  if (!before || !after) return null;
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => after.get(bound) - (before.get(bound) ?? 0));
  const total = counts.at(-1);
  const at = (p) => {
    const index = counts.findIndex((count) => count >= total * p);
    return bounds[index] === Infinity ? "> " + bounds[index - 1] * 1000 : bounds[index] * 1000;
  };
  return total > 0 ? { count: total, p50AtMost: at(0.5), p99AtMost: at(0.99) } : null;
}

/** Until the service answers (it may start after the HTTP server, in whatever process). */
async function waitForDecisions(bridges, cards, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const probe = await sendSwipes(bridges.slice(0, 1), cards, { rate: 2, seconds: 0.6, drainTimeoutMs: 1500 });
    if (probe.decided > 0) return;
  }
  throw new Error("the access service gave no decision");
}

async function connectWhenReady(mqttUrl, doors, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connectBridges(mqttUrl, doors);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

/**
 * The generated log, or a copy of `cache` (made by an earlier run with the
 * same --logs-db): generating a million rows takes minutes on a busy machine,
 * and a side-by-side comparison wants the same rows for both runs. A newer
 * app migrates the copy when it starts.
 */
async function prepareLogs(databaseUrl, rows, cache) {
  const file = databaseUrl.slice("file:".length);
  if (cache && fs.existsSync(cache)) {
    progress(`copying the access log from ${cache}`);
    fs.copyFileSync(cache, file);
    return;
  }
  progress(`generating ${rows} access-log rows in ${path.dirname(file)}`);
  await generateAccessLogs({ url: databaseUrl, rows, log: progress });
  if (cache) {
    const client = createClient({ url: databaseUrl });
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    client.close();
    fs.copyFileSync(file, cache);
    progress(`kept a copy in ${cache} for --logs-db`);
  }
}

export async function runScenario(scenario, args) {
  const rows = Number(args.rows ?? (scenario === "web" || scenario === "export" ? 1_000_000 : 0));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-access-${scenario}-`));
  const databaseUrl = `file:${path.join(dir, "app.db")}`;
  let server = null;
  let bridges = [];
  try {
    if (rows > 0) await prepareLogs(databaseUrl, rows, args["logs-db"]);
    const sensorId = scenario === "flood" ? "bench-flood" : null;
    const seeded = scenario !== "export" ? await seedDoorsAndCards(dir, databaseUrl, Number(args.doors ?? 20), Number(args.cards ?? 200), sensorId) : null;

    const mqttPort = await freePort();
    const metricsToken = crypto.randomBytes(24).toString("hex");
    server = await startApp({
      dataDir: dir,
      env: { DATABASE_URL: databaseUrl, MQTT_HOST: "127.0.0.1", MQTT_PORT: String(mqttPort), MQTT_TOPIC_PREFIX: PREFIX, METRICS_TOKEN: metricsToken },
    });
    progress(`server ${server.url} (launcher pid ${server.pid}, log ${server.logFile}), MQTT on ${mqttPort}`);
    const cookie = await signIn(server.url);
    const base = { rootPid: server.pid, baseUrl: server.url, cookie };

    if (scenario === "export") {
      const label = { scenario, rows };
      const { web, cpu } = await observed({ ...base, label, durationMs: null, exportPath: EXPORT_PATH, maxExports: Number(args.repeat) }, async () => null);
      const summary = exportSummary(web.exports);
      const pick = (key) => median(web.exports.map((e) => e[key]));
      console.info(JSON.stringify({ ...label, summary: { ...summary, medianRowsPerSecond: Math.round(pick("rowsPerSecond")), medianPeakRssMB: pick("peakRssMB"), medianHwmSumMB: pick("hwmSumMB") }, server: web.server, cpu }));
      return web.exports.every((e) => e.complete) ? 0 : 1;
    }

    const rate = Number(args.rate ?? 50);
    const seconds = Number(args.duration ?? 30);
    const pages = args.pages ? args.pages.split(",") : DEFAULT_PAGES;
    await waitForPort(mqttPort, 60_000);
    bridges = await connectWhenReady(`mqtt://127.0.0.1:${mqttPort}`, seeded.doors);
    await waitForDecisions(bridges, seeded.cards);
    progress(`warm-up: ${args.warmup} s of swipes, a few page loads`);
    await sendSwipes(bridges, seeded.cards, { rate, seconds: Number(args.warmup) });
    await runLoad({ baseUrl: server.url, total: 40, concurrency: 4, makeRequest: (i) => ({ path: pages[i % pages.length], headers: { Cookie: cookie } }) });

    if (scenario === "flood" || scenario === "signin") {
      return await runSideLoadPhases(scenario, { args, rate, seconds, seeded, server, mqttPort, databaseUrl, bridges });
    }

    let failed = false;
    for (const phase of ["alone", "web"]) {
      progress(`phase ${phase}: ${rate} swipes/s for ${seconds} s${phase === "web" ? `, export + ${args.clients} page clients` : ""}`);
      const label = { scenario, phase, rows };
      const busy = phase === "web";
      const histogramBefore = await decisionHistogram(server.url, metricsToken);
      const { web, main, cpu } = await observed(
        { ...base, label, durationMs: seconds * 1000, exportPath: busy ? EXPORT_PATH : null, pageClients: busy ? Number(args.clients) : 0, pages },
        () => sendSwipes(bridges, seeded.cards, { rate, seconds }),
      );
      const line = { ...label, rate, seconds, doors: seeded.doors.length, ...swipeFigures(main) };
      line.serviceMs = histogramFigures(histogramBefore, await decisionHistogram(server.url, metricsToken));
      if (busy) {
        line.export = exportSummary(web.exports);
        const p = web.pageLoads;
        line.pages = { clients: Number(args.clients), count: p.count, p50: p.p50, p95: p.p95, p99: p.p99, max: p.max, perSecond: p.requestsPerSecond, statuses: p.statuses };
      }
      line.server = web.server;
      line.cpu = cpu;
      console.info(JSON.stringify(line));
      failed ||= main.lost > 0 || (busy && (web.exports.some((e) => e.status !== 200) || Object.keys(line.pages.statuses).some((s) => s !== "200")));
    }
    return failed ? 1 : 0;
  } finally {
    await endBridges(bridges, true);
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * flood / signin: the swipes alone, then beside the side load; one JSON line
 * per phase. A phase fails when a swipe got no decision.
 */
async function runSideLoadPhases(scenario, { args, rate, seconds, seeded, server, mqttPort, databaseUrl, bridges }) {
  let failed = false;
  for (const phase of ["alone", scenario]) {
    const label = { scenario, phase };
    const cpu = cpuCounter(server.pid);
    let line;
    if (phase === "alone") {
      progress(`phase alone: ${rate} swipes/s for ${seconds} s`);
      const main = await sendSwipes(bridges, seeded.cards, { rate, seconds });
      line = { ...label, rate, seconds, ...swipeFigures(main) };
      failed ||= main.lost > 0;
    } else if (scenario === "flood") {
      const readings = Number(args.readings ?? 1000);
      progress(`phase flood: ${rate} swipes/s for ${seconds} s while a sensor publishes ${readings} readings/s`);
      const before = await countReadings(databaseUrl);
      const { main, worker } = await besideWorker(
        "./sensor-flood-worker.mjs",
        { url: `mqtt://127.0.0.1:${mqttPort}`, prefix: PREFIX, sensor: seeded.sensor, rate: readings },
        () => sendSwipes(bridges, seeded.cards, { rate, seconds }),
        { stopAfter: "stop" },
      );
      const stored = (await countReadings(databaseUrl)) - before;
      line = {
        ...label,
        rate,
        seconds,
        ...swipeFigures(main),
        sensor: { sent: worker.sent, acked: worker.acked, perSecond: Math.round(worker.sent / worker.seconds), stored },
      };
      failed ||= main.lost > 0;
    } else {
      const bursts = Number(args.bursts ?? 3);
      const size = Number(args.burst ?? 200);
      progress(`phase signin: ${rate} swipes/s while ${bursts} bursts of ${size} wrong-password sign-ins run back to back`);
      const { main, worker } = await besideWorker("./signin-burst-worker.mjs", { baseUrl: server.url, bursts, size }, (finished) =>
        // At most 10 minutes; the phase ends with the bursts.
        sendSwipes(bridges, seeded.cards, { rate, seconds: 600, signal: finished }),
      );
      line = { ...label, rate, seconds: round1(main.sendingSeconds), ...swipeFigures(main), signIns: worker.bursts };
      failed ||= main.lost > 0;
    }
    line.cpu = cpu();
    console.info(JSON.stringify(line));
  }
  return failed ? 1 : 0;
}

async function countReadings(databaseUrl) {
  const client = createClient({ url: databaseUrl });
  try {
    return Number((await client.execute("SELECT count(*) AS n FROM building_readings")).rows[0].n);
  } finally {
    client.close();
  }
}
