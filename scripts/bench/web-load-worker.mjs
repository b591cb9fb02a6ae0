// The web side of `bench:access --scenario web|export`, in a worker thread so
// that its HTTP work (reading the export, 20 page clients) does not delay
// the main thread, which times the swipes' decisions.
//
// workerData: { rootPid, baseUrl, cookie, durationMs (null: until the exports
// are done), exportPath (null: no export), maxExports, pageClients, pages }
// Messages: → "ready" once sampling; ← "start"; → { export } after each
// export; → { done } with the phase's figures.
import { parentPort, workerData } from "node:worker_threads";
import { downloadCsv } from "../lib/export.mjs";
import { runLoad } from "../lib/load.mjs";
import { TreeMemorySampler } from "../lib/proc.mjs";

const { rootPid, baseUrl, cookie, durationMs, exportPath, maxExports = Infinity, pageClients = 0, pages = [] } = workerData;
const sampler = new TreeMemorySampler(rootPid, { intervalMs: 200 });
sampler.resetHighWater();
parentPort.postMessage("ready");
await new Promise((resolve) => parentPort.once("message", resolve));

const phaseStart = Date.now();
const stop = new AbortController();
if (durationMs !== null) setTimeout(() => stop.abort(), durationMs).unref();
// Each reading of the summed VmHWM covers the time since the previous reset.
const highWaters = [];

async function exportLoop() {
  const results = [];
  while (exportPath && results.length < maxExports && !stop.signal.aborted) {
    const started = Date.now();
    sampler.resetHighWater();
    const result = await downloadCsv(baseUrl + exportPath, { headers: { Cookie: cookie }, gzip: true, signal: stop.signal });
    const hwmSumMB = sampler.hwmSumMB();
    highWaters.push(hwmSumMB);
    const figures = { ...result, peakRssMB: sampler.peakBetween(started), hwmSumMB };
    results.push(figures);
    parentPort.postMessage({ export: figures });
    if (result.status !== 200) break; // no point hammering a failing export
  }
  return results;
}

async function pageLoop() {
  if (pageClients === 0 || pages.length === 0) return null;
  return runLoad({
    baseUrl,
    concurrency: pageClients,
    durationMs: durationMs ?? Infinity,
    signal: stop.signal,
    makeRequest: (i) => ({ path: pages[i % pages.length], headers: { Cookie: cookie, "Accept-Encoding": "gzip" } }),
  });
}

const [exports, pageLoads] = await Promise.all([exportLoop(), pageLoop()]);
if (durationMs !== null) await new Promise((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener("abort", resolve)));
highWaters.push(sampler.hwmSumMB());
sampler.stop();
parentPort.postMessage({
  done: {
    exports,
    pageLoads,
    server: { peakRssMB: sampler.peakBetween(phaseStart), hwmSumMB: Math.max(...highWaters), processes: sampler.breakdown() },
  },
});
