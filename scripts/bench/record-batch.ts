// Entry for `bench:access --scenario record`, bundled and run in its own
// process against a seeded DATABASE_URL: times recordAccessBatch alone (no
// MQTT) on random swipes, as the access process's recorder thread runs it.
// Every tenth item is a door's offline decision (every other one replacing
// the decision of a swipe already recorded). Then the log's counters are
// compared with a full recount of the rows (`countersMatchRecount`; the run
// fails when they differ).
// Prints one JSON line: milliseconds per batch (mean, p50, p99, max), the rows
// and whether the counters match.
//
//   BENCH_BATCH (8) swipes a batch, BENCH_BATCHES (3000) batches,
//   BENCH_CHECKPOINTS: "thread" (the checkpoint thread runs and the batches'
//   connection leaves checkpoints to it, as in build/access.js) or "sqlite"
//   (every commit may checkpoint, SQLite's default),
//   BENCH_DOOR_CODES, BENCH_CARD_NUMBERS: comma-separated, from the seed.
import crypto from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { startCheckpointer } from "~/access/checkpointer.server";
import { recordAccessBatch, type AccessInput } from "~/access/record-batch.server";
import { CHECKPOINT_SAFETY_NET_PAGES } from "~/access/recorder-thread.server";
import { setWalAutoCheckpoint } from "~/utils/db.server";
import { getEnv } from "~/utils/env.server";
import { keptAccessLogCounters, recountedAccessLogCounters } from "../lib/access-log-recount";

const batchSize = Number(process.env.BENCH_BATCH ?? 8);
const batches = Number(process.env.BENCH_BATCHES ?? 3000);
const checkpoints = process.env.BENCH_CHECKPOINTS ?? "thread";
const doorCodes = (process.env.BENCH_DOOR_CODES ?? "").split(",");
const cardNumbers = (process.env.BENCH_CARD_NUMBERS ?? "").split(",");
const pick = (values: string[]) => values[Math.floor(Math.random() * values.length)]!;

const checkpointer = checkpoints === "thread" ? startCheckpointer(getEnv().DATABASE_URL) : null;
if (checkpointer) await setWalAutoCheckpoint(CHECKPOINT_SAFETY_NET_PAGES);

const times: number[] = [];
let previous: AccessInput[] = [];
for (let b = 0; b < batches; b++) {
  const items: AccessInput[] = Array.from({ length: batchSize }, (_, i): AccessInput => {
    const swipe = { id: crypto.randomUUID(), doorCode: pick(doorCodes), cardNumber: pick(cardNumbers) };
    const item = b * batchSize + i;
    if (item % 10 !== 9) return { kind: "swipe", ...swipe, rawCard: "", source: "reader", ipAddress: null };
    // An offline decision: a new row, or (every other one) the door's decision for a swipe of the last batch.
    const earlier = item % 20 === 19 ? previous.find((other) => other.kind === "swipe") : undefined;
    const decided = earlier ? { id: earlier.id, doorCode: earlier.doorCode, cardNumber: earlier.cardNumber ?? swipe.cardNumber } : swipe;
    const granted = Math.random() < 0.5;
    return { kind: "event", ...decided, at: new Date(Date.now() - 60_000), granted, reason: granted ? "granted" : "offline_deny", offline: true, ipAddress: null };
  });
  const start = performance.now();
  await recordAccessBatch(items);
  times.push(performance.now() - start);
  previous = items;
}
await checkpointer?.stop();

const kept = await keptAccessLogCounters();
const recounted = await recountedAccessLogCounters();
const countersMatchRecount = isDeepStrictEqual(kept, recounted);
if (!countersMatchRecount) process.exitCode = 1;

const sorted = [...times].sort((a, b) => a - b);
const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 100) / 100;
console.info(
  JSON.stringify({
    checkpoints,
    batchSize,
    batches,
    meanMs: round(times.reduce((sum, ms) => sum + ms, 0) / times.length),
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1)!),
    hourCounters: kept.hours.length,
    countersMatchRecount,
  }),
);
