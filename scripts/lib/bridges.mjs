// Simulated door bridges for the access benchmarks: real MQTT.js clients
// that log in as their door (username = door code, password = its bridge
// credential), publish swipes at a fixed rate and time each decision.
import crypto from "node:crypto";
import mqtt from "mqtt";
import { machineBusySeconds } from "./proc.mjs";
import { sleep } from "./server.mjs";

export const PREFIX = "coliving";

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** doors: [{ code, password }] → [{ door, client }], each subscribed to its decisions. */
export async function connectBridges(url, doors, { prefix = PREFIX } = {}) {
  return Promise.all(
    doors.map(async (door) => {
      const client = await mqtt.connectAsync(url, {
        clientId: `coliving-bridge-${door.code}`,
        username: door.code,
        password: door.password,
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 0,
      });
      client.stream.setNoDelay?.(true); // MQTT.js leaves Nagle on (see STACK-NOTES)
      await client.subscribeAsync(`${prefix}/doors/${door.code}/decision`, { qos: 1 });
      return { door, client };
    }),
  );
}

export async function endBridges(bridges, force = false) {
  await Promise.all(bridges.map(({ client }) => client.endAsync(force).catch(() => {})));
}

/**
 * cards: [{ number, allowedDoors: Set of door codes }].
 * Mix: ~85% cards allowed on the door, ~10% not allowed, ~3% never seen.
 */
export function pickCard(cards, doorCode, sequence) {
  const roll = sequence % 100;
  if (roll < 3) return `FF${sequence.toString(16).toUpperCase().padStart(8, "0")}`;
  for (let attempt = 0; attempt < 20; attempt++) {
    const card = cards[Math.floor(Math.random() * cards.length)];
    if (roll < 13 ? !card.allowedDoors.has(doorCode) : card.allowedDoors.has(doorCode)) return card.number;
  }
  return cards[0].number;
}

/**
 * Open loop: sends `rate` swipes a second, round-robin over the bridges, for
 * `seconds` (or until `signal` aborts, if sooner), whatever the answers do (a
 * slow service shows up as latency, not as a lower offered rate); then waits
 * up to drainTimeoutMs for the missing decisions. Keeps every swipe→decision
 * latency (ms).
 *
 * onWindow(endSecond, sortedLatencies, machineCpuPercent|null), when given,
 * is called every windowSeconds with that window's latencies: on a shared
 * machine the tail follows what other processes do.
 */
export async function sendSwipes(bridges, cards, { rate, seconds, signal, prefix = PREFIX, drainTimeoutMs = 10_000, windowSeconds = 5, onWindow, present }) {
  const sent = new Map();
  const latencies = [];
  /** By credential kind (card, pin, qr), when `present` picks them. */
  const latenciesByKind = {};
  const kindOf = new Map();
  let windowLatencies = [];
  let decided = 0;
  let granted = 0;
  const onMessage = (topic, payload) => {
    const decision = JSON.parse(payload.toString());
    const sentAt = sent.get(decision.id);
    if (sentAt === undefined) return;
    const latency = performance.now() - sentAt;
    sent.delete(decision.id);
    const kind = kindOf.get(decision.id);
    if (kind) {
      kindOf.delete(decision.id);
      (latenciesByKind[kind] ??= []).push(latency);
    }
    decided += 1;
    if (decision.granted) granted += 1;
    latencies.push(latency);
    windowLatencies.push(latency);
  };
  for (const { client } of bridges) client.on("message", onMessage);
  let windowStart = machineBusySeconds();
  let windowIndex = 0;
  const windowTimer = setInterval(() => {
    const busy = machineBusySeconds();
    const machineCpu = busy !== null && windowStart !== null ? ((busy - windowStart) / windowSeconds) * 100 : null;
    windowStart = busy;
    const sorted = windowLatencies.sort((a, b) => a - b);
    windowLatencies = [];
    windowIndex += 1;
    if (onWindow && sorted.length > 0) onWindow(windowIndex * windowSeconds, sorted, machineCpu);
  }, windowSeconds * 1000);

  const start = performance.now();
  let total = 0;
  let next = 0;
  while (performance.now() - start < seconds * 1000 && !signal?.aborted) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (total < due) {
      const { door, client } = bridges[next];
      next = (next + 1) % bridges.length;
      const id = crypto.randomUUID();
      // `present(doorCode, sequence)` → {kind, fields} (e.g. {pin} with source keypad); else a card.
      const presented = present?.(door.code, total);
      const swipe = presented
        ? { id, ...presented.fields, at: new Date().toISOString() }
        : { id, card: pickCard(cards, door.code, total), at: new Date().toISOString(), source: "reader" };
      if (presented) kindOf.set(id, presented.kind);
      sent.set(id, performance.now());
      client.publish(`${prefix}/doors/${door.code}/swipe`, JSON.stringify(swipe), { qos: 1 });
      total += 1;
    }
    await sleep(2);
  }
  const sendingEnded = performance.now();
  const drainDeadline = Date.now() + drainTimeoutMs;
  while (sent.size > 0 && Date.now() < drainDeadline) await sleep(20);
  for (const { client } of bridges) client.off("message", onMessage);
  clearInterval(windowTimer);
  return { total, decided, granted, lost: sent.size, latencies, latenciesByKind, sendingSeconds: (sendingEnded - start) / 1000 };
}
