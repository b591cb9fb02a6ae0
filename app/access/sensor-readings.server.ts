// Sensor readings: each building sensor's conditions (temperature, humidity,
// WiFi); the latest is what the residents' portal shows. A sensor may send as
// often as it likes, but at most one reading per sensor is stored each
// interval (5 s by default): the first at once, and whatever came later in
// the interval coalesced into its latest, stored when the interval ends. They
// are stored with the recording's next batch, in its transaction, so a
// flooding sensor adds no commit and no write on this thread: nothing the
// doors' decisions wait on.
import type { NewBuildingReading } from "~/models/building-reading.server";
import { buildingConditionsSchema, parseSensorTopic, sensorTopic } from "~/doors/contract";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";
import type { Recording } from "./recording.server";

export type SensorReadingsOptions = {
  /** At most one reading per sensor stored this often. */
  intervalMs: number;
  /** Stores the readings with its next batch. */
  recording: Pick<Recording, "addReadings">;
};

type SensorState = {
  /** When a reading of this sensor was last handed over to be stored (performance.now()). */
  storedAt: number;
  /** The latest reading received since, waiting for the interval to end. */
  latest: NewBuildingReading | null;
  timer: NodeJS.Timeout | null;
};

export class SensorReadings implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  private readonly sensors = new Map<string, SensorState>();

  constructor(
    private readonly context: AccessContext,
    private readonly options: SensorReadingsOptions,
  ) {
    // QoS 0 towards this service: a reading missed is followed by the next
    // one within seconds, and a flooding sensor costs the broker and this
    // thread no acknowledgement per message (QoS 1 from the sensor still has
    // the broker acknowledge it).
    this.subscriptions = [{ filter: sensorTopic(context.prefix, "+"), shared: true, qos: 0 }];
  }

  onMessage(topic: string, payload: Buffer) {
    const sensorId = parseSensorTopic(this.context.prefix, topic);
    if (!sensorId) return false;
    this.receiveConditions(sensorId, payload);
    return true;
  }

  /** Hands over every reading still waiting for its interval to end (the latest is never dropped). */
  async stop() {
    for (const state of this.sensors.values()) {
      if (state.timer) clearTimeout(state.timer);
      state.timer = null;
      this.storeLatest(state);
    }
  }

  private receiveConditions(sensorId: string, payload: Buffer) {
    const reading = buildingConditionsSchema.safeParse(parseJsonPayload(payload));
    if (!reading.success) {
      console.warn(`[access] sensor ${sensorId}: invalid reading ignored`);
      return;
    }
    const { temperature, humidity, wifiStatus, at } = reading.data;
    // A sensor whose clock runs ahead is recorded at arrival time.
    const recordedAt = new Date(Math.min(Date.parse(at), Date.now()));
    const state = this.sensors.get(sensorId) ?? { storedAt: -Infinity, latest: null, timer: null };
    this.sensors.set(sensorId, state);
    state.latest = { temperature, humidity, wifiStatus, recordedAt };
    if (state.timer) return; // stored when the interval ends
    const wait = state.storedAt + this.options.intervalMs - performance.now();
    if (wait <= 0 || this.context.stopping()) {
      this.storeLatest(state);
      return;
    }
    state.timer = setTimeout(() => {
      state.timer = null;
      this.storeLatest(state);
    }, wait);
    state.timer.unref();
  }

  private storeLatest(state: SensorState) {
    if (!state.latest) return;
    this.options.recording.addReadings([state.latest]);
    state.latest = null;
    state.storedAt = performance.now();
  }
}
