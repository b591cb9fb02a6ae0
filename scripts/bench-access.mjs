#!/usr/bin/env node
// `npm run bench:access`: simulated door bridges swipe cards over MQTT against
// the access service running in its own process (build of
// app/access/main.server.ts), on the embedded broker and on Mosquitto.
// Prints decisions per second, swipe→decision latency (p50, p99, max) and
// checks that the access log has exactly one row per swipe.
//
//   node scripts/bench-access.mjs [--broker embedded|mosquitto|both] [--duration 60]
//        [--rate 1000] [--doors 50] [--cards 1000] [--warmup 3] [--log-rows 0]
//        [--groups 0] [--data-dirs DIR,DIR]
//
// --keys adds door keys (issue 29: a stay's PIN and QR token) for as many holders
// as cards, each opening ~20% of the doors now, and sends a third of the swipes
// as cards, a third as PINs (source keypad) and a third as QR tokens (source
// qr), each with the cards' mix (~85% valid here, ~10% other doors, ~3%
// unknown); it runs once per rate of --rates (default 50,1000) on the embedded
// broker and prints p50/p99 per credential kind side by side.
//
// --groups N adds N access groups of 10 doors each, with timetables (a third
// always, a third on every day 00:00-24:00, a third at an hour that is over),
// and puts each user in 3 of them: the decisions then read the groups'
// timetables (kept in the service's memory) besides the card permissions.
//
// The load is open-loop: swipes leave at the target rate whatever the answers
// do, so a slow service shows up as latency, not as a lower offered rate.
// Each run uses a fresh database in a temp directory; --log-rows N starts it
// with N earlier log rows of those doors and cards (a building's log of weeks).
// --data-dirs runs every broker once per directory, side by side (say the
// disk and /dev/shm: the same service on memory-backed storage).
// ACCESS_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" passes Node flags to the access
// service process (to profile it).
//
// Other scenarios (scripts/bench/access-web.mjs), against the whole product
// as `npm start` runs it:
//   --scenario web     what a person at a door waits for while the web side
//                      is busy (a CSV export of the whole log, 20 admins paging)
//   --scenario export  the CSV export of the whole log alone
//   --scenario flood   swipes (50/s) alone, then while a building sensor
//                      floods the broker with 1,000 readings/s
//   --scenario signin  swipes (50/s) alone, then during bursts of 200
//                      wrong-password sign-ins sent at once from one address
// and, on the recording alone (scripts/bench/record-batch.ts, no MQTT):
//   --scenario record  milliseconds per batch of swipes, with SQLite's own
//                      checkpoints and with the checkpoint thread, side by side;
//                      then the log's counters against a full recount (issue 27:
//                      `--batch 50 --batches 20000` is a million swipes)
// and on the metrics alone (scripts/bench/metrics-cost.ts, no MQTT, no SQLite):
//   --scenario metrics CPU time the metrics add to each door decision
// and on the storage alone (scripts/bench/storage-commits.mjs, no SQLite):
//   --scenario storage durable commits as the recorder makes them at 1,000
//                      swipes/s, alone and beside a checkpoint's page writes
// `--help` lists their options.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { bundleTs, runTs } from "./lib/run-ts.mjs";
import { connectBridges, endBridges, percentile, pickCard, PREFIX, sendSwipes } from "./lib/bridges.mjs";
import { cpuSeconds, machineBusySeconds } from "./lib/proc.mjs";
import { freePort, sleep, waitForPort } from "./lib/server.mjs";
import { aclFileText, mosquittoHash } from "./mosquitto-passwords.mjs";

const { values: args } = parseArgs({
  options: {
    scenario: { type: "string", default: "default" },
    broker: { type: "string", default: "both" },
    // Defaults of these depend on the scenario (see the usage text).
    duration: { type: "string" },
    rate: { type: "string" },
    doors: { type: "string" },
    cards: { type: "string" },
    warmup: { type: "string", default: "3" },
    "log-rows": { type: "string", default: "0" },
    groups: { type: "string", default: "0" },
    keys: { type: "boolean", default: false },
    rates: { type: "string", default: "50,1000" },
    "data-dirs": { type: "string" },
    // --scenario web / export
    rows: { type: "string" },
    "logs-db": { type: "string" },
    clients: { type: "string", default: "20" },
    pages: { type: "string" },
    repeat: { type: "string", default: "3" },
    // --scenario flood / signin
    readings: { type: "string", default: "1000" },
    bursts: { type: "string", default: "3" },
    burst: { type: "string", default: "200" },
    // --scenario record
    batch: { type: "string", default: "8" },
    batches: { type: "string", default: "3000" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.info(
    [
      "usage: node scripts/bench-access.mjs [--broker embedded|mosquitto|both] [--duration 60] [--rate 1000] [--doors 50] [--cards 1000] [--warmup 3] [--log-rows 0] [--groups 0] [--data-dirs DIR,DIR]",
      "       node scripts/bench-access.mjs --keys [--rates 50,1000] [--duration 60] [--doors 50] [--cards 1000] (cards, PINs and QR tokens side by side)",
      "       node scripts/bench-access.mjs --scenario web [--rows 1000000] [--rate 50] [--duration 30] [--doors 20] [--cards 200] [--clients 20] [--pages /admin/logs,…] [--warmup 3]",
      "       node scripts/bench-access.mjs --scenario export [--rows 1000000] [--repeat 3]",
      "       node scripts/bench-access.mjs --scenario flood [--readings 1000] [--rate 50] [--duration 30] [--doors 20] [--cards 200] [--rows 0] [--warmup 3]",
      "       node scripts/bench-access.mjs --scenario signin [--bursts 3] [--burst 200] [--rate 50] [--doors 20] [--cards 200] [--rows 0] [--warmup 3]",
      "       node scripts/bench-access.mjs --scenario record [--batch 8] [--batches 3000] [--doors 50] [--cards 1000] [--log-rows 0]",
      "       node scripts/bench-access.mjs --scenario storage [--duration 20] [--data-dirs DIR,DIR]",
      "       node scripts/bench-access.mjs --scenario metrics",
      "       (web, export: --logs-db FILE keeps the generated log in FILE and reuses it in later runs)",
      "BENCH_PORTS=5100-5199 keeps every port in that range; TMPDIR chooses where scratch data goes.",
    ].join("\n"),
  );
  process.exit(0);
}
if (!["default", "web", "export", "flood", "signin", "record", "storage", "metrics"].includes(args.scenario)) throw new Error(`unknown scenario ${args.scenario}`);
const DURATION_S = Number(args.duration ?? 60);
const RATE = Number(args.rate ?? 1000);
const DOORS = Number(args.doors ?? 50);
const CARDS = Number(args.cards ?? 1000);
const WARMUP_S = Number(args.warmup);
const LOG_ROWS = Number(args["log-rows"]);
const GROUPS = Number(args.groups);
const KEYS = args.keys;
const APP_USERNAME = "coliving.app";
const MOSQUITTO = "/usr/sbin/mosquitto";
const DRAIN_TIMEOUT_MS = 10_000;
const brokers = KEYS && args.broker === "both" ? ["embedded"] : args.broker === "both" ? ["embedded", "mosquitto"] : [args.broker];
// Where each run's scratch directory (its database) goes; the system's temp directory by default.
const dataDirs = args["data-dirs"] ? args["data-dirs"].split(",").map((dir) => path.resolve(dir)) : [os.tmpdir()];
for (const broker of brokers) {
  if (!["embedded", "mosquitto"].includes(broker)) throw new Error(`unknown broker ${broker}`);
}

/** The access service bundle, built from the sources (not from a possibly stale build/). */
function bundleService() {
  return bundleTs("app/access/main.server.ts", path.resolve("node_modules/.cache/coliving-bench/access.mjs"));
}

/**
 * `count` earlier rows, one every 100 ms before `now`, spread over the seeded
 * doors and cards (their holders' usernames too), about 84% granted.
 */
async function fillLog(client, count, now) {
  console.info(`[bench] filling the access log with ${count} earlier rows`);
  await client.execute(`
    WITH RECURSIVE n(i, id) AS (
      SELECT 1, lower(hex(randomblob(16)))
      UNION ALL SELECT i + 1, lower(hex(randomblob(16))) FROM n WHERE i < ${Math.trunc(count)})
    INSERT INTO access_logs (id, event_id, timestamp, card_id, card_number, door_id, door_code, door_name, user_id,
                             username, access_granted, reason, is_anonymous, offline, source)
    SELECT n.id, n.id, ${now} - n.i * 100, c.id, c.card_number, d.id, d.door_id, d.name, u.id, u.username,
           n.i % 100 < 84, CASE WHEN n.i % 100 < 84 THEN 'granted' ELSE 'no_permission' END, 0, 0, 'reader'
    FROM n
    JOIN doors d ON d.rowid = 1 + (n.i * 7) % ${DOORS}
    JOIN cards c ON c.rowid = 1 + (n.i * 7919) % ${CARDS}
    LEFT JOIN users u ON u.id = c.user_id`);
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
    for (let g = 0; g < Math.min(GROUPS, 3); g++) {
      statements.push({ sql: "INSERT INTO user_access_groups (user_id, group_id) VALUES (?, ?)", args: [userId, `bench-group-${(i * 7 + g * 31) % GROUPS}`] });
    }
  }
  const ALL_DAY = JSON.stringify([{ days: [1, 2, 3, 4, 5, 6, 7], from: "00:00", to: "24:00" }]);
  const OVER = JSON.stringify([{ days: [1, 2, 3, 4, 5, 6, 7], from: "00:00", to: "00:01" }]);
  for (let g = 0; g < GROUPS; g++) {
    // Groups first: the memberships above refer to them (statements run in order, so insert them at the front).
    statements.unshift({ sql: "INSERT INTO access_groups (id, name) VALUES (?, ?)", args: [`bench-group-${g}`, `Grupo ${g}`] });
    for (let k = 0; k < Math.min(10, DOORS); k++) {
      const door = doors[(g * 3 + k * 5) % DOORS];
      statements.push({
        sql: "INSERT OR IGNORE INTO access_group_doors (group_id, door_id, schedule) VALUES (?, ?, ?)",
        args: [`bench-group-${g}`, door.rowId, g % 3 === 0 ? "[]" : g % 3 === 1 ? ALL_DAY : OVER],
      });
    }
  }
  const keys = KEYS ? seedKeys(statements, doors, now) : [];
  await client.batch(statements, "write");
  if (LOG_ROWS > 0) await fillLog(client, LOG_ROWS, now);
  await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  client.close();
  return { doors, cards, keys };
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** `LC1-` + 32 base32 characters (160 random bits), as the app issues them. */
const qrToken = () => `LC1-${Array.from(crypto.randomBytes(32), (byte) => BASE32[byte % 32]).join("")}`;

/** --keys: one key per card's holder, open now (until tomorrow), on ~20% of the doors (another fifth than its card's). */
function seedKeys(statements, doors, now) {
  const keys = [];
  const windows = JSON.stringify([[now - 3600_000, now + 86_400_000]]);
  for (let i = 0; i < CARDS; i++) {
    const id = crypto.randomUUID();
    const pin = String(100000 + i);
    const qr = qrToken();
    statements.push({
      sql: `INSERT INTO door_keys (id, kind, pin, qr_token, qr_hash, holder_label, holder_first_name, windows, valid_from, valid_until, entrances)
            VALUES (?, 'stay', ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
      args: [id, pin, qr, crypto.createHash("sha256").update(qr).digest("hex"), `Huésped ${i} · BENCH${i}`, `Huésped${i}`, windows, now - 3600_000, now + 86_400_000],
    });
    const allowed = doors.filter((_, d) => (d + i + 1) % 5 === 0);
    for (const door of allowed) statements.push({ sql: "INSERT INTO door_key_doors (key_id, door_id) VALUES (?, ?)", args: [id, door.rowId] });
    keys.push({ pin, qr, allowedDoors: new Set(allowed.map((door) => door.code)) });
  }
  return keys;
}

/** --keys: a third of the swipes each as a card, a PIN and a QR token, each with the cards' mix. */
function presentMixed(cards, keys) {
  const pickKey = (doorCode, sequence) => {
    const roll = sequence % 100;
    if (roll < 3) return null;
    for (let attempt = 0; attempt < 20; attempt++) {
      const key = keys[Math.floor(Math.random() * keys.length)];
      if (roll < 13 ? !key.allowedDoors.has(doorCode) : key.allowedDoors.has(doorCode)) return key;
    }
    return keys[0];
  };
  return (doorCode, sequence) => {
    const kind = ["card", "pin", "qr"][sequence % 3];
    const mix = Math.floor(sequence / 3);
    if (kind === "card") return { kind, fields: { card: pickCard(cards, doorCode, mix), source: "reader" } };
    const key = pickKey(doorCode, mix);
    if (kind === "pin") return { kind, fields: { pin: key?.pin ?? String(900000 + (mix % 99999)), source: "keypad" } };
    return { kind, fields: { qr: key?.qr ?? qrToken(), source: "qr" } };
  };
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

async function startService(entry, env) {
  const child = spawn(process.execPath, [...(process.env.ACCESS_NODE_FLAGS ? process.env.ACCESS_NODE_FLAGS.split(" ") : []), entry], {
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

async function runOne(broker, entry, dataDir, rate = RATE) {
  const dir = fs.mkdtempSync(path.join(dataDir, `coliving-bench-${broker}-`));
  const databaseUrl = `file:${path.join(dir, "app.db")}`;
  const { doors, cards, keys } = await seed(databaseUrl);
  const present = KEYS ? presentMixed(cards, keys) : undefined;
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
    console.info(`\n[bench] ${broker}${dataDirs.length > 1 ? ` on ${dataDir}` : ""}: ${DOORS} doors, ${CARDS} cards, ${GROUPS} access groups, ${rate} swipes/s, warm-up ${WARMUP_S} s, measure ${DURATION_S} s`);
    const warm = await sendSwipes(bridges, cards, { rate: rate, seconds: WARMUP_S, drainTimeoutMs: DRAIN_TIMEOUT_MS, present });
    const cpuBefore = cpuSeconds(service.child.pid);
    const benchCpuBefore = process.cpuUsage();
    const machineBefore = machineBusySeconds();
    const measuredStart = performance.now();
    const run = await sendSwipes(bridges, cards, { rate: rate, seconds: DURATION_S, drainTimeoutMs: DRAIN_TIMEOUT_MS, onWindow: printWindow, present });
    const measuredSeconds = (performance.now() - measuredStart) / 1000;
    const cpuAfter = cpuSeconds(service.child.pid);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const machineAfter = machineBusySeconds();

    await endBridges(bridges);
    await stopProcess(service.child);
    const client = createClient({ url: databaseUrl });
    const rows = Number((await client.execute("SELECT count(*) AS n FROM access_logs")).rows[0].n);
    const distinct = Number((await client.execute("SELECT count(DISTINCT id) AS n FROM access_logs")).rows[0].n);
    client.close();

    const swipes = warm.total + run.total;
    const sorted = run.latencies.sort((a, b) => a - b);
    const byKind = Object.fromEntries(
      Object.entries(run.latenciesByKind).map(([kind, values]) => {
        const kindSorted = values.sort((a, b) => a - b);
        return [kind, { decided: kindSorted.length, p50: percentile(kindSorted, 50), p99: percentile(kindSorted, 99), max: kindSorted.at(-1) ?? NaN }];
      }),
    );
    const result = {
      rate: rate,
      byKind,
      broker: dataDirs.length > 1 ? `${broker} on ${dataDir}` : broker,
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
      logRows: rows - LOG_ROWS,
      expectedRows: swipes,
      logOk: rows - LOG_ROWS === swipes && distinct === rows,
    };
    printResult(result);
    return result;
  } finally {
    await endBridges(bridges, true);
    await stopProcess(service.child);
    if (mosquitto) await stopProcess(mosquitto.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per 5-s window, with the machine's total CPU in it: on a shared machine the tail follows what other processes do. */
function printWindow(second, sorted, machineCpu) {
  const machine = machineCpu !== null ? ` (machine CPU ${machineCpu.toFixed(0)}%)` : "";
  console.info(
    `  ${String(second).padStart(4)} s   p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  max ${sorted.at(-1).toFixed(1)} ms${machine}`,
  );
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
  for (const [kind, k] of Object.entries(r.byKind)) {
    console.info(`  ${kind.padEnd(5)} decisions      ${k.decided}  p50 ${k.p50.toFixed(1)} ms  p99 ${k.p99.toFixed(1)} ms  max ${k.max.toFixed(1)} ms`);
  }
}

async function runDefaultScenario() {
  const entry = await bundleService();
  const results = [];
  if (KEYS) return runKeysScenario(entry);
  for (const dataDir of dataDirs) {
    for (const broker of brokers) results.push(await runOne(broker, entry, dataDir));
  }
  console.info(`\n[bench] target: ${RATE} swipes/s for ${DURATION_S} s, p99 ≤ 20 ms, nothing lost`);
  for (const r of results) {
    const met = r.lost === 0 && r.logOk && r.p99 <= 20 && r.decisionsPerSecond >= RATE * 0.98;
    console.info(`  ${r.broker.padEnd(dataDirs.length > 1 ? 30 : 10)} ${r.decisionsPerSecond.toFixed(0)}/s, p99 ${r.p99.toFixed(1)} ms: ${met ? "met" : "NOT met"}`);
  }
  // Lost swipes or a wrong log count are failures; missing the latency target is a finding.
  return results.some((r) => !r.logOk || r.lost > 0) ? 1 : 0;
}

/** --keys: cards, PINs and QR tokens mixed, once per rate; p50/p99 per kind side by side. */
async function runKeysScenario(entry) {
  const rates = args.rates.split(",").map(Number);
  const results = [];
  for (const rate of rates) results.push(await runOne(brokers[0], entry, dataDirs[0], rate));
  console.info(`\n[bench] decisions by credential kind (${brokers[0]} broker, ${DOORS} doors, ${CARDS} cards and keys, ${DURATION_S} s each)`);
  console.info("  rate/s   kind   decisions   p50 ms   p99 ms   max ms");
  for (const r of results) {
    for (const kind of ["card", "pin", "qr"]) {
      const k = r.byKind[kind];
      if (!k) continue;
      console.info(`  ${String(r.rate).padStart(6)}   ${kind.padEnd(5)}  ${String(k.decided).padStart(9)}   ${k.p50.toFixed(1).padStart(6)}   ${k.p99.toFixed(1).padStart(6)}   ${k.max.toFixed(1).padStart(6)}`);
    }
  }
  return results.some((r) => !r.logOk || r.lost > 0) ? 1 : 0;
}

/**
 * recordAccessBatch alone, in a process of its own on a freshly seeded log:
 * every commit free to checkpoint (SQLite's default), then as build/access.js
 * runs it (checkpoint thread, recorder's connection leaving checkpoints to it).
 */
async function runRecordScenario() {
  const entry = await bundleTs("scripts/bench/record-batch.ts", path.resolve("node_modules/.cache/coliving-bench/record-batch.mjs"));
  const results = [];
  for (const checkpoints of ["sqlite", "thread"]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-bench-record-"));
    const databaseUrl = `file:${path.join(dir, "app.db")}`;
    const { doors, cards } = await seed(databaseUrl);
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: databaseUrl,
        DATA_DIR: dir,
        BENCH_BATCH: args.batch,
        BENCH_BATCHES: args.batches,
        BENCH_CHECKPOINTS: checkpoints,
        BENCH_DOOR_CODES: doors.map((door) => door.code).join(","),
        BENCH_CARD_NUMBERS: cards.map((card) => card.number).join(","),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    fs.rmSync(dir, { recursive: true, force: true });
    if (code !== 0) throw new Error(`record-batch exited (${code}):\n${output}`);
    const result = JSON.parse(output.trim().split("\n").at(-1));
    console.info(JSON.stringify(result));
    results.push(result);
  }
  console.info(`\n[bench] recordAccessBatch, ${args.batches} batches of ${args.batch} swipes, ${DOORS} doors, ${CARDS} cards (ms a batch)`);
  for (const r of results) {
    const label = r.checkpoints === "thread" ? "checkpoint thread" : "SQLite's own checkpoints";
    console.info(`  ${label.padEnd(26)} mean ${r.meanMs}  p50 ${r.p50Ms}  p99 ${r.p99Ms}  max ${r.maxMs}  counters = recount: ${r.countersMatchRecount}`);
  }
  return 0;
}

if (args.scenario === "default") {
  process.exitCode = await runDefaultScenario();
} else if (args.scenario === "record") {
  process.exitCode = await runRecordScenario();
} else if (args.scenario === "metrics") {
  await runTs("scripts/bench/metrics-cost.ts");
} else if (args.scenario === "storage") {
  const { runStorageScenario } = await import("./bench/storage-commits.mjs");
  process.exitCode = await runStorageScenario({ dataDirs, seconds: Number(args.duration ?? 20) });
} else {
  const { runScenario } = await import("./bench/access-web.mjs");
  process.exitCode = await runScenario(args.scenario, args);
}
