// Sensor readings: each building sensor's conditions (temperature, humidity,
// WiFi), stored as they come; the latest is what the residents' portal shows.
import { insertBuildingReading } from "~/models/building-reading.server";
import { buildingConditionsSchema, parseSensorTopic, sensorTopic } from "~/doors/contract";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";

export class SensorReadings implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  /** Written one after another (awaited on stop). */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly context: AccessContext) {
    this.subscriptions = [{ filter: sensorTopic(context.prefix, "+"), shared: true }];
  }

  onMessage(topic: string, payload: Buffer) {
    const sensorId = parseSensorTopic(this.context.prefix, topic);
    if (!sensorId) return false;
    this.receiveConditions(sensorId, payload);
    return true;
  }

  async stop() {
    await this.writes;
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
    this.writes = this.writes
      .then(async () => {
        await insertBuildingReading({ temperature, humidity, wifiStatus, recordedAt });
      })
      .catch((error: unknown) => console.error(`[access] sensor ${sensorId}: could not store its reading`, error));
  }
}
