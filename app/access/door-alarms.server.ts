// Door alarms (docs/mqtt.md, "Door alarms"): from each door's contact
// (`{prefix}/doors/{door}/contact`, retained) and its bridge's state:
//   forced_open   the door opened while its bridge had not released the lock
//   held_open     opened after a release and still open after the door's
//                 heldOpenSeconds; not while its unlock timetable holds the
//                 lock released (its open hours), only from when they end
//   door_offline  its bridge offline (last will) for doorOfflineAlarmMs
// Each is raised once (one open row per door and kind, with its row in the
// access log) and cleared when the door closes or its bridge comes back. The
// web process sends the staff notice, opens the incident of a forced door and
// tells the dashboard (app/services/door-alarms.server.ts). Subscribed
// unshared, like the state: instances that all see a contact raise the alarm
// once between them (the open row is unique).
import type { IPublishPacket } from "mqtt";
import type { DoorMode } from "~/doors/schedule";
import { contactSchema, parseDoorTopic, type BridgeStateMessage } from "~/doors/contract";
import { getDoorByCode } from "~/models/door.server";
import { clearDoorAlarms, raiseDoorAlarm, type DoorAlarmKind } from "~/models/door-alarm.server";
import type { AccessEventBus } from "./events.server";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";

export type DoorAlarmOptions = {
  /** A bridge offline this long is an alarm. Default 2 minutes. */
  doorOfflineAlarmMs: number;
  /** How long one of a door's heldOpenSeconds lasts: 1000 (tests shorten it). */
  heldOpenSecondMs: number;
};

export class DoorAlarms implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  private readonly heldOpenTimers = new Map<string, NodeJS.Timeout>();
  private readonly offlineTimers = new Map<string, NodeJS.Timeout>();
  /** Doors whose last contact said open after a release, by code. */
  private readonly openReleased = new Set<string>();
  /** Doors whose unlock timetable holds the lock released now, by code (from the publisher). */
  private readonly heldReleased = new Set<string>();
  /** One change after another, in arrival order (an open and its close must not cross). */
  private work: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly context: AccessContext,
    events: AccessEventBus,
    private readonly options: DoorAlarmOptions,
  ) {
    this.subscriptions = [{ filter: `${context.prefix}/doors/+/contact`, shared: false }];
    events.on("doorModeChanged", (doorCode, mode) => this.onModeChange(doorCode, mode));
    events.on("bridgeStateRecorded", (doorCode, state) => this.onBridgeState(doorCode, state));
  }

  onMessage(topic: string, payload: Buffer, _packet: IPublishPacket) {
    const parsed = parseDoorTopic(this.context.prefix, topic);
    if (parsed?.kind !== "contact") return false;
    if (payload.length === 0) return true; // a cleared retained contact
    const contact = contactSchema.safeParse(parseJsonPayload(payload));
    if (!contact.success) {
      console.warn(`[access] door ${parsed.doorCode}: invalid contact ignored`);
      return true;
    }
    const { doorCode } = parsed;
    const { state, released } = contact.data;
    this.enqueue(doorCode, async () => {
      this.cancel(this.heldOpenTimers, doorCode);
      this.openReleased.delete(doorCode);
      if (state === "closed") return this.clear(doorCode, ["forced_open", "held_open"]);
      if (!released) return this.raise(doorCode, "forced_open");
      this.openReleased.add(doorCode);
      // Inside its open hours a door may stand open: the clock starts when they end.
      if (!this.heldReleased.has(doorCode)) await this.startHeldOpenTimer(doorCode);
    });
    return true;
  }

  /** The publisher's news of a door's mode: open hours stop the held-open clock, their end starts it. */
  onModeChange(doorCode: string, mode: DoorMode) {
    if (mode.mode === "unlocked") this.heldReleased.add(doorCode);
    else this.heldReleased.delete(doorCode);
    this.enqueue(doorCode, async () => {
      if (mode.mode === "unlocked") return this.cancel(this.heldOpenTimers, doorCode);
      if (this.openReleased.has(doorCode) && !this.heldOpenTimers.has(doorCode)) await this.startHeldOpenTimer(doorCode);
    });
  }

  private async startHeldOpenTimer(doorCode: string) {
    const door = await getDoorByCode(doorCode);
    if (!door || this.stopped) return;
    this.heldOpenTimers.set(
      doorCode,
      setTimeout(() => {
        this.heldOpenTimers.delete(doorCode);
        this.enqueue(doorCode, () => this.raise(doorCode, "held_open"));
      }, door.heldOpenSeconds * this.options.heldOpenSecondMs),
    );
  }

  /**
   * A bridge's state, once door-state.server.ts has recorded it: online clears
   * the offline alarm; offline raises it doorOfflineAlarmMs after the bridge
   * was last seen (a retained offline state after a restart counts from then).
   */
  onBridgeState(doorCode: string, state: BridgeStateMessage) {
    this.enqueue(doorCode, async () => {
      this.cancel(this.offlineTimers, doorCode);
      if (state.online) return this.clear(doorCode, ["door_offline"]);
      const door = await getDoorByCode(doorCode);
      if (!door || this.stopped) return;
      const lastSeen = door.hardware?.lastSeen ? Date.parse(door.hardware.lastSeen) : Date.now();
      const delay = Math.max(0, lastSeen + this.options.doorOfflineAlarmMs - Date.now());
      this.offlineTimers.set(
        doorCode,
        setTimeout(() => {
          this.offlineTimers.delete(doorCode);
          this.enqueue(doorCode, () => this.raise(doorCode, "door_offline"));
        }, delay),
      );
    });
  }

  async stop() {
    this.stopped = true;
    for (const timer of [...this.heldOpenTimers.values(), ...this.offlineTimers.values()]) clearTimeout(timer);
    this.heldOpenTimers.clear();
    this.offlineTimers.clear();
    await this.work;
  }

  private enqueue(doorCode: string, step: () => Promise<unknown>) {
    this.work = this.work.then(step).then(
      () => undefined,
      (error: unknown) => console.error(`[access] door ${doorCode}: alarm not recorded`, error),
    );
  }

  private cancel(timers: Map<string, NodeJS.Timeout>, doorCode: string) {
    const timer = timers.get(doorCode);
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.delete(doorCode);
  }

  private async raise(doorCode: string, kind: DoorAlarmKind) {
    if (this.stopped) return;
    const door = await getDoorByCode(doorCode);
    if (!door) return;
    const alarm = await raiseDoorAlarm(door, kind, this.context.clock());
    if (alarm) console.warn(`[access] door ${doorCode}: alarm ${kind}`);
  }

  private async clear(doorCode: string, kinds: DoorAlarmKind[]) {
    const door = await getDoorByCode(doorCode);
    if (!door) return;
    const cleared = await clearDoorAlarms(door.id, kinds, this.context.clock());
    for (const alarm of cleared) console.info(`[access] door ${doorCode}: alarm ${alarm.kind} cleared`);
  }
}
