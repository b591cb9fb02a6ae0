// The access service as `npm start` runs it: a child process of the web
// process (the built entry, app/access/main.server.ts, forked by
// startAccessProcess), with its own database connection and event loop.
// This test file plays the web process.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { mkdtemp } from "node:fs/promises";
import net from "node:net";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { sql } from "drizzle-orm";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { eventually } from "../../bridge/src/test-support/eventually";
import { MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { bundleTs } from "../../scripts/lib/run-ts.mjs";
import type { DisplayMessage } from "~/doors/contract";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessProcess, WEB_PRIORITY_OFFSET, type AccessProcessHandle, type ChildMessage } from "~/access/process.server";
import { accessLogs, cards } from "~/db/schema";
import { setDoorMessages } from "~/services/doors.server";
import { getDb } from "~/utils/db.server";
import { addMetricsSource, scrapeMetrics } from "~/utils/metrics.server";
import { FakeBridge } from "../setup/access";
import { createTestCard, createTestDoorWithBridge } from "../setup/fixtures";

const entry = path.resolve("node_modules", ".cache", "coliving-tests", `access-${process.pid}.mjs`);
let access: AccessProcessHandle;
let url: string;
let front: Awaited<ReturnType<typeof createTestDoorWithBridge>>;

beforeAll(async () => {
  await bundleTs("app/access/main.server.ts", entry);
  front = await createTestDoorWithBridge("proc-front");
  await createTestCard("0F000001", [front.door.id], { firstName: "Olga" });
  access = await startAccessProcess({ entry, service: { host: "127.0.0.1", port: 0, credentialsDebounceMs: 50 } });
  // As boot does: this process's change notifications go to the child over its channel.
  useAccessNotifier(access.notifier);
  url = `mqtt://127.0.0.1:${access.mqttPort}`;
});

afterAll(async () => {
  await access?.stop();
  fs.rmSync(entry, { force: true });
});

/** /proc/<pid>/status fields in kB. */
function memoryOf(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
  return { rssKb: kb("VmRSS"), peakKb: kb("VmHWM") };
}

describe("the access service in its own process", () => {
  it("decides swipes there, and hears the web side's changes through the channel", async () => {
    expect(access.pid()).not.toBe(process.pid);
    const bridge = await FakeBridge.connect(url, "proc-front", front.password);
    try {
      expect(await bridge.swipe("0F000001")).toMatchObject({ granted: true, display: { line1: "Hola, Olga" } });
      await setDoorMessages(front.door.id, { useCustomMessages: true, customStatus: "ABIERTO", customMessage: "Desde la web" });
      await bridge.waitFor((m) => m.topic === bridge.topic("display") && (m.json as DisplayMessage).welcome === "Desde la web");
    } finally {
      await setDoorMessages(front.door.id, { useCustomMessages: false, customStatus: undefined, customMessage: undefined });
      await bridge.end();
    }
  });

  it("sends its metrics over the channel: a scrape in this process holds the service's series, its decisions among them", async () => {
    const bridge = await FakeBridge.connect(url, "proc-front", front.password);
    try {
      expect((await bridge.swipe("0F000001")).granted).toBe(true);
    } finally {
      await bridge.end();
    }
    const snapshot = await access.metrics();
    const decisions = snapshot.find((metric) => metric.name === "door_decisions_total");
    expect(decisions?.values).toContainEqual(expect.objectContaining({ labels: { result: "granted", reason: "granted", process: "access" } }));
    // As boot does: each scrape of this process reads the child's series.
    addMetricsSource("access", access.metrics);
    const { body } = await scrapeMetrics();
    expect(body).toMatch(/^door_decision_duration_seconds_count\{process="access"\} [1-9]/m);
    expect(body).toMatch(/^door_decisions_total\{result="granted",reason="granted",process="access"\} [1-9]/m);
    expect(body).toContain('metrics_source_up{source="access"} 1');
  });

  it("gives way to the doors: once the service runs, the web side's thread has a lower CPU priority than the service", () => {
    // This thread plays the web process (a higher nice value is a lower priority).
    expect(os.getPriority()).toBe(os.getPriority(access.pid()!) + WEB_PRIORITY_OFFSET);
  });

  it("gives way with every thread of the web side, and runs the service in a session of its own", () => {
    // Linux keeps a nice value per thread; /proc/<pid>/stat's sixth field is the session.
    const session = (pid: number | "self") => Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3]);
    const lowered = os.getPriority(access.pid()!) + WEB_PRIORITY_OFFSET;
    for (const thread of fs.readdirSync("/proc/self/task").map(Number)) {
      try {
        expect(os.getPriority(thread)).toBeGreaterThanOrEqual(lowered);
      } catch (error) {
        // A thread that ended since the listing.
        if ((error as { info?: { code?: string } }).info?.code !== "ESRCH") throw error;
      }
    }
    expect(session(access.pid()!)).toBe(access.pid());
    expect(session("self")).not.toBe(access.pid());
  });

  it("keeps deciding while the web side's event loop is held by a long query", async () => {
    // The bridge runs in a worker thread; this thread runs the query, which
    // @libsql/client executes synchronously: nothing else runs here meanwhile.
    const state = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
    const worker = new Worker(new URL("../setup/swipe-worker.mjs", import.meta.url), {
      workerData: { url, doorCode: "proc-front", password: front.password, card: "0F000001", state: state.buffer },
    });
    try {
      const messages: unknown[] = [];
      worker.on("message", (message) => messages.push(message));
      const failed = new Promise((_, reject) => worker.once("error", reject));
      await Promise.race([failed, eventually(() => messages.includes("connected"))]);

      Atomics.store(state, 0, 1);
      Atomics.notify(state, 0);
      const counted = await getDb().$client.execute(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT count(*) AS n FROM c",
      );
      Atomics.store(state, 0, 2);
      expect(Number(counted.rows[0]!.n)).toBe(5_000_000);

      const decided = await eventually(() =>
        messages.find((message): message is { decision: { granted: boolean } } => typeof message === "object"),
      );
      expect(decided.decision.granted).toBe(true);
      // The decision reached the door while this process was still inside its query.
      expect(Atomics.load(state, 2)).toBe(1);
      expect(Atomics.load(state, 1)).toBe(1);
    } finally {
      await worker.terminate();
    }
  });

  it("answers a swipe before its commit and records it in a thread of its own: while a batch waits on the database, the doors still get decisions", async () => {
    const swiping = await FakeBridge.connect(url, "proc-front", front.password);
    const events: string[] = [];
    // This process takes the write lock: the access process's next batch waits
    // for it (up to the 5 s busy timeout) inside its transaction.
    const lock = await getDb().$client.transaction("write");
    let id: string;
    let stored: Promise<void>;
    try {
      const since = swiping.received.length;
      const decision = await swiping.swipe("0F000001", { stored: false });
      events.push("decision");
      expect(decision.granted).toBe(true);
      id = decision.id;
      stored = swiping.waitForReceipt(id, { since }).then(() => void events.push("receipt"));
      // Were the batch on the service's main thread, that thread (and the
      // embedded broker on it) would be stuck until the lock goes.
      const watcher = await FakeBridge.connect(url, "proc-front", front.password);
      await watcher.waitFor((message) => message.topic === watcher.topic("display"));
      events.push("display");
      await watcher.end();
      expect(await getDb().select().from(accessLogs).where(sql`${accessLogs.id} = ${id}`)).toEqual([]);
    } finally {
      events.push("unlock");
      await lock.commit();
    }
    await stored;
    expect(events).toEqual(["decision", "display", "unlock", "receipt"]);
    const [row] = await getDb().select().from(accessLogs).where(sql`${accessLogs.id} = ${id}`);
    expect(row).toMatchObject({ accessGranted: true, reason: "granted", offline: false });
    await swiping.end();
  });

  it("answers later swipes on what earlier ones left, before either is committed: a card's second swipe finds it pending, a redelivery repeats the answer", async () => {
    const swiping = await FakeBridge.connect(url, "proc-front", front.password);
    const card = `0F${randomBytes(3).toString("hex").toUpperCase()}`;
    const lock = await getDb().$client.transaction("write");
    let ids: string[];
    try {
      const first = await swiping.swipe(card, { stored: false });
      const second = await swiping.swipe(card, { stored: false });
      const again = await swiping.swipe(card, { id: first.id, stored: false });
      expect([first.reason, second.reason, again.reason]).toEqual(["unknown_card", "card_pending", "unknown_card"]);
      ids = [first.id, second.id];
      expect(await getDb().select().from(accessLogs).where(sql`${accessLogs.cardNumber} = ${card}`)).toEqual([]);
    } finally {
      await lock.commit();
    }
    await swiping.waitForReceipt(ids[1]!);
    const rows = await getDb().select().from(accessLogs).where(sql`${accessLogs.cardNumber} = ${card}`);
    expect(rows.map((row) => [row.id, row.reason]).sort()).toEqual(
      [
        [ids[0], "unknown_card"],
        [ids[1], "card_pending"],
      ].sort(),
    );
    // One pending card, which both rows name.
    const pending = await getDb().select().from(cards).where(sql`${cards.cardNumber} = ${card}`);
    expect(pending).toMatchObject([{ status: "pending" }]);
    expect(new Set(rows.map((row) => row.cardId))).toEqual(new Set([pending[0]!.id]));
    await swiping.end();
  });

  it("disconnects a door that publishes 1 MB, without the service's memory growing", async () => {
    const pid = access.pid()!;
    const door = await mqtt.connectAsync(url, { username: "proc-front", password: front.password, protocolVersion: 4, reconnectPeriod: 0 });
    const closed = new Promise<void>((resolve) => door.once("close", () => resolve()));
    // The kernel's peak-RSS mark of the service starts again from here.
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const before = memoryOf(pid);
    const payload = Buffer.alloc(1024 * 1024, "x");
    door.publish("coliving/doors/proc-front/swipe", payload, { qos: 1 });
    await closed;
    // Another door still gets its decisions (the service was not disturbed).
    const other = await FakeBridge.connect(url, "proc-front", front.password);
    expect((await other.swipe("0F000001")).granted).toBe(true);
    await other.end();
    await door.endAsync(true);
    const after = memoryOf(pid);
    expect(after.peakKb - before.peakKb).toBeLessThan(payload.length / 1024);
  });

  it("stops by itself when the web process goes away (its channel closes)", async () => {
    const child = fork(entry, [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const ready = new Promise<Extract<ChildMessage, { type: "ready" }>>((resolve) =>
      child.once("message", (message: Extract<ChildMessage, { type: "ready" }>) => resolve(message)),
    );
    child.send({ type: "start", options: { host: "127.0.0.1", port: 0 } });
    const { mqttPort } = await ready;
    expect(mqttPort).toBeGreaterThan(0);
    child.disconnect();
    expect(await exited).toBe(0);
    // Its broker is closed.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(mqttPort!, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(false)));
      socket.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});

describe("kill -9 of the access service", () => {
  const ports = new MockSerialPorts();
  let bridge: BridgeHandle | null = null;

  afterAll(async () => {
    await bridge?.stop();
  });

  it("loses no swipe and no event: after restarts, one log row per swipe", async () => {
    const kept = await createTestDoorWithBridge("proc-kill");
    // Granted cards, each swiped once (the bridge drops a card seen again within 2 s); the others are unknown.
    const grantedCards: string[] = [];
    for (let i = 0; i < 6; i++) grantedCards.push((await createTestCard(`0F0000A${i}`, [kept.door.id])).card.cardNumber);
    const paths = { reader: "/dev/kill-reader", relay: "/dev/kill-relay", lcd: "/dev/kill-lcd" };
    ports.create(paths.reader, paths.relay, paths.lcd);
    bridge = await startBridge(
      {
        doorId: "proc-kill",
        mqtt: { url, password: kept.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
        reader: { driver: "rdm6300", port: paths.reader },
        display: { driver: "serlcd", port: paths.lcd },
        lock: { driver: "lcus1", port: paths.relay },
        dataDir: await mkdtemp(path.join(tmpdir(), "kill-")),
        decisionTimeoutMs: 300,
        eventResendMs: 300,
        unlockMs: 100,
        displayHoldMs: 100,
      },
      { serialPortFactory: ports.factory, logger: { debug() {}, info() {}, warn() {}, error() {} }, version: "0.0.0-test" },
    );
    const handle = bridge;
    await eventually(() => handle.status().connected, "the bridge to connect", 8000);

    const swipeIds: string[] = [];
    const swipe = async (card: string) => {
      const outcome = await handle.swipe(card);
      if (outcome) swipeIds.push(outcome.id);
    };
    const randomCard = () => randomBytes(4).toString("hex").toUpperCase();

    for (let round = 0; round < 3; round++) {
      await access.whenReady();
      // Longer than the bridge's 10 s connect timeout: an attempt that reached
      // the new process while it was still starting is given up and retried.
      await eventually(() => handle.status().connected, "the bridge to reconnect", 25_000);
      const killAt = 1 + Math.floor(Math.random() * 4);
      const oldPid = access.pid()!;
      for (let i = 0; i < 6; i++) {
        const swiped = swipe(i % 3 === 0 ? grantedCards.pop()! : randomCard());
        if (i === killAt) {
          // An arbitrary moment of this swipe: before it is sent, in flight, being committed, or answered.
          setTimeout(() => process.kill(oldPid, "SIGKILL"), Math.random() * 15);
        }
        await swiped;
      }
      // The supervisor starts a new service process.
      await eventually(() => access.pid() !== undefined && access.pid() !== oldPid, "the restarted access process", 15_000);
    }

    await access.whenReady();
    await eventually(() => handle.status().connected && handle.status().pendingEvents === 0, "every offline event receipted", 15_000);
    const rows = await getDb()
      .select({ eventId: accessLogs.eventId })
      .from(accessLogs)
      .where(sql`${accessLogs.doorCode} = 'proc-kill'`);
    expect(rows.map((row) => row.eventId).sort()).toEqual([...swipeIds].sort());
    expect(swipeIds.length).toBe(18);
  }, 90_000);
});
