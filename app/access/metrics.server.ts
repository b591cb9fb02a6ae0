// The access service's series for GET /metrics (utils/metrics.server.ts):
// the web process reads them over the IPC channel on each scrape
// (process.server.ts). Kept off the cost of a decision: a histogram observe
// and a counter increment per swipe, each counter's child bound once per
// result and reason; no label names a card, a user or a door.
import { Counter, Gauge, Histogram } from "prom-client";
import type { AccessReason } from "~/doors/reasons";
import { metricsRegistry } from "~/utils/metrics.server";

const decisionDuration = new Histogram({
  name: "door_decision_duration_seconds",
  help: "Time from a swipe's arrival at the access service to its decision's publication.",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [metricsRegistry],
});

const decisions = new Counter({
  name: "door_decisions_total",
  help: "Decisions the access service sent to doors, by result (granted, denied) and reason code (docs/mqtt.md).",
  labelNames: ["result", "reason"],
  registers: [metricsRegistry],
});

const queuedEvents = new Counter({
  name: "door_queued_events_received_total",
  help: "Events received from the doors' queues: offline_decision (decided by the bridge while offline) or answered_swipe (a swipe the app answered, sent again).",
  labelNames: ["kind"],
  registers: [metricsRegistry],
});

queuedEvents.inc({ kind: "offline_decision" }, 0);
queuedEvents.inc({ kind: "answered_swipe" }, 0);

/** Doors whose bridge last said it is online (their retained state). */
const onlineDoors = new Set<string>();

new Gauge({
  name: "doors_online",
  help: "Doors whose bridge's retained state says online.",
  registers: [metricsRegistry],
  collect() {
    this.set(onlineDoors.size);
  },
});

const decisionCounters = new Map<string, Counter.Internal>();

/** A decision published to its door, `receivedAt` being its swipe's arrival (performance.now()). */
export function countDecision(granted: boolean, reason: AccessReason, receivedAt: number | undefined) {
  if (receivedAt !== undefined) decisionDuration.observe((performance.now() - receivedAt) / 1000);
  const key = `${granted}:${reason}`;
  let counter = decisionCounters.get(key);
  if (!counter) {
    counter = decisions.labels(granted ? "granted" : "denied", reason);
    decisionCounters.set(key, counter);
  }
  counter.inc();
}

export function countQueuedEvent(offline: boolean) {
  queuedEvents.inc({ kind: offline ? "offline_decision" : "answered_swipe" });
}

export function setDoorOnline(doorCode: string, online: boolean) {
  if (online) onlineDoors.add(doorCode);
  else onlineDoors.delete(doorCode);
}
