// Door state: each bridge's retained `state` (online, version, reader; its
// last will says offline) is written to its door's hardware fields, which the
// admin's door screens show. Subscribed unshared, so every instance gets the
// retained states at start (writing the same fields twice is harmless).
import type { IPublishPacket } from "mqtt";
import { recordBridgeState } from "~/models/door.server";
import { bridgeStateSchema, parseDoorTopic } from "~/doors/contract";
import type { AccessEventBus } from "./events.server";
import { setDoorOnline } from "./metrics.server";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";

export class DoorStates implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  /** Written one after another (awaited on stop). */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: AccessContext,
    /** Told of each recorded state of a known door (`bridgeStateRecorded`: the door-offline alarm). */
    private readonly events: AccessEventBus,
  ) {
    this.subscriptions = [{ filter: `${context.prefix}/doors/+/state`, shared: false }];
  }

  onMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    const parsed = parseDoorTopic(this.context.prefix, topic);
    if (parsed?.kind !== "state") return false;
    this.receiveState(parsed.doorCode, payload, packet.retain);
    return true;
  }

  async stop() {
    await this.writes;
  }

  private receiveState(doorCode: string, payload: Buffer, retained: boolean) {
    if (payload.length === 0) return; // a cleared retained state
    const state = bridgeStateSchema.safeParse(parseJsonPayload(payload));
    if (!state.success) {
      console.warn(`[access] door ${doorCode}: invalid state ignored`);
      return;
    }
    this.writes = this.writes
      .then(() => recordBridgeState(doorCode, state.data, { retained }))
      .then(
        (known) => {
          if (!known) return;
          setDoorOnline(doorCode, state.data.online);
          this.events.emit("bridgeStateRecorded", doorCode, state.data);
        },
        (error: unknown) => console.error(`[access] door ${doorCode}: could not record its state`, error),
      );
  }
}
