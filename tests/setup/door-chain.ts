// The real door chain of the integration tests (bridge-app.test.ts,
// booking-doors.test.ts): the access service on its embedded broker, which
// keeps its port across restarts so bridges reconnect to it, and the frames
// an RDM6300 reader sends on its serial port.
import { useAccessNotifier } from "~/access/notify.server";
import { startAccessService, type AccessServiceHandle, type AccessServiceOptions } from "~/access/service.server";

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
