// The real door chain of the integration tests (bridge-app.test.ts,
// booking-doors.test.ts): the access service on its embedded broker, which
// keeps its port across restarts so bridges reconnect to it, and the frames
// an RDM6300 reader sends on its serial port; and the same service with
// scripted doors and a mail receiver (FakeDoorChain) for the keys' tests.
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle, type AccessServiceOptions } from "~/access/service.server";
import { updateDoor } from "~/services/doors.server";
import { resetEnvForTests } from "~/utils/env.server";
import { resetMailTransport } from "~/utils/mail.server";
import { FakeBridge } from "./access";
import { createTestDoorWithBridge, hexPrefix } from "./fixtures";
import { startSmtpReceiver } from "./smtp";

/** A bridge logger that prints nothing. */
export const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** An RDM6300 frame for a 4-byte tag: STX, version + tag as ASCII hex, XOR checksum, ETX. */
export function rdm6300Frame(tagHex: string, version = "01") {
  const bytes = Buffer.from(version + tagHex, "hex");
  const checksum = bytes.reduce((x, b) => x ^ b, 0);
  return Buffer.concat([
    Buffer.from([0x02]),
    Buffer.from((version + tagHex + checksum.toString(16).padStart(2, "0")).toUpperCase(), "ascii"),
    Buffer.from([0x03]),
  ]);
}

/** The access service, stopped and started again on the same port (the first start picks a free one). */
export class RestartableAccessService {
  private handle: AccessServiceHandle | null = null;
  port = 0;

  /** Options of each start beside the chain's own (e.g. the alarms' short durations). */
  constructor(private readonly options: AccessServiceOptions = {}) {}

  get running() {
    return this.handle !== null;
  }

  async start() {
    this.handle = await startAccessService({ host: "127.0.0.1", port: this.port, refreshIntervalMs: 60_000, credentialsDebounceMs: 20, ...this.options });
    // The test's services tell this service of their changes.
    useAccessNotifier(this.handle.notifier);
    this.port = this.handle.mqttPort!;
  }

  async stop() {
    await this.handle?.stop();
    this.handle = null;
  }
}

/**
 * The access service with doors played by scripted MQTT clients (FakeBridge)
 * and mail caught by a real SMTP receiver: what the key tests
 * (key-decisions, visitor-passes) decide through. The service decides by a
 * clock `clockOffsetMs` ahead of the real one, which a test may move; `env`
 * is set for the file's run and removed after.
 */
export class FakeDoorChain {
  service!: AccessServiceHandle;
  smtp!: Awaited<ReturnType<typeof startSmtpReceiver>>;
  clockOffsetMs = 0;
  private readonly bridges: FakeBridge[] = [];
  private doorCount = 0;

  constructor(
    private readonly codePrefix: string,
    private readonly env: Record<string, string> = {},
  ) {}

  async start() {
    this.smtp = await startSmtpReceiver();
    Object.assign(process.env, { SMTP_URL: this.smtp.url, ...this.env });
    resetEnvForTests();
    resetMailTransport();
    this.service = await startAccessService({
      host: "127.0.0.1",
      port: 0,
      refreshIntervalMs: 60_000,
      credentialsDebounceMs: 20,
      clock: () => new Date(Date.now() + this.clockOffsetMs),
    });
    useAccessNotifier(this.service.notifier);
  }

  async stop() {
    await Promise.all(this.bridges.map((bridge) => bridge.end()));
    await this.service?.stop();
    for (const name of ["SMTP_URL", ...Object.keys(this.env)]) delete process.env[name];
    resetEnvForTests();
    await this.smtp?.close();
  }

  /** A door with its bridge connected (an entrance, 'Acceso principal', when asked). */
  async door(name: string, { entrance = false } = {}) {
    this.doorCount += 1;
    const code = `${this.codePrefix}-${hexPrefix(2).toLowerCase()}-${this.doorCount}`;
    const created = await createTestDoorWithBridge(code, name);
    if (entrance) await updateDoor(created.door.id, { isEntrance: true });
    const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${this.service.mqttPort}`, code, created.password);
    this.bridges.push(bridge);
    return { door: created.door, bridge };
  }
}
