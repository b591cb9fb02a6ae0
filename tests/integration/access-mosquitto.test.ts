// The access service against a real Mosquitto 2.0 configured as docs/mqtt.md
// says (password and ACL files from scripts/mosquitto-passwords.mjs): the
// grant/deny flow, the ACL, MQTT 5 extras, and two instances sharing the
// swipes through a shared subscription, each swipe decided exactly once.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DisplayMessage } from "~/doors/contract";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { accessLogs, doorAlarms } from "~/db/schema";
import { getAccessLog } from "~/models/access-log.server";
import { getCardByNumber } from "~/models/card.server";
import { getDoorByCode } from "~/models/door.server";
import { deleteDoor } from "~/services/doors.server";
import { randomToken } from "~/utils/crypto.server";
import { getDb } from "~/utils/db.server";
import { FakeBridge } from "../setup/access";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestCard, createTestDoorWithBridge } from "../setup/fixtures";
import { maxPacketSize } from "../../scripts/mosquitto-passwords.mjs";
import { startMosquitto, type RunningMosquitto } from "../setup/mosquitto";

const APP_USERNAME = "coliving.app";
const appPassword = randomToken(18);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-mosquitto-"));
const passwordFile = path.join(dir, "passwords");
const aclFile = path.join(dir, "acl");

let mosquitto: RunningMosquitto;
let doorA: Awaited<ReturnType<typeof createTestDoorWithBridge>>;
let doorB: Awaited<ReturnType<typeof createTestDoorWithBridge>>;
let ghost: Awaited<ReturnType<typeof createTestDoorWithBridge>>;

function exportCredentials() {
  execFileSync(
    process.execPath,
    ["scripts/mosquitto-passwords.mjs", "--passwords", passwordFile, "--acl", aclFile, "--app-username", APP_USERNAME],
    { env: { ...process.env, MQTT_PASSWORD: appPassword }, stdio: "pipe" },
  );
}

function startService(options: { clientId: string; shareGroup?: string }) {
  return startAccessService({
    mqttUrl: mosquitto.url,
    mqttUsername: APP_USERNAME,
    mqttPassword: appPassword,
    protocolVersion: 5,
    credentialsDebounceMs: 50,
    ...options,
  });
}

beforeAll(async () => {
  doorA = await createTestDoorWithBridge("mq-a");
  doorB = await createTestDoorWithBridge("mq-b");
  ghost = await createTestDoorWithBridge("mq-ghost");
  await createTestCard("CAFE0001", [doorA.door.id, doorB.door.id], { firstName: "Lucía" });
  exportCredentials();
  mosquitto = await startMosquitto({ passwordFile, aclFile, dir, bridgeListener: true });
});

afterAll(async () => {
  await mosquitto?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the exported password and ACL files", () => {
  it("hold the app's account and every door's stored hash, and pattern ACLs with %u", async () => {
    const lines = fs.readFileSync(passwordFile, "utf8").trim().split("\n");
    expect(lines[0]).toMatch(/^coliving\.app:\$7\$101\$/);
    for (const doorCode of ["mq-a", "mq-b", "mq-ghost"]) {
      const stored = (await getDoorByCode(doorCode))!.bridgeSecretHash;
      expect(stored).toMatch(/^\$7\$101\$/);
      expect(lines).toContain(`${doorCode}:${stored}`);
    }
    const acl = fs.readFileSync(aclFile, "utf8");
    expect(acl).toContain("pattern write coliving/doors/%u/swipe");
    expect(acl).toContain("pattern write coliving/doors/%u/contact");
    expect(acl).toContain("pattern read coliving/doors/%u/credentials");
    expect(acl).toContain("pattern read coliving/doors/%u/receipt");
  });

  it("the generated configuration caps packets at a size that fits the offline lists of the cards there are", async () => {
    const config = path.join(dir, "coliving.conf");
    execFileSync(
      process.execPath,
      ["scripts/mosquitto-passwords.mjs", "--passwords", passwordFile, "--acl", aclFile, "--config", config, "--app-username", APP_USERNAME],
      { env: { ...process.env, MQTT_PASSWORD: appPassword }, stdio: "pipe" },
    );
    const text = fs.readFileSync(config, "utf8");
    const [cardCount] = (await getDb().all<{ n: number }>(sql`SELECT count(*) AS n FROM cards`)).map((row) => Number(row.n));
    expect(text).toContain(`max_packet_size ${maxPacketSize(cardCount!)}`);
    expect(text).toContain(`password_file ${passwordFile}`);
    expect(text).toContain(`acl_file ${aclFile}`);
    expect(maxPacketSize(100_000)).toBeGreaterThan(100_000 * 90);
  });
});

describe("packet size on Mosquitto", () => {
  it("disconnects a door that publishes 1 MB", async () => {
    const door = await mqtt.connectAsync(mosquitto.url, { username: "mq-a", password: doorA.password, protocolVersion: 5, reconnectPeriod: 0 });
    const closed = new Promise<void>((resolve) => door.once("close", () => resolve()));
    door.publish("coliving/doors/mq-a/swipe", Buffer.alloc(1024 * 1024, "x"), { qos: 1 });
    await closed;
    await door.endAsync(true);
  });
});

describe("one access service on Mosquitto", () => {
  let service: AccessServiceHandle;
  let a: FakeBridge;

  beforeAll(async () => {
    service = await startService({ clientId: "coliving-access-test-1" });
    useAccessNotifier(service.notifier);
    a = await FakeBridge.connect(mosquitto.url, "mq-a", doorA.password, { protocolVersion: 5 });
  });

  afterAll(async () => {
    await a?.end();
    await service?.stop();
  });

  it("reports no embedded ports", () => {
    expect(service.mqttPort).toBeNull();
  });

  it("grants and denies like on the embedded broker, with no bridge IP", async () => {
    const granted = await a.swipe("CAFE0001");
    expect(granted).toMatchObject({ granted: true, reason: "granted", display: { line1: "Hola, Lucía", line2: "WELCOME" } });
    expect(await getAccessLog(granted.id)).toMatchObject({ doorCode: "mq-a", accessGranted: true, ipAddress: null });

    const unknown = await a.swipe("CAFE0099", { source: "mobile" });
    expect(unknown).toMatchObject({ granted: false, reason: "unknown_card" });
    expect(await getCardByNumber("CAFE0099")).toMatchObject({ status: "pending", isAnonymous: true });

    await createTestCard("CAFE0002", [doorB.door.id]);
    expect((await a.swipe("CAFE0002")).reason).toBe("no_permission");
  });

  it("MQTT 5: echoes the swipe's correlation data and sets a 10 s message expiry on the decision", async () => {
    const correlationData = Buffer.from(randomUUID());
    const decision = await a.swipe("CAFE0001", { properties: { correlationData } });
    expect(decision.packet.properties?.correlationData?.equals(correlationData)).toBe(true);
    expect(decision.packet.properties?.messageExpiryInterval).toBeGreaterThan(0);
    expect(decision.packet.properties?.messageExpiryInterval).toBeLessThanOrEqual(10);
  });

  it("a door reads the receipt of its offline event (ACL pattern for receipt)", async () => {
    await a.client.subscribeAsync(a.topic("receipt"), { qos: 1 });
    const event = { id: randomUUID(), card: "CAFE0001", at: new Date().toISOString(), granted: true, reason: "granted", offline: true };
    await a.publishJson("events", event);
    const receipt = await a.waitFor((m) => m.topic === a.topic("receipt") && Boolean((m.json as { ids?: string[] }).ids?.includes(event.id)));
    expect(receipt.json).toEqual({ ids: [event.id] });
    expect(await getAccessLog(event.id)).toMatchObject({ offline: true, doorCode: "mq-a" });
  });

  it("a door publishes its contact (ACL pattern for contact): opened without a grant, it is a forced-open alarm until it closes", async () => {
    const forced = () =>
      getDb()
        .select()
        .from(doorAlarms)
        .where(and(eq(doorAlarms.doorId, doorA.door.id), eq(doorAlarms.kind, "forced_open")));
    await a.publishJson("contact", { state: "open", released: false, at: new Date().toISOString() });
    await eventually(async () => (await forced()).some((alarm) => alarm.clearedAt === null), "the forced-open alarm");
    await a.publishJson("contact", { state: "closed", released: false, at: new Date().toISOString() });
    await eventually(async () => (await forced()).every((alarm) => alarm.clearedAt !== null), "the alarm cleared");
  });

  it("an MQTT 3.1.1 bridge works the same (the contract needs no MQTT 5)", async () => {
    const b = await FakeBridge.connect(mosquitto.url, "mq-b", doorB.password, { protocolVersion: 4 });
    expect((await b.swipe("CAFE0001")).granted).toBe(true);
    const display = await b.waitFor((m) => m.topic === b.topic("display"));
    expect(display.packet.retain).toBe(true);
    expect((display.json as DisplayMessage).status).toBe("READY");
    await b.end();
  });

  it("ACL: anonymous and wrong secrets refused; door A can neither read B's decisions nor swipe as B", async () => {
    const connect = (options: mqtt.IClientOptions) =>
      mqtt.connectAsync(mosquitto.url, { reconnectPeriod: 0, connectTimeout: 3000, protocolVersion: 5, ...options });
    await expect(connect({})).rejects.toThrow(/Not authorized|Bad User Name or Password/i);
    await expect(connect({ username: "mq-a", password: "wrong" })).rejects.toThrow(/Bad User Name or Password|Not authorized/i);

    const spy = await FakeBridge.connect(mosquitto.url, "mq-a", doorA.password, { subscribe: false, protocolVersion: 5 });
    // Mosquitto 2.0.11 accepts this subscription but checks `read` on every
    // delivery, so nothing arrives (asserted below).
    await spy.client.subscribeAsync("coliving/doors/mq-b/decision", { qos: 1 }).catch(() => undefined);
    const forgedId = randomUUID();
    const published = await spy.client
      .publishAsync(
        "coliving/doors/mq-b/swipe",
        JSON.stringify({ id: forgedId, card: "CAFE0001", at: new Date().toISOString(), source: "reader" }),
        { qos: 1 },
      )
      .then(
        () => "accepted",
        (error: Error) => error.message,
      );
    // MQTT 5: PUBACK "Not authorized" (0x87); the message goes nowhere.
    expect(published).toMatch(/Not authorized/i);
    const b = await FakeBridge.connect(mosquitto.url, "mq-b", doorB.password, { protocolVersion: 5 });
    expect((await b.swipe("CAFE0001")).granted).toBe(true);
    // The spy's own decision is published after B's: once it arrives, B's would have too.
    await spy.client.subscribeAsync("coliving/doors/mq-a/decision", { qos: 1 });
    await spy.swipe("CAFE0001");
    expect(spy.received.filter((m) => m.topic.includes("mq-b"))).toEqual([]);
    expect(await getAccessLog(forgedId)).toBeUndefined();
    await Promise.all([spy.end(), b.end()]);
  });

  it("on the bridges' listener (use_username_as_clientid), no other account can take a door's client id and drop it", async () => {
    const bridgeUrl = mosquitto.bridgeUrl!;
    const real = await FakeBridge.connect(bridgeUrl, "mq-a", doorA.password, { clientId: "coliving-bridge-mq-a", protocolVersion: 5 });
    const dropped = vi.fn();
    real.client.on("close", dropped);
    // Door B presents door A's id, with a kept session, then leaves.
    const squatter = await mqtt.connectAsync(bridgeUrl, {
      username: "mq-b",
      password: doorB.password,
      clientId: "coliving-bridge-mq-a",
      clean: false,
      protocolVersion: 5,
      reconnectPeriod: 0,
    });
    await squatter.endAsync();
    // Door A's bridge was never dropped, and gets its decisions.
    expect((await real.swipe("CAFE0001")).granted).toBe(true);
    expect(dropped).not.toHaveBeenCalled();
    expect(real.client.connected).toBe(true);
    await real.end();
  });

  it("unknown door: a Mosquitto login whose door was deleted; gone after the files are regenerated", async () => {
    const g = await FakeBridge.connect(mosquitto.url, "mq-ghost", ghost.password, { protocolVersion: 5 });
    await deleteDoor(ghost.door.id);
    const decision = await g.swipe("CAFE0001");
    expect(decision).toMatchObject({ granted: false, reason: "unknown_door" });
    await g.end();
    exportCredentials();
    mosquitto.reload();
    await eventually(async () => {
      try {
        const client = await mqtt.connectAsync(mosquitto.url, {
          username: "mq-ghost",
          password: ghost.password,
          reconnectPeriod: 0,
          connectTimeout: 2000,
        });
        await client.endAsync(true);
        return false;
      } catch {
        return true;
      }
    }, "mosquitto to refuse the deleted door's login", 3000);
  });
});

describe("two access services sharing one subscription", () => {
  it("decide and log every swipe exactly once", async () => {
    const first = await startService({ clientId: "coliving-access-share-1", shareGroup: "access" });
    const second = await startService({ clientId: "coliving-access-share-2", shareGroup: "access" });
    const a = await FakeBridge.connect(mosquitto.url, "mq-a", doorA.password, { protocolVersion: 5 });
    const b = await FakeBridge.connect(mosquitto.url, "mq-b", doorB.password, { protocolVersion: 4 });
    try {
      const [before] = await getDb().select({ count: sql<number>`count(*)` }).from(accessLogs);
      const swipes = 40;
      const decisions = await Promise.all(
        Array.from({ length: swipes }, (_, i) => (i % 2 === 0 ? a : b).swipe(i % 4 < 2 ? "CAFE0001" : "CAFE0003")),
      );
      expect(decisions.filter((d) => d.granted)).toHaveLength(swipes / 2);
      // A duplicate decision would have been published before any later one
      // of the same instance: swipe until each instance has answered once more.
      const answered = { first: first.stats().decisions, second: second.stats().decisions };
      let markers = 0;
      while (first.stats().decisions === answered.first || second.stats().decisions === answered.second) {
        if (++markers > 50) throw new Error("one of the two instances answered no marker swipe");
        await a.swipe("CAFE0003");
      }
      const decisionIds = [...a.received, ...b.received]
        .filter((m) => m.topic.endsWith("/decision"))
        .map((m) => (m.json as { id: string }).id)
        .filter((id) => decisions.some((d) => d.id === id));
      expect(decisionIds).toHaveLength(swipes);
      expect(new Set(decisionIds).size).toBe(swipes);
      const [after] = await getDb().select({ count: sql<number>`count(*)` }).from(accessLogs);
      expect(Number(after!.count) - Number(before!.count)).toBe(swipes + markers);
      // Both instances took part.
      expect(answered.first).toBeGreaterThan(0);
      expect(answered.second).toBeGreaterThan(0);
      expect(answered.first + answered.second).toBe(swipes);
    } finally {
      await Promise.all([a.end(), b.end()]);
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
