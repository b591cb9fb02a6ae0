// Batches recorded in a worker thread of the access process. libsql runs
// each statement of a `file:` database synchronously, so a batch's
// transaction (its reads, writes and fsync, a few milliseconds) would hold
// the thread that also reads the doors' swipes and sends their decisions.
// Here the main thread keeps doing MQTT while this thread, with its own
// database connection, records one batch after another; the next batch is
// whatever arrived meanwhile. The worker runs the same bundle as the access
// process (build/access.js), which starts this side when it is not the main
// thread. A recorder thread that dies takes the access process with it: the
// web process restarts the service whole (process.server.ts), as after any
// crash, and the doors' offline events fill in what was not recorded.
//
// When the access process runs its checkpoint thread (checkpointer.server.ts),
// this thread's commits leave the WAL to it: SQLite's automatic checkpoint,
// which runs inside the commit that finds the WAL past 1,000 pages, made one
// batch in a few dozen take 10-15 ms at 1,000 swipes/s. The commits here
// still checkpoint if the WAL ever reaches CHECKPOINT_SAFETY_NET_PAGES (the
// checkpoint thread stuck behind a long reader, say), so it cannot grow
// without bound.
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { setWalAutoCheckpoint } from "~/utils/db.server";
import type { NewBuildingReading } from "~/models/building-reading.server";
import { recordAccessBatch, type AccessBatchResult, type AccessInput, type SwipeAnswers } from "./record-batch.server";

/** About 40 MB of WAL. */
export const CHECKPOINT_SAFETY_NET_PAGES = 10_000;

type ThreadData = { role: typeof RECORDER_THREAD_ROLE; checkpointsElsewhere: boolean };
type Request = { id: number; items: AccessInput[]; answers: SwipeAnswers; now: number; readings: NewBuildingReading[] };
type Reply = { id: number; result: AccessBatchResult } | { id: number; error: string };

export type RecorderThread = {
  record(items: AccessInput[], answers?: SwipeAnswers, now?: Date, readings?: NewBuildingReading[]): Promise<AccessBatchResult>;
  stop(): Promise<void>;
};

export const RECORDER_THREAD_ROLE = "access-recorder";

/**
 * Starts the thread from `entry` (the bundle that calls serveRecorderThread in
 * a worker). checkpointsElsewhere: another thread runs the WAL checkpoints.
 */
export function startRecorderThread(entry: string | URL, { checkpointsElsewhere }: { checkpointsElsewhere: boolean }): RecorderThread {
  const worker = new Worker(entry, { workerData: { role: RECORDER_THREAD_ROLE, checkpointsElsewhere } satisfies ThreadData });
  const pending = new Map<number, { resolve(result: AccessBatchResult): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopping = false;
  worker.on("message", (reply: Reply) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if ("error" in reply) call.reject(new Error(reply.error));
    else call.resolve(reply.result);
  });
  worker.on("error", (error) => console.error("[access] recorder thread failed", error));
  worker.on("exit", (code) => {
    if (stopping) return;
    console.error(`[access] recorder thread exited (${code}): stopping the access service`);
    process.exit(1);
  });

  return {
    record(items, answers = new Map(), now = new Date(), readings = []) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, items, answers, now: now.getTime(), readings } satisfies Request);
      });
    },
    async stop() {
      stopping = true;
      for (const call of pending.values()) call.reject(new Error("the access service is stopping"));
      pending.clear();
      await worker.terminate();
    },
  };
}

/** True in the recorder's worker thread of the access bundle. */
export function isRecorderThread(workerData: unknown): workerData is ThreadData {
  return !isMainThread && (workerData as { role?: string } | null)?.role === RECORDER_THREAD_ROLE;
}

/** The worker's side: records each batch it is sent, one at a time, and answers with its decisions. */
export function serveRecorderThread(workerData: ThreadData) {
  const port = parentPort!;
  let chain = workerData.checkpointsElsewhere
    ? setWalAutoCheckpoint(CHECKPOINT_SAFETY_NET_PAGES).catch((error: unknown) =>
        console.warn(`[access] recorder thread: commits keep SQLite's own checkpoints (${String(error)})`),
      )
    : Promise.resolve();
  port.on("message", (request: Request) => {
    chain = chain.then(async () => {
      try {
        const result = await recordAccessBatch(request.items, new Date(request.now), request.answers, request.readings);
        port.postMessage({ id: request.id, result } satisfies Reply);
      } catch (error) {
        port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies Reply);
      }
    });
  });
}
