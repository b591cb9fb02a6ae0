// Decisions: the doors' swipes are answered as they arrive, on what is
// committed with whatever is received but not yet committed planned first
// (decideAccessBatch), and the decisions go out at once; then the swipes, and
// the doors' events, go to the recording module. A person at the door never
// waits for a commit: a commit can stall for tens of milliseconds on a busy
// disk (docs/decisions/0004). The bridge keeps each answered swipe until a
// receipt says it is stored.
import type { IPublishPacket } from "mqtt";
import {
  canonicalCardId,
  doorEventSchema,
  doorTopic,
  parseDoorTopic,
  swipeIdSchema,
  swipeSchema,
  type DecisionMessage,
} from "~/doors/contract";
import { UNLOCK_MS } from "~/doors/rules";
import type { AccessGroupsState } from "./access-groups.server";
import { countDecision, countQueuedEvent } from "./metrics.server";
import { parseJsonPayload, type AccessContext, type AccessModule, type ModuleSubscription } from "./module.server";
import { decideAccessBatch, swipeAnswers, type SwipeDecision } from "./record-batch.server";
import type { QueuedInput, Recording } from "./recording.server";

/** Largest set of swipes decided together. */
const MAX_DECIDED_TOGETHER = 500;
/** MQTT 5: a decision nobody read within this is useless (the bridge decided offline long ago). */
const DECISION_EXPIRY_S = 10;

export class Decisions implements AccessModule {
  readonly subscriptions: ModuleSubscription[];
  /** Received, not yet answered. */
  private readonly undecided: QueuedInput[] = [];
  private deciding: Promise<void> | null = null;

  constructor(
    private readonly context: AccessContext,
    private readonly recording: Recording,
    /** The access groups' timetables, kept in memory (access-groups.server.ts). */
    private readonly groups: AccessGroupsState,
    /** Told of every grant, online or in a door's event (first-person-in doors: door-publisher.server.ts). */
    private readonly onGranted: (doorCode: string, at: Date) => void = () => {},
  ) {
    this.subscriptions = [
      { filter: `${context.prefix}/doors/+/swipe`, shared: true },
      { filter: `${context.prefix}/doors/+/events`, shared: true },
    ];
  }

  onMessage(topic: string, payload: Buffer, packet: IPublishPacket) {
    const parsed = parseDoorTopic(this.context.prefix, topic);
    if (parsed?.kind === "swipe") this.receiveSwipe(parsed.doorCode, payload, packet);
    else if (parsed?.kind === "events") this.receiveEvent(parsed.doorCode, payload);
    else return false;
    return true;
  }

  /** Resolves once everything received is answered and handed to the recording. */
  async stop() {
    while (this.deciding) await this.deciding;
  }

  /**
   * Publishes a swipe's decision to its door (also used for those answered
   * only after their commit); `receivedAt` is the swipe's arrival, for the
   * decision's duration in the metrics.
   */
  readonly publishDecision = (decision: SwipeDecision, correlationData: Buffer | undefined, receivedAt: number | undefined) => {
    const { client, counters, prefix, protocolVersion } = this.context;
    counters.decisions += 1;
    const message: DecisionMessage = {
      id: decision.id,
      granted: decision.granted,
      reason: decision.reason,
      display: decision.display,
      unlockMs: decision.granted ? UNLOCK_MS : 0,
    };
    const properties =
      protocolVersion === 5 ? { messageExpiryInterval: DECISION_EXPIRY_S, ...(correlationData ? { correlationData } : {}) } : undefined;
    client.publish(doorTopic(prefix, decision.doorCode, "decision"), JSON.stringify(message), { qos: 1, properties }, (error) => {
      if (error && !this.context.stopping()) console.warn(`[access] decision ${decision.id}: ${error.message}`);
    });
    countDecision(decision.granted, decision.reason, receivedAt);
  };

  private receiveSwipe(doorCode: string, payload: Buffer, packet: IPublishPacket) {
    const json = parseJsonPayload(payload);
    const id = swipeIdSchema.safeParse(json);
    if (!id.success) {
      console.warn(`[access] door ${doorCode}: swipe without a usable id ignored`);
      return;
    }
    const swipe = swipeSchema.safeParse(json);
    const rawCard = (json as { card?: unknown }).card;
    this.enqueue({
      input: {
        kind: "swipe",
        id: id.data.id,
        doorCode,
        cardNumber: swipe.success ? canonicalCardId(swipe.data.card) : null,
        rawCard: typeof rawCard === "string" ? rawCard : "",
        source: swipe.success ? swipe.data.source : null,
        ipAddress: this.context.broker?.addressOf(doorCode) ?? null,
      },
      correlationData: packet.properties?.correlationData,
      receivedAt: performance.now(),
    });
  }

  private receiveEvent(doorCode: string, payload: Buffer) {
    const event = doorEventSchema.safeParse(parseJsonPayload(payload));
    const cardNumber = event.success ? canonicalCardId(event.data.card) : null;
    if (!event.success || !cardNumber) {
      console.warn(`[access] door ${doorCode}: invalid event ignored`);
      return;
    }
    countQueuedEvent(event.data.offline);
    if (event.data.granted) this.onGranted(doorCode, new Date(event.data.at));
    this.enqueue({
      input: {
        kind: "event",
        id: event.data.id,
        doorCode,
        cardNumber,
        at: new Date(event.data.at),
        granted: event.data.granted,
        reason: event.data.reason,
        offline: event.data.offline,
        ipAddress: this.context.broker?.addressOf(doorCode) ?? null,
      },
    });
  }

  private enqueue(item: QueuedInput) {
    this.undecided.push(item);
    this.deciding ??= this.decide();
  }

  /**
   * Answers the swipes that arrived, at once, on what is committed with what
   * is still to be committed planned first; then hands them (and the events)
   * to the recording.
   */
  private async decide() {
    while (this.undecided.length > 0) {
      // Whatever arrives in the same turn is answered together.
      await new Promise((resolve) => setImmediate(resolve));
      const fresh = this.undecided.splice(0, MAX_DECIDED_TOGETHER);
      const now = this.context.clock();
      try {
        const pending = this.recording.pending();
        const inputs = (items: QueuedInput[]) => items.map((item) => item.input);
        const groups = await this.groups.current();
        const decisions = await decideAccessBatch(inputs(pending), swipeAnswers(pending), inputs(fresh), now, groups);
        const swipes = fresh.filter((item) => item.input.kind === "swipe");
        swipes.forEach((item, index) => {
          const decision = decisions[index]!;
          item.answer = { granted: decision.granted, reason: decision.reason, at: now.getTime() };
          this.publishDecision(decision, item.correlationData, item.receivedAt);
          if (decision.granted && !decision.duplicate) this.onGranted(decision.doorCode, now);
        });
      } catch (error) {
        // Unanswered, they are decided in their batch and answered after its commit.
        console.error(`[access] could not decide ${fresh.length} swipes/events before recording them`, error);
      }
      this.recording.add(fresh);
    }
    this.deciding = null;
  }
}
