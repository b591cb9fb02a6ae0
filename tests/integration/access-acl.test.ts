// Who may connect and use which topic on the embedded broker, bridge
// credential rotation through the API, and MQTT over TLS.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedBroker } from "~/access/broker.server";
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle } from "~/access/service.server";
import { getAccessLog } from "~/models/access-log.server";
import { issueApiToken } from "~/models/api-token.server";
import { createUser } from "~/models/user.server";
import { provisionBuildingSensor } from "~/services/building-sensors.server";
import { action, loader } from "~/routes/api.doors.$id.credentials";
import { FakeBridge } from "../setup/access";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestCard, createTestDoorWithBridge } from "../setup/fixtures";

let service: AccessServiceHandle;
let url: string;
let doorA: Awaited<ReturnType<typeof createTestDoorWithBridge>>;
let doorB: Awaited<ReturnType<typeof createTestDoorWithBridge>>;

beforeAll(async () => {
  doorA = await createTestDoorWithBridge("door-a");
  doorB = await createTestDoorWithBridge("door-b");
  await createTestCard("AA000001", [doorA.door.id, doorB.door.id]);
  service = await startAccessService({ host: "127.0.0.1", port: 0, credentialsDebounceMs: 50 });
  useAccessNotifier(service.notifier);
  url = `mqtt://127.0.0.1:${service.mqttPort}`;
});

afterAll(async () => {
  await service?.stop();
});

function connectRaw(options: mqtt.IClientOptions) {
  return mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 3000, ...options });
}

function closed(bridge: FakeBridge) {
  return new Promise<void>((resolve) => {
    if (!bridge.client.connected) return resolve();
    bridge.client.once("close", () => resolve());
  });
}

describe("authentication", () => {
  it("refuses anonymous clients", async () => {
    await expect(connectRaw({ clientId: "anonymous-1" })).rejects.toThrow(/Not authorized/i);
  });

  it("refuses a wrong secret, an unknown door and the app account without its password", async () => {
    await expect(connectRaw({ username: "door-a", password: "not-the-secret" })).rejects.toThrow(/Bad username or password/i);
    await expect(connectRaw({ username: "no-such-door", password: doorA.password })).rejects.toThrow(/Bad username or password/i);
    await expect(connectRaw({ username: "coliving.app", password: doorA.password })).rejects.toThrow(/Bad username or password/i);
  });

  it("refuses a door that tries to take over another client's id", async () => {
    const b = await FakeBridge.connect(url, "door-b", doorB.password, { clientId: "coliving-bridge-door-b" });
    await expect(
      connectRaw({ username: "door-a", password: doorA.password, clientId: "coliving-bridge-door-b" }),
    ).rejects.toThrow(/Identifier rejected/i);
    expect(b.client.connected).toBe(true);
    await b.end();
  });

  it("a sensor's own client id (coliving-sensor-<id>) is its own: a door or another sensor is refused it, even before the sensor ever used it", async () => {
    const hall = await provisionBuildingSensor("acl-hall");
    const other = await provisionBuildingSensor("acl-other");
    for (const [username, password] of [
      ["door-a", doorA.password],
      [other.username, other.password],
    ] as const) {
      await expect(connectRaw({ username, password, clientId: "coliving-sensor-acl-hall", clean: false })).rejects.toThrow(/Identifier rejected/i);
    }
    const sensor = await connectRaw({ username: hall.username, password: hall.password, clientId: "coliving-sensor-acl-hall" });
    expect(sensor.connected).toBe(true);
    await sensor.endAsync();
  });
});

describe("sessions and start-up", () => {
  it("refuses a door reusing another door's client id while that door is away (its kept session), and queues nothing across doors", async () => {
    const clientId = `kept-${randomUUID().slice(0, 8)}`;
    const b = await FakeBridge.connect(url, "door-b", doorB.password, { clientId, clean: false, subscribe: false });
    await b.client.subscribeAsync("coliving/doors/door-b/decision", { qos: 1 });
    await b.end();
    // Door A tries to take over B's session, which holds B's decisions while B is away.
    await expect(connectRaw({ username: "door-a", password: doorA.password, clientId, clean: false })).rejects.toThrow(/Identifier rejected/i);
    // B gets its own session back.
    const back = await FakeBridge.connect(url, "door-b", doorB.password, { clientId, clean: false, subscribe: false });
    expect(back.client.connected).toBe(true);
    await back.end();
  });

  it("lets doors in only once the access service is subscribed", async () => {
    const broker = await startEmbeddedBroker({ host: "127.0.0.1", port: 0, prefix: "coliving", appPassword: randomUUID() });
    try {
      const brokerUrl = `mqtt://127.0.0.1:${broker.port}`;
      const door = () =>
        mqtt.connectAsync(brokerUrl, { username: "door-a", password: doorA.password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 3000 });
      await expect(door()).rejects.toThrow(/Server unavailable/i);
      broker.openToDoors();
      const admitted = await door();
      expect(admitted.connected).toBe(true);
      await admitted.endAsync(true);
    } finally {
      await broker.close();
    }
  });
});

describe("authorisation", () => {
  it("door A cannot publish as door B: its connection is dropped and no swipe is recorded", async () => {
    const a = await FakeBridge.connect(url, "door-a", doorA.password);
    const id = randomUUID();
    const dropped = closed(a);
    a.client.publish("coliving/doors/door-b/swipe", JSON.stringify({ id, card: "AA000001", at: new Date().toISOString(), source: "reader" }), {
      qos: 1,
    });
    await dropped;
    // B still works, and A's forged swipe never reached the app.
    const b = await FakeBridge.connect(url, "door-b", doorB.password);
    expect((await b.swipe("AA000001")).granted).toBe(true);
    expect(await getAccessLog(id)).toBeUndefined();
    await Promise.all([a.end(), b.end()]);
  });

  it("door A cannot read door B's decisions, nor subscribe with wildcards", async () => {
    const a = await FakeBridge.connect(url, "door-a", doorA.password, { subscribe: false });
    // Refused subscriptions get SUBACK 0x80 (MQTT.js rejects); the connection stays up.
    for (const filter of ["coliving/doors/door-b/decision", "coliving/doors/+/decision", "coliving/#"]) {
      await expect(a.client.subscribeAsync(filter, { qos: 1 })).rejects.toThrow(/Subscribe error/);
    }
    const [own] = await a.client.subscribeAsync("coliving/doors/door-a/decision", { qos: 1 });
    expect(own!.qos).toBe(1);
    const b = await FakeBridge.connect(url, "door-b", doorB.password);
    const decision = await b.swipe("AA000001");
    expect(decision.granted).toBe(true);
    // A's own decision is published after B's: once it arrives, B's would have too.
    await a.swipe("AA000001");
    expect(a.received.filter((m) => m.topic.includes("door-b"))).toEqual([]);
    await Promise.all([a.end(), b.end()]);
  });

  it("a door cannot publish to its own decision topic nor to the app's change topic", async () => {
    for (const topic of ["coliving/doors/door-a/decision", "coliving/app/changes"]) {
      const a = await FakeBridge.connect(url, "door-a", doorA.password, { subscribe: false });
      const dropped = closed(a);
      a.client.publish(topic, JSON.stringify({ all: true }), { qos: 1 });
      await dropped;
      await a.end();
    }
  });
});

describe("POST /api/doors/{id}/credentials", () => {
  async function post(doorRowId: string, token?: string) {
    const request = new Request(`http://x/api/doors/${doorRowId}/credentials`, {
      method: "POST",
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
    return action({ request, params: { id: doorRowId }, context: {} }).catch((response: Response) => response);
  }

  it("issues a new secret to an admin; the old one stops working at once", async () => {
    const rotating = await createTestDoorWithBridge("rotating");
    const oldBridge = await FakeBridge.connect(url, "rotating", rotating.password);
    const admin = await createUser({ username: "admin-rot", email: "admin-rot@example.com", password: "secreto-123", role: "admin" });
    const { token } = await issueApiToken(admin.id);

    const dropped = closed(oldBridge);
    const response = await post(rotating.door.id, token);
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const body = (await response.json()) as { success: boolean; data: { username: string; password: string } };
    expect(body.success).toBe(true);
    expect(body.data.username).toBe("rotating");
    expect(body.data.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(body.data.password).not.toBe(rotating.password);

    // The connected bridge is dropped and cannot come back with the old secret.
    await dropped;
    await expect(connectRaw({ username: "rotating", password: rotating.password })).rejects.toThrow(/Bad username or password/i);
    const renewed = await FakeBridge.connect(url, "rotating", body.data.password);
    expect(renewed.client.connected).toBe(true);
    await Promise.all([oldBridge.end(), renewed.end()]);
  });

  it("answers 401 without a token, 403 to a resident, 404 for an unknown door, 405 to an admin's GET", async () => {
    expect((await post(doorA.door.id)).status).toBe(401);
    const resident = await createUser({ username: "res-rot", email: "res-rot@example.com", password: "secreto-123" });
    expect((await post(doorA.door.id, (await issueApiToken(resident.id)).token)).status).toBe(403);
    const admin = await createUser({ username: "admin-404", email: "admin-404@example.com", password: "secreto-123", role: "admin" });
    const adminToken = (await issueApiToken(admin.id)).token;
    const notFound = await post("no-such-door", adminToken);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ success: false, error: { message: "Puerta no encontrada" } });
    const get = (token?: string) =>
      loader({
        request: new Request(`http://x/api/doors/${doorA.door.id}/credentials`, { headers: token ? { Authorization: `Bearer ${token}` } : {} }),
        params: { id: doorA.door.id },
        context: {},
      }).catch((response: Response) => response);
    // The guard comes first: an anonymous GET is 401, an admin's is 405.
    expect(((await get()) as Response).status).toBe(401);
    expect(((await get(adminToken)) as Response).status).toBe(405);
    // The door's existing credential was left alone by the refused calls.
    const stillWorks = await FakeBridge.connect(url, "door-a", doorA.password, { subscribe: false });
    await stillWorks.end();
  });
});

// Self-signed for localhost / 127.0.0.1, valid until 2126 (test only).
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUE7TXozgO2FZKfPanUSkIHEe5HrgwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMTEyNDEyM1oYDzIxMjYxMDI4
MTI0MTIzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAT0wBZP7xXJf9NOCtPTcpawQL7yztbY0Z97JSL9kNH5A0h0y6SkXRfh
dGTt2eNT9roSfq0PkKNYF3SezQgMuxUco28wbTAdBgNVHQ4EFgQU4xdwPfjeozdy
49ukOCEf+ga2+i8wHwYDVR0jBBgwFoAU4xdwPfjeozdy49ukOCEf+ga2+i8wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhALmQ78IDCNbJ/PjbI6kb6FJUNz2avhUQeyrCVbjQhZ1gAiA9
OIa9KN+EqYb7Zoai8tog7UqI2fL/WefBgN+jmOOmKg==
-----END CERTIFICATE-----
`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPlIkSMcoOWBVpj8m
WXZzMluqoXx1RdjJauxYPuJ9y4+hRANCAAT0wBZP7xXJf9NOCtPTcpawQL7yztbY
0Z97JSL9kNH5A0h0y6SkXRfhdGTt2eNT9roSfq0PkKNYF3SezQgMuxUc
-----END PRIVATE KEY-----
`;

describe("MQTT over TLS", () => {
  it("listens on the TLS port when MQTT_TLS_CERT/KEY are set, with the same authentication", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-tls-"));
    const tlsCert = path.join(dir, "cert.pem");
    const tlsKey = path.join(dir, "key.pem");
    fs.writeFileSync(tlsCert, TEST_CERT);
    fs.writeFileSync(tlsKey, TEST_KEY);
    const secure = await startAccessService({ host: "127.0.0.1", port: 0, tlsPort: 0, tlsCert, tlsKey });
    try {
      expect(secure.mqttTlsPort).toBeGreaterThan(0);
      const tlsUrl = `mqtts://127.0.0.1:${secure.mqttTlsPort}`;
      const bridge = await FakeBridge.connect(tlsUrl, "door-a", doorA.password, { ca: TEST_CERT });
      expect((await bridge.swipe("AA000001")).granted).toBe(true);
      await bridge.end();
      await expect(
        mqtt.connectAsync(tlsUrl, { ca: TEST_CERT, reconnectPeriod: 0, connectTimeout: 3000, username: "door-a", password: "wrong" }),
      ).rejects.toThrow(/Bad username or password/i);
    } finally {
      await secure.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has no TLS listener without a certificate", () => {
    expect(service.mqttTlsPort).toBeNull();
  });
});

describe("bridge IP", () => {
  it("is recorded on the embedded broker", async () => {
    const a = await FakeBridge.connect(url, "door-a", doorA.password);
    const decision = await a.swipe("AA000001");
    const log = await eventually(() => getAccessLog(decision.id));
    expect(log.ipAddress).toBe("127.0.0.1");
    await a.end();
  });
});
