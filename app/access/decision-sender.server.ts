// A swipe's decision on its way to the door: `{prefix}/doors/{door}/decision`
// at QoS 1 (docs/mqtt.md), counted in the metrics with the time since the
// swipe arrived. Sent by the decisions module as soon as a swipe is decided,
// and by the recording for a swipe that reached its batch unanswered.
import { doorTopic, type DecisionMessage } from "~/doors/contract";
import { UNLOCK_MS } from "~/doors/rules";
import { countDecision } from "./metrics.server";
import type { AccessContext } from "./module.server";
import type { SwipeDecision } from "./record-batch.server";

/** MQTT 5: a decision nobody read within this is useless (the bridge decided offline long ago). */
const DECISION_EXPIRY_S = 10;

export class DecisionSender {
  constructor(private readonly context: AccessContext) {}

  /** `correlationData`: the swipe's (MQTT 5); `receivedAt`: its arrival (performance.now()), for the metrics. */
  send(decision: SwipeDecision, correlationData: Buffer | undefined, receivedAt: number | undefined) {
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
  }
}
