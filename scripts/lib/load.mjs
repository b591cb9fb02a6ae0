// A small closed-loop load generator: `concurrency` clients each send their
// next request as soon as the previous answer arrives, until `total` are done
// (or `durationMs` has passed, or `signal` aborts: requests under way finish).
// Records every latency, so percentiles are exact.
import http from "node:http";

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function summarize(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (v) => (v === null ? null : Math.round(v * 100) / 100);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? null),
  };
}

/** makeRequest(i) → { path, method?, headers?, body? } */
export async function runLoad({ baseUrl, total = Infinity, durationMs = Infinity, signal, concurrency, makeRequest }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  const statuses = {};
  let next = 0;
  const started = performance.now();
  const more = () => next < total && performance.now() - started < durationMs && !signal?.aborted;
  async function client() {
    while (more()) {
      const i = next++;
      const { path, method = "GET", headers = {}, body } = makeRequest(i);
      const t0 = performance.now();
      const status = await new Promise((resolve, reject) => {
        const req = http.request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        });
        req.on("error", reject);
        if (body) req.write(body);
        req.end();
      });
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { ...summarize(latencies), statuses, requestsPerSecond: Math.round(latencies.length / seconds) };
}
