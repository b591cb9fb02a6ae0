// WAL checkpoints off the decisions' thread. SQLite copies the WAL back into
// the database (a checkpoint) from inside the commit that finds the WAL past
// 1,000 pages; on a large log that copy is hundreds of scattered page writes
// and an fsync, and the swipe whose batch happened to commit then waited for
// it (the 1-in-100 stall behind the p99, docs/decisions/0004). Here a worker
// thread, with its own connection, runs a PASSIVE checkpoint every few
// hundred milliseconds: it never blocks the writer, and the writer's own
// automatic checkpoint finds (almost) nothing left to copy.
import { Worker } from "node:worker_threads";
import { withTimeout } from "~/utils/timeout";

// CommonJS in the worker; @libsql/client resolves from the working directory (the app's root).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createClient } = require("@libsql/client");
const client = createClient({ url: workerData.url, timeout: 0 });
let running = true;
async function loop() {
  while (running) {
    try {
      await client.execute("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
  }
  client.close();
}
parentPort.once("message", () => { running = false; });
loop();
`;

export type Checkpointer = { stop(): Promise<void> };

/** Starts the checkpoint thread for a `file:` database; null for any other URL. */
export function startCheckpointer(url: string, intervalMs = 250): Checkpointer | null {
  if (!url.startsWith("file:") || url.includes(":memory:")) return null;
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url, intervalMs } });
  worker.on("error", (error) => console.warn(`[access] checkpoint thread: ${error.message}`));
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage("stop");
      // Then terminated anyway.
      await withTimeout(exited, 2000, "checkpoint thread stop").catch(() => {});
      await worker.terminate();
    },
  };
}
