// Door alarms through the real chain: bridges on mock serial ports (an RDM6300
// reader, an LCUS-1 relay, a serial door contact sending OPEN/CLOSED), the
// embedded broker, the access service, libSQL, the web side's alarm poll and a
// real SMTP receiver. A forced door and a door held open each raise one alarm
// (one access log row, one staff notice, and for the forced door one
// incident of type access) and clear when the door closes; a bridge offline
// longer than the (shortened) offline delay raises one, and its return clears it.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type BridgeHandle } from "../../bridge/src/controller";
import { eventually } from "../../bridge/src/test-support/eventually";
import { MockSerialPorts } from "../../bridge/src/test-support/serial-mock";
import { accessLogs, doorAlarms, incidents } from "~/db/schema";
import * as alarmsRoute from "~/routes/api.door-alarms";
import * as logsRoute from "~/routes/api.logs";
import * as streamRoute from "~/routes/api.door-alarms.stream";
import * as dashboard from "~/routes/admin._index";
import { setCardPermission } from "~/services/cards.server";
import { handleNewDoorAlarms, scheduleDoorAlarmPolls } from "~/services/door-alarms.server";
import { clearDoorAlarms, raiseDoorAlarm } from "~/models/door-alarm.server";
import { provisionDoor, updateDoor } from "~/services/doors.server";
import { assignCard } from "~/services/users.server";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { resetMailTransport } from "~/utils/mail.server";
import { createApiCallers, createTestUser, hexPrefix, sessionCookie, unique } from "../setup/fixtures";
import { mimePart } from "../setup/mime";
import { callApi, callRoute, pageRequest } from "../setup/route";
import { startSmtpReceiver } from "../setup/smtp";
import { quietLogger, RestartableAccessService } from "../setup/door-chain";

const STAFF = "seguridad@lacasona.test";
/** One of a door's heldOpenSeconds lasts 20 ms here, and a bridge offline 300 ms is an alarm. */
const access = new RestartableAccessService({ heldOpenSecondMs: 20, doorOfflineAlarmMs: 300 });
const ports = new MockSerialPorts();
const bridges = new Set<BridgeHandle>();
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let stopPolls: () => void;
let adminToken: string;
let adminCookie: string;
let residentToken: string;
let residentCookie: string;
let count = 0;

async function newDoor() {
  count += 1;
  const { door, credential } = await provisionDoor(`alarm-${count}-${unique()}`, { name: `Puerta alarma ${count} ${unique()}`, location: "Pruebas" });
  const paths = { reader: `/dev/alarm-reader-${count}`, relay: `/dev/alarm-relay-${count}`, lcd: `/dev/alarm-lcd-${count}`, contact: `/dev/alarm-contact-${count}` };
  ports.create(paths.reader, paths.relay, paths.lcd, paths.contact);
  const dataDir = await mkdtemp(path.join(tmpdir(), "alarm-"));
  const start = async () => {
    const bridge = await startBridge(
      {
        doorId: door.code,
        mqtt: { url: `mqtt://127.0.0.1:${access.port}`, password: credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
        reader: { driver: "rdm6300", port: paths.reader },
        display: { driver: "serlcd", port: paths.lcd },
        lock: { driver: "lcus1", port: paths.relay },
        contact: { driver: "serial", port: paths.contact },
        dataDir,
        decisionTimeoutMs: 1000,
        displayHoldMs: 200,
      },
      { serialPortFactory: ports.factory, logger: quietLogger, version: "0.0.0-test" },
    );
    bridges.add(bridge);
    await eventually(() => bridge.status().connected, "the bridge online");
    return bridge;
  };
  const bridge = await start();
  /** The reed switch: the contact's serial line says OPEN or CLOSED; resolves once the bridge has read it. */
  const contact = async (state: "OPEN" | "CLOSED") => {
    ports.emit(paths.contact, `${state}\r\n`);
    await eventually(() => bridge.status().contact === state.toLowerCase(), `the bridge to read ${state}`);
  };
  await contact("CLOSED");
  return { door, bridge, contact, start };
}

type Door = Awaited<ReturnType<typeof newDoor>>["door"];

const alarmsOf = (door: Door) => getDb().select().from(doorAlarms).where(eq(doorAlarms.doorId, door.id)).orderBy(doorAlarms.raisedAt);
const alarmLogRows = (door: Door) =>
  getDb()
    .select()
    .from(accessLogs)
    .where(and(eq(accessLogs.doorId, door.id), eq(accessLogs.source, "alarm")));
const incidentsOf = (door: Door) => getDb().select().from(incidents).where(eq(incidents.doorId, door.id));
/** Rows (or mails) once there are any. */
const some = <T>(read: () => T[] | Promise<T[]>, what: string, timeoutMs?: number) =>
  eventually(async () => {
    const rows = await read();
    return rows.length > 0 ? rows : null;
  }, what, timeoutMs);
const noticesOf = (door: Door) => smtp.messages.filter((mail) => mimePart(mail.raw, "text/plain")?.includes(`(${door.code})`));

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  process.env.STAFF_EMAIL = STAFF;
  resetEnvForTests();
  resetMailTransport();
  const callers = await createApiCallers();
  adminToken = callers.adminToken;
  adminCookie = await sessionCookie(callers.admin.id);
  residentToken = callers.residentToken;
  residentCookie = await sessionCookie(callers.resident.id);
  await access.start();
  // What boot does in every web process (every 1 s there).
  stopPolls = scheduleDoorAlarmPolls(20);
});
afterEach(async () => {
  await Promise.all([...bridges].map((bridge) => bridge.stop()));
  bridges.clear();
});
afterAll(async () => {
  stopPolls();
  await access.stop();
  delete process.env.SMTP_URL;
  delete process.env.STAFF_EMAIL;
  resetEnvForTests();
  await smtp.close();
});

describe("door alarms", () => {
  it("a door opened without a grant raises one forced-open alarm (log row, notice, incident) and clears when it closes", async () => {
    const { door, contact } = await newDoor();
    await contact("OPEN");
    const [alarm] = await some(() => alarmsOf(door), "the forced-open alarm");
    expect(alarm).toMatchObject({ kind: "forced_open", clearedAt: null });
    expect(await alarmLogRows(door)).toMatchObject([{ reason: "forced_open", accessGranted: false, doorCode: door.code, cardNumber: "" }]);

    const [notice] = await some(() => noticesOf(door), "the staff notice");
    expect(notice!.to).toEqual([STAFF]);
    expect(mimePart(notice!.raw, "text/plain")).toContain("Alarma: Puerta forzada");
    const [incident] = await some(() => incidentsOf(door), "the incident");
    expect(incident).toMatchObject({ type: "access", status: "open", source: "door", reportedBy: "sistema", title: `Puerta forzada · ${door.name}` });
    await eventually(async () => (await alarmsOf(door))[0]?.incidentId === incident!.id, "the alarm to name its incident");

    // The dashboard and the API list it while it is open.
    const listed = await callApi(alarmsRoute.loader, "/api/door-alarms", { token: adminToken });
    expect(listed.body.data.alarms).toContainEqual(expect.objectContaining({ _id: alarm!.id, kind: "forced_open", label: "Puerta forzada", doorId: door.code }));

    await contact("CLOSED");
    await eventually(async () => (await alarmsOf(door))[0]?.clearedAt != null, "the alarm cleared");

    // A second forcing is a second alarm and a second log row; within the repeat window (issue 40,
    // point 4) it is counted as a repeat of the first: still one notice and one incident.
    await contact("OPEN");
    await eventually(async () => (await alarmsOf(door))[1]?.notifiedAt != null, "the second alarm, claimed");
    await contact("CLOSED");
    await eventually(async () => (await alarmsOf(door)).every((row) => row.clearedAt !== null), "both cleared");
    const [first, second] = await alarmsOf(door);
    expect(first).toMatchObject({ repeats: 1, repeatOf: null });
    expect(second).toMatchObject({ repeatOf: first!.id, incidentId: null });
    expect(noticesOf(door)).toHaveLength(1);
    expect(await incidentsOf(door)).toHaveLength(1);
    expect(await alarmLogRows(door)).toHaveLength(2);
  });

  it("a storm of 20 forcings within the window is one incident and one notice counting 19 repeats, and 20 log rows", async () => {
    const { door, contact } = await newDoor();
    for (let cycle = 0; cycle < 20; cycle += 1) {
      await contact("OPEN");
      await eventually(async () => (await alarmsOf(door)).length === cycle + 1, `forcing ${cycle + 1}`);
      await contact("CLOSED");
      await eventually(async () => (await alarmsOf(door)).every((row) => row.clearedAt !== null), `forcing ${cycle + 1} cleared`);
    }
    await eventually(async () => (await alarmsOf(door)).every((row) => row.notifiedAt !== null), "every alarm claimed");
    const alarms = await alarmsOf(door);
    expect(alarms[0]).toMatchObject({ repeats: 19, repeatOf: null });
    expect(alarms.slice(1).every((alarm) => alarm.repeatOf === alarms[0]!.id)).toBe(true);
    await eventually(async () => (await alarmsOf(door))[0]?.incidentId != null, "the incident named");
    expect(await incidentsOf(door)).toHaveLength(1);
    expect(noticesOf(door)).toHaveLength(1);
    expect(await alarmLogRows(door)).toHaveLength(20);
  });

  it("an alarm past the repeat window is notified again; an open repeat shows its first's count", async () => {
    const { door } = await provisionDoor(`alarm-window-${unique()}`, { name: `Puerta ventana ${unique()}`, location: "Pruebas" });
    const t0 = Date.now() - 60 * 60_000;
    const minutes = (n: number) => new Date(t0 + n * 60_000);
    // Claimed by this test's own calls, with a window of 10 minutes (the default).
    const window = 10 * 60_000;
    expect(await raiseDoorAlarm(door, "forced_open", minutes(0))).not.toBeNull();
    await handleNewDoorAlarms(minutes(0), window);
    await clearDoorAlarms(door.id, ["forced_open"], minutes(1));
    expect(await raiseDoorAlarm(door, "forced_open", minutes(9))).not.toBeNull();
    await handleNewDoorAlarms(minutes(9), window);
    const listed = await callApi(alarmsRoute.loader, "/api/door-alarms", { token: adminToken });
    expect(listed.body.data.alarms).toContainEqual(expect.objectContaining({ doorId: door.code, kind: "forced_open", repeats: 1 }));
    await clearDoorAlarms(door.id, ["forced_open"], minutes(10));
    // Eleven minutes after the first: a new window, its own notice and incident.
    expect(await raiseDoorAlarm(door, "forced_open", minutes(11))).not.toBeNull();
    await handleNewDoorAlarms(minutes(11), window);
    // Another kind on the same door is its own window.
    expect(await raiseDoorAlarm(door, "door_offline", minutes(12))).not.toBeNull();
    await handleNewDoorAlarms(minutes(12), window);
    const alarms = await alarmsOf(door);
    expect(alarms.map(({ kind, repeats, repeatOf }) => ({ kind, repeats, repeated: repeatOf !== null }))).toEqual([
      { kind: "forced_open", repeats: 1, repeated: false },
      { kind: "forced_open", repeats: 0, repeated: true },
      { kind: "forced_open", repeats: 0, repeated: false },
      { kind: "door_offline", repeats: 0, repeated: false },
    ]);
    await eventually(() => noticesOf(door).length === 3 || null, "three notices");
    expect(await incidentsOf(door)).toHaveLength(2);
  });

  it("a door opened with a grant and left open past its heldOpenSeconds raises one held-open alarm, no incident, and clears when it closes", async () => {
    const { door, bridge, contact } = await newDoor();
    expect((await updateDoor(door.id, { heldOpenSeconds: 5 })).ok).toBe(true); // 100 ms here
    const user = await createTestUser();
    const assigned = await assignCard(user.id, { cardNumber: `${hexPrefix()}01`, cardType: "primary" });
    if (!assigned.ok) throw new Error(assigned.message);
    await setCardPermission(assigned.card._id, door.id, true);

    expect(await bridge.swipe(assigned.card.cardNumber)).toMatchObject({ granted: true });
    await contact("OPEN");
    const [alarm] = await some(() => alarmsOf(door), "the held-open alarm");
    expect(alarm).toMatchObject({ kind: "held_open", clearedAt: null });
    const [notice] = await some(() => noticesOf(door), "the staff notice");
    expect(mimePart(notice!.raw, "text/plain")).toContain("Alarma: Puerta abierta demasiado tiempo");
    expect(await alarmLogRows(door)).toMatchObject([{ reason: "held_open" }]);

    await contact("CLOSED");
    await eventually(async () => (await alarmsOf(door))[0]?.clearedAt != null, "the alarm cleared");
    // Opened with a grant: never forced, and no incident.
    expect((await alarmsOf(door)).map((row) => row.kind)).toEqual(["held_open"]);
    expect(await incidentsOf(door)).toEqual([]);
    expect(noticesOf(door)).toHaveLength(1);
  });

  it("a door standing open in its open hours (unlock timetable) raises no held-open alarm until they end", async () => {
    const { door, bridge, contact } = await newDoor();
    const always = [{ days: [1, 2, 3, 4, 5, 6, 7], from: "00:00", to: "24:00" }];
    expect((await updateDoor(door.id, { heldOpenSeconds: 5, unlockSchedule: always, unlockOnHolidays: true })).ok).toBe(true); // 100 ms here
    await eventually(() => bridge.status().mode.mode === "unlocked" || null, "the bridge holding the lock released");
    await contact("OPEN");
    // Three times its held-open time, and still no alarm: it is open hours.
    const openedAt = Date.now();
    await eventually(() => Date.now() - openedAt >= 300 || null, "three held-open times to pass");
    expect(await alarmsOf(door)).toEqual([]);

    // Open hours end with the door still open: its held-open time counts from then.
    const lockedAt = new Date();
    expect((await updateDoor(door.id, { unlockSchedule: [] })).ok).toBe(true);
    const [alarm] = await some(() => alarmsOf(door), "the held-open alarm once the hours end");
    expect(alarm).toMatchObject({ kind: "held_open", clearedAt: null });
    expect(alarm!.raisedAt.getTime()).toBeGreaterThanOrEqual(lockedAt.getTime());
    await contact("CLOSED");
    await eventually(async () => (await alarmsOf(door))[0]?.clearedAt != null, "the alarm cleared");
  });

  it("a bridge offline past the offline delay raises one door-offline alarm, and its return clears it", async () => {
    const { door, bridge, start } = await newDoor();
    await bridge.stop();
    bridges.delete(bridge);
    const [alarm] = await some(() => alarmsOf(door), "the door-offline alarm", 3000);
    expect(alarm).toMatchObject({ kind: "door_offline", clearedAt: null });
    expect(await alarmLogRows(door)).toMatchObject([{ reason: "door_offline" }]);
    const [notice] = await some(() => noticesOf(door), "the staff notice");
    expect(mimePart(notice!.raw, "text/plain")).toContain("Alarma: Puerta sin conexión");
    // Issue 40, point 17: in the log the alarm is its own kind, never a denial (nor a grant).
    const logs = async (query: string) => (await callApi(logsRoute.loader, `/api/logs?doorId=${door.code}&dateRange=all${query}`, { token: adminToken })).body.data;
    const all = await logs("");
    expect(all.logs).toMatchObject([{ reason: "door_offline", result: "alarm", accessGranted: false }]);
    expect(all.stats).toMatchObject({ total: 1, granted: 0, denied: 0, alarms: 1, uniqueCards: 0 });
    expect((await logs("&status=denied")).total).toBe(0);
    expect((await logs("&status=granted")).total).toBe(0);
    expect((await logs("&status=alarm")).logs).toMatchObject([{ reason: "door_offline", result: "alarm" }]);

    await start();
    await eventually(async () => (await alarmsOf(door))[0]?.clearedAt != null, "the alarm cleared");
    expect(await alarmsOf(door)).toHaveLength(1);
    expect(noticesOf(door)).toHaveLength(1);
    expect(await incidentsOf(door)).toEqual([]);
  });

  it("the dashboard lists the open alarms, and its event stream sends each change", async () => {
    const { door, contact } = await newDoor();
    const streamRequest = pageRequest("/api/door-alarms/stream", adminCookie);
    // Without asking for an event stream (a fetch, Remix's `.data` URL) the answer is a 406, not a body that never ends.
    const notAsked = await callRoute(streamRoute.loader, streamRequest.clone());
    expect(notAsked.status).toBe(406);
    expect((await notAsked.json()).error.message).toBe("Este recurso es un flujo de eventos: pídelo con Accept: text/event-stream");
    streamRequest.headers.set("Accept", "text/event-stream");
    const stream = await callRoute(streamRoute.loader, streamRequest);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expect(stream.headers.get("cache-control")).toContain("no-transform");
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = "";
    /** The stream's next `alarms` event that passes the check. */
    const nextEvent = async (check: (alarms: { kind: string; doorId: string }[]) => boolean) => {
      for (;;) {
        const events = received.split("\n\n");
        received = events.pop() ?? "";
        for (const event of events) {
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data && check(JSON.parse(data).alarms)) return;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        received += value;
      }
    };
    await nextEvent((alarms) => !alarms.some((alarm) => alarm.doorId === door.code));
    await contact("OPEN");
    await nextEvent((alarms) => alarms.some((alarm) => alarm.doorId === door.code && alarm.kind === "forced_open"));
    const page = await (await callRoute(dashboard.loader, pageRequest("/admin", adminCookie))).json();
    expect(page.alarms).toContainEqual(expect.objectContaining({ doorId: door.code, label: "Puerta forzada" }));
    await contact("CLOSED");
    await nextEvent((alarms) => !alarms.some((alarm) => alarm.doorId === door.code));
    await reader.cancel();
  });

  it("an alarm raised twice is one alarm, and polls racing for it send one notice", async () => {
    const { door } = await provisionDoor(`alarm-race-${unique()}`, { name: `Puerta carrera ${unique()}`, location: "Pruebas" });
    const at = new Date();
    expect(await raiseDoorAlarm(door, "held_open", at)).not.toBeNull();
    expect(await raiseDoorAlarm(door, "held_open", at)).toBeNull();
    // Two web processes' polls (and this file's own) at once.
    await Promise.all([handleNewDoorAlarms(), handleNewDoorAlarms(), handleNewDoorAlarms()]);
    await some(() => noticesOf(door), "the notice");
    // Marker: a later alarm's notice arrives after any second notice of the first would have.
    expect(await raiseDoorAlarm(door, "door_offline", new Date())).not.toBeNull();
    await eventually(() => noticesOf(door).length >= 2, "the marker's notice");
    expect(noticesOf(door)).toHaveLength(2);
    expect(await alarmLogRows(door)).toHaveLength(2);
  });

  it("the alarms' API and stream are for admins only", async () => {
    expect((await callApi(alarmsRoute.loader, "/api/door-alarms")).status).toBe(401);
    expect((await callApi(alarmsRoute.loader, "/api/door-alarms", { token: residentToken })).status).toBe(403);
    const anonymous = await callRoute(streamRoute.loader, new Request("http://localhost/api/door-alarms/stream"));
    expect(anonymous.status).toBe(401);
    const resident = await callRoute(streamRoute.loader, pageRequest("/api/door-alarms/stream", residentCookie));
    expect(resident.status).toBe(403);
    expect(resident.headers.get("content-type")).not.toContain("text/event-stream");
  });
});
