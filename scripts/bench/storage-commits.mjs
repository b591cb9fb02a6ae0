// `bench:access --scenario storage`: what the storage under the database
// gives a writer like the access service's recorder, without SQLite. Each
// commit appends 20 pages of 4 KB to a log file (about two swipes' WAL frames)
// and fdatasyncs it, 1 ms apart (about 500 commits/s, as at 1,000 swipes/s);
// once alone, once while a second thread writes like the checkpoint thread
// (4,000 random 4 KB pages of a 64 MB file, then fsync, every 250 ms). A
// storage whose commit p99 here is a few milliseconds is not what holds a
// decision back by tens of milliseconds.
import fs from "node:fs";
import path from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { sleep } from "../lib/server.mjs";

const PAGE = 4096;
const PAGES_PER_COMMIT = 20;
const LOG_BYTES = 40 << 20;
const CHECKPOINT_FILE_PAGES = 16_384;
const CHECKPOINT_PAGES = 4_000;
const CHECKPOINT_INTERVAL_MS = 250;

/** The checkpoint-like writer, in a worker thread until told to stop. */
async function writeLikeACheckpoint(file) {
  const fd = fs.openSync(file, "w+");
  fs.ftruncateSync(fd, CHECKPOINT_FILE_PAGES * PAGE);
  const page = Buffer.alloc(PAGE, 7);
  let running = true;
  parentPort.once("message", () => (running = false));
  while (running) {
    const start = performance.now();
    for (let i = 0; i < CHECKPOINT_PAGES; i++) fs.writeSync(fd, page, 0, PAGE, Math.floor(Math.random() * CHECKPOINT_FILE_PAGES) * PAGE);
    fs.fsyncSync(fd);
    await sleep(Math.max(0, CHECKPOINT_INTERVAL_MS - (performance.now() - start)));
  }
  fs.closeSync(fd);
  parentPort.postMessage("stopped");
}

/** Milliseconds of each durable commit made for `seconds`. */
async function commitFor(file, seconds) {
  const fd = fs.openSync(file, "w+");
  const frames = Buffer.alloc(PAGE * PAGES_PER_COMMIT, 3);
  const times = [];
  let offset = 0;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    fs.writeSync(fd, frames, 0, frames.length, offset);
    fs.fdatasyncSync(fd);
    times.push(performance.now() - start);
    offset = (offset + frames.length) % LOG_BYTES;
    await sleep(1);
  }
  fs.closeSync(fd);
  return times.sort((a, b) => a - b);
}

async function measure(dataDir, seconds, withCheckpoint) {
  const dir = fs.mkdtempSync(path.join(dataDir, "coliving-bench-storage-"));
  const checkpoint = withCheckpoint ? new Worker(new URL(import.meta.url), { workerData: { file: path.join(dir, "db") } }) : null;
  // A writer that dies would leave "beside" measuring commits alone: fail the run instead.
  let writerFailed = null;
  checkpoint?.on("error", (error) => (writerFailed = error));
  try {
    const times = await commitFor(path.join(dir, "wal"), seconds);
    if (writerFailed) throw new Error(`the checkpoint-like writer failed: ${writerFailed.message}`);
    const at = (p) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
    return { commitsPerSecond: times.length / seconds, p50: at(0.5), p99: at(0.99), max: times.at(-1) };
  } finally {
    if (checkpoint) {
      const stopped = new Promise((resolve) => {
        checkpoint.once("message", resolve);
        checkpoint.once("exit", resolve);
      });
      checkpoint.postMessage("stop");
      await stopped;
      await checkpoint.terminate();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runStorageScenario({ dataDirs, seconds }) {
  console.info(`[bench] durable commits of ${PAGES_PER_COMMIT} pages, 1 ms apart, ${seconds} s each (ms a commit)`);
  for (const dataDir of dataDirs) {
    for (const withCheckpoint of [false, true]) {
      const r = await measure(dataDir, seconds, withCheckpoint);
      const label = `${dataDir}, ${withCheckpoint ? "beside checkpoint-like writes" : "alone"}`;
      console.info(
        `  ${label.padEnd(52)} ${r.commitsPerSecond.toFixed(0)} commits/s  p50 ${r.p50.toFixed(2)}  p99 ${r.p99.toFixed(2)}  max ${r.max.toFixed(2)}`,
      );
    }
  }
  return 0;
}

if (!isMainThread) await writeLikeACheckpoint(workerData.file);
