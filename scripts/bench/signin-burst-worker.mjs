// The sign-in bursts of `bench:access --scenario signin`, in a worker thread
// so that their HTTP work does not delay the main thread, which times the
// swipes' decisions. Each burst is `size` POST /login with a wrong password,
// all sent at once from one address (X-Forwarded-For; the benchmark's server
// trusts one proxy) for one unknown username: what one attacker sends. The
// bursts run back to back, each from its own address and for its own
// username, so each meets the sign-in limits afresh.
//
// workerData: { baseUrl, bursts, size }
// Messages: → "ready"; ← "start"; → { done: { bursts: [{ seconds, statuses, p50, p99, max }] } }.
import { parentPort, workerData } from "node:worker_threads";
import { runLoad } from "../lib/load.mjs";

const { baseUrl, bursts, size } = workerData;
parentPort.postMessage("ready");
await new Promise((resolve) => parentPort.once("message", resolve)); // "start"

const results = [];
for (let burst = 0; burst < bursts; burst++) {
  const started = performance.now();
  const body = new URLSearchParams({ username: `bench-intruso-${burst + 1}`, password: "not-the-password" }).toString();
  const load = await runLoad({
    baseUrl,
    total: size,
    concurrency: size,
    makeRequest: () => ({
      path: "/login",
      method: "POST",
      headers: {
        Origin: baseUrl,
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Forwarded-For": `10.77.${burst + 1}.1`,
      },
      body,
    }),
  });
  results.push({ seconds: Math.round((performance.now() - started) / 100) / 10, statuses: load.statuses, p50: load.p50, p99: load.p99, max: load.max });
}
parentPort.postMessage({ done: { bursts: results } });
