#!/usr/bin/env node
// `npm run bench:access`: simulated door bridges swipe cards over MQTT against
// the access service running in its own process (build of
// app/access/main.server.ts), on the embedded broker and on Mosquitto.
// Prints decisions per second, swipe→decision latency (p50, p99, max) and
// checks that the access log has exactly one row per swipe.
//
//   node scripts/bench-access.mjs [--broker embedded|mosquitto|both] [--duration 60]
//        [--rate 1000] [--doors 50] [--cards 1000] [--warmup 3]
//
// The load is open-loop: swipes leave at the target rate whatever the answers
// do, so a slow service shows up as latency, not as a lower offered rate.
// Each run uses a fresh database in a temp directory.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { bundleTs } from "./lib/run-ts.mjs";
import mqtt from "mqtt";
import { aclFileText, mosquittoHash } from "./mosquitto-passwords.mjs";

const { values: args } = parseArgs({
  options: {
    broker: { type: "string", default: "both" },
    duration: { type: "string", default: "60" },
    rate: { type: "string", default: "1000" },
    doors: { type: "string", default: "50" },
    cards: { type: "string", default: "1000" },
    warmup: { type: "string", default: "3" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.info(
    "usage: node scripts/bench-access.mjs [--broker embedded|mosquitto|both] [--duration 60] [--rate 1000] [--doors 50] [--cards 1000] [--warmup 3]",
  );
  process.exit(0);
}
const DURATION_S = Number(args.duration);
const RATE = Number(args.rate);
const DOORS = Number(args.doors);
const CARDS = Number(args.cards);
const WARMUP_S = Number(args.warmup);
const PREFIX = "coliving";
const APP_USERNAME = "coliving.app";
const MOSQUITTO = "/usr/sbin/mosquitto";
const DRAIN_TIMEOUT_MS = 10_000;
const brokers = args.broker === "both" ? ["embedded", "mosquitto"] : [args.broker];
for (const broker of brokers) {
  if (!["embedded", "mosquitto"].includes(broker)) throw new Error(`unknown broker ${broker}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await sleep(25);
  }
  throw new Error(`nothing listens on ${port}`);
}

/** The access service bundle, built from the sources (not from a possibly stale build/). */
function bundleService() {
  return bundleTs("app/access/main.server.ts", path.resolve("node_modules/.cache/coliving-bench/access.mjs"));
}

const cardNumber = (i) => (0x10000000 + i).toString(16).toUpperCase();

/**
 * Doors with bridge secrets; users and cards, each card granted on ~20% of
 * the doors; a few inactive cards. Returns what the simulated bridges need.
 */
async function seed(databaseUrl) {
  const client = createClient({ url: databaseUrl });
  await client.execute("PRAGMA journal_mode = WAL");
  await migrate(drizzle(client), { migrationsFolder: path.resolve("drizzle") });
  const now = Date.now();
  const doors = Array.from({ length: DOORS }, (_, i) => ({
    rowId: crypto.randomUUID(),
    code: `door-${String(i).padStart(3, "0")}`,
    password: crypto.randomBytes(24).toString("base64url"),
  }));
  const statements = [];
  for (const door of doors) {
    statements.push({
      sql: "INSERT INTO doors (id, door_id, name, location, bridge_secret_hash, bridge_secret_issued_at) VALUES (?, ?, ?, ?, ?, ?)",
      args: [door.rowId, door.code, `Puerta ${door.code}`, "Benchmark", mosquittoHash(door.password), now],
    });
  }
  const cards = [];
  for (let i = 0; i < CARDS; i++) {
    const userId = crypto.randomUUID();
    const cardId = crypto.randomUUID();
    const inactive = i % 50 === 49;
    statements.push({
      sql: "INSERT INTO users (id, username, email, password_hash, first_name) VALUES (?, ?, ?, 'x', ?)",
      args: [userId, `bench${i}`, `bench${i}@example.com`, `Vecino${i}`],
    });
    statements.push({
      sql: "INSERT INTO cards (id, card_number, status, user_id) VALUES (?, ?, ?, ?)",
      args: [cardId, cardNumber(i), inactive ? "inactive" : "active", userId],
    });
    const allowed = doors.filter((_, d) => (d + i) % 5 === 0);
    for (const door of allowed) {
      statements.push({ sql: "INSERT INTO card_permissions (card_id, door_id) VALUES (?, ?)", args: [cardId, door.rowId] });
    }
    cards.push({ number: cardNumber(i), allowedDoors: new Set(allowed.map((door) => door.code)) });
  }
  await client.batch(statements, "write");
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  return { doors, cards };
}

function startMosquitto(dir, doors, appPassword) {
  const passwordFile = path.join(dir, "passwords");
  const aclFile = path.join(dir, "acl");
  const config = path.join(dir, "mosquitto.conf");
  return (async () => {
    const port = await freePort();
    fs.writeFileSync(
      passwordFile,
      [`${APP_USERNAME}:${mosquittoHash(appPassword)}`, ...doors.map((door) => `${door.code}:${mosquittoHash(door.password)}`)].join("\n") + "\n",
    );
    fs.writeFileSync(aclFile, aclFileText(PREFIX, APP_USERNAME));
    fs.writeFileSync(
      config,
      [
        "per_listener_settings false",
        `listener ${port} 127.0.0.1`,
        "allow_anonymous false",
        `password_file ${passwordFile}`,
        `acl_file ${aclFile}`,
        "set_tcp_nodelay true",
        "max_queued_messages 10000",
        "persistence false",
        `user ${os.userInfo().username}`,
        "log_dest stderr",
        "log_type error",
        "",
      ].join("\n"),
    );
    if (!fs.existsSync(MOSQUITTO)) throw new Error(`${MOSQUITTO} is missing: apt-get install -y mosquitto`);
    const child = spawn(MOSQUITTO, ["-c", config], { stdio: ["ignore", "ignore", "pipe"] });
    let errors = "";
    child.stderr.on("data", (chunk) => {
      errors += chunk.toString();
    });
    child.once("exit", (code) => {
      if (code !== 0) console.error(`[bench] mosquitto exited (${code}):\n${errors}`);
    });
    await waitForPort(port);
    return { child, port };
  })();
}

/** User + system CPU time of a process (Linux; clock ticks of 1/100 s), or null elsewhere. */
function cpuSeconds(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine, all cores (Linux), or null. */
function machineBusySeconds() {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + fields[4]; // idle + iowait
    return (fields.reduce((sum, value) => sum + value, 0) - idle) / 100;
  } catch {
    return null;
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function startService(entry, env) {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  while (!output.includes("access service running")) {
    if (child.exitCode !== null) throw new Error(`access service exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`access service did not start:\n${output}`);
    await sleep(50);
  }
  return { child, output: () => output };
}

async function stopProcess(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

async function connectBridges(url, doors) {
  return Promise.all(
    doors.map(async (door) => {
      const client = await mqtt.connectAsync(url, {
        clientId: `coliving-bridge-${door.code}`,
        username: door.code,
        password: door.password,
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 0,
      });
      client.stream.setNoDelay?.(true);
      await client.subscribeAsync(`${PREFIX}/doors/${door.code}/decision`, { qos: 1 });
      return { door, client };
    }),
  );
}

/** Mix: ~85% cards allowed on the door, ~10% not allowed, 2% inactive, ~3% never seen. */
function pickCard(cards, doorCode, sequence) {
  const roll = sequence % 100;
  if (roll < 3) return `FF${sequence.toString(16).toUpperCase().padStart(8, "0")}`;
  for (let attempt = 0; attempt < 20; attempt++) {
    const card = cards[Math.floor(Math.random() * cards.length)];
    if (roll < 13 ? !card.allowedDoors.has(doorCode) : card.allowedDoors.has(doorCode)) return card.number;
  }
  return cards[0].number;
}

const WINDOW_S = 5;

/**
 * Sends at RATE for `seconds`. With `record`, keeps every latency and prints
 * one line per 5-s window with the machine's total CPU in it: on a shared
 * machine the tail follows what other processes do.
 */
async function runLoad(bridges, cards, { seconds, record }) {
  const sent = new Map();
  const latencies = [];
  let windowLatencies = [];
  let decided = 0;
  let granted = 0;
  const onMessage = (topic, payload) => {
    const decision = JSON.parse(payload.toString());
    const sentAt = sent.get(decision.id);
    if (sentAt === undefined) return;
    sent.delete(decision.id);
    decided += 1;
    if (decision.granted) granted += 1;
    if (record) {
      latencies.push(performance.now() - sentAt);
      windowLatencies.push(performance.now() - sentAt);
    }
  };
  for (const { client } of bridges) client.on("message", onMessage);
  let windowStart = machineBusySeconds();
  let windowIndex = 0;
  const windowTimer = setInterval(() => {
    const busy = machineBusySeconds();
    const machine = busy !== null && windowStart !== null ? ` (machine CPU ${(((busy - windowStart) / WINDOW_S) * 100).toFixed(0)}%)` : "";
    windowStart = busy;
    const sorted = windowLatencies.sort((a, b) => a - b);
    windowLatencies = [];
    windowIndex += 1;
    if (!record || sorted.length === 0) return;
    console.info(
      `  ${String(windowIndex * WINDOW_S).padStart(4)} s   p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  max ${sorted.at(-1).toFixed(1)} ms${machine}`,
    );
  }, WINDOW_S * 1000);

  const start = performance.now();
  let total = 0;
  let next = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * RATE);
    while (total < due) {
      const { door, client } = bridges[next];
      next = (next + 1) % bridges.length;
      const id = crypto.randomUUID();
      const swipe = { id, card: pickCard(cards, door.code, total), at: new Date().toISOString(), source: "reader" };
      sent.set(id, performance.now());
      client.publish(`${PREFIX}/doors/${door.code}/swipe`, JSON.stringify(swipe), { qos: 1 });
      total += 1;
    }
    await sleep(2);
  }
  const sendingEnded = performance.now();
  const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (sent.size > 0 && Date.now() < drainDeadline) await sleep(20);
  for (const { client } of bridges) client.off("message", onMessage);
  clearInterval(windowTimer);
  return { total, decided, granted, lost: sent.size, latencies, sendingSeconds: (sendingEnded - start) / 1000 };
}

async function runOne(broker, entry) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `coliving-bench-${broker}-`));
  const databaseUrl = `file:${path.join(dir, "app.db")}`;
  const { doors, cards } = await seed(databaseUrl);
  const appPassword = crypto.randomBytes(18).toString("base64url");
  let mosquitto = null;
  let url;
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: dir, MQTT_TOPIC_PREFIX: PREFIX };
  if (broker === "embedded") {
    const port = await freePort();
    Object.assign(env, { MQTT_HOST: "127.0.0.1", MQTT_PORT: String(port) });
    url = `mqtt://127.0.0.1:${port}`;
  } else {
    mosquitto = await startMosquitto(dir, doors, appPassword);
    url = `mqtt://127.0.0.1:${mosquitto.port}`;
    Object.assign(env, {
      MQTT_URL: url,
      MQTT_USERNAME: APP_USERNAME,
      MQTT_PASSWORD: appPassword,
      MQTT_CLIENT_ID: "coliving-access-bench",
    });
  }
  const service = await startService(entry, env);
  const bridges = await connectBridges(url, doors);
  try {
    console.info(`\n[bench] ${broker}: ${DOORS} doors, ${CARDS} cards, ${RATE} swipes/s, warm-up ${WARMUP_S} s, measure ${DURATION_S} s`);
    const warm = await runLoad(bridges, cards, { seconds: WARMUP_S, record: false });
    const cpuBefore = cpuSeconds(service.child.pid);
    const benchCpuBefore = process.cpuUsage();
    const machineBefore = machineBusySeconds();
    const measuredStart = performance.now();
    const run = await runLoad(bridges, cards, { seconds: DURATION_S, record: true });
    const measuredSeconds = (performance.now() - measuredStart) / 1000;
    const cpuAfter = cpuSeconds(service.child.pid);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const machineAfter = machineBusySeconds();

    await Promise.all(bridges.map(({ client }) => client.endAsync()));
    await stopProcess(service.child);
    const client = createClient({ url: databaseUrl });
    const rows = Number((await client.execute("SELECT count(*) AS n FROM access_logs")).rows[0].n);
    const distinct = Number((await client.execute("SELECT count(DISTINCT id) AS n FROM access_logs")).rows[0].n);
    client.close();

    const swipes = warm.total + run.total;
    const sorted = run.latencies.sort((a, b) => a - b);
    const result = {
      broker,
      swipes: run.total,
      decided: run.decided,
      lost: run.lost + warm.lost,
      offeredPerSecond: run.total / run.sendingSeconds,
      decisionsPerSecond: run.decided / measuredSeconds,
      grantedShare: run.decided ? run.granted / run.decided : 0,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? NaN,
      serviceCpu: cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / measuredSeconds : null,
      benchCpu: (benchCpu.user + benchCpu.system) / 1e6 / measuredSeconds,
      machineCpu: machineBefore !== null && machineAfter !== null ? (machineAfter - machineBefore) / measuredSeconds : null,
      logRows: rows,
      expectedRows: swipes,
      logOk: rows === swipes && distinct === rows,
    };
    printResult(result);
    return result;
  } finally {
    await Promise.all(bridges.map(({ client }) => client.endAsync(true).catch(() => {})));
    await stopProcess(service.child);
    if (mosquitto) await stopProcess(mosquitto.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function printResult(r) {
  const ms = (value) => `${value.toFixed(1)} ms`;
  console.info(`[bench] ${r.broker}:`);
  console.info(`  swipes sent        ${r.swipes} (${r.offeredPerSecond.toFixed(0)}/s offered)`);
  console.info(`  decisions          ${r.decided} (${r.decisionsPerSecond.toFixed(0)}/s), granted ${(r.grantedShare * 100).toFixed(0)}%`);
  console.info(`  latency            p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`);
  console.info(`  lost (no decision) ${r.lost}`);
  if (r.serviceCpu !== null) console.info(`  service CPU        ${(r.serviceCpu * 100).toFixed(0)}% of one core`);
  console.info(`  bench CPU          ${(r.benchCpu * 100).toFixed(0)}% of one core (the simulated bridges)`);
  if (r.machineCpu !== null) {
    const others = r.machineCpu - r.benchCpu - (r.serviceCpu ?? 0);
    console.info(`  machine CPU        ${(r.machineCpu * 100).toFixed(0)}% of one core in all, of which ~${(Math.max(0, others) * 100).toFixed(0)}% other processes (broker included) on ${os.cpus().length} cores`);
  }
  console.info(`  log rows           ${r.logRows} for ${r.expectedRows} swipes: ${r.logOk ? "OK" : "MISMATCH"}`);
}

const entry = await bundleService();
const results = [];
for (const broker of brokers) results.push(await runOne(broker, entry));
console.info(`\n[bench] target: ${RATE} swipes/s for ${DURATION_S} s, p99 ≤ 20 ms, nothing lost`);
for (const r of results) {
  const met = r.lost === 0 && r.logOk && r.p99 <= 20 && r.decisionsPerSecond >= RATE * 0.98;
  console.info(`  ${r.broker.padEnd(10)} ${r.decisionsPerSecond.toFixed(0)}/s, p99 ${r.p99.toFixed(1)} ms: ${met ? "met" : "NOT met"}`);
}
// Lost swipes or a wrong log count are failures; missing the latency target is a finding.
process.exitCode = results.some((r) => !r.logOk || r.lost > 0) ? 1 : 0;
