// Prometheus metrics (prom-client), one registry per process. Each process
// defines its series on `metricsRegistry` where it measures them (the HTTP
// requests in http-metrics.server.ts, the door decisions in
// access/metrics.server.ts, the web's own in services/metrics.server.ts);
// boot names the process (the `process` label on every series: `web` or
// `access`) and adds Node's own series (memory, CPU, event loop lag, GC).
//
// GET /metrics answers from the web process. The access service runs in a
// child process (access/process.server.ts): on each scrape the web process
// asks it for its registry as JSON over the IPC channel (a source boot adds
// with addMetricsSource) and merges the two with prom-client's
// AggregatorRegistry.aggregate, the same merge prom-client does for cluster
// workers; the `process` label keeps each process's series apart.
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry, type MetricObjectWithValues, type MetricValue } from "prom-client";

export const metricsRegistry = new Registry();

/** A registry's series as getMetricsAsJSON() gives them: what a child process sends over its channel. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

export type ProcessName = "web" | "access";

let started = false;

/** Once per process, at its start: the `process` label and Node's own series. */
export function startProcessMetrics(name: ProcessName) {
  if (started) return;
  started = true;
  metricsRegistry.setDefaultLabels({ process: name });
  collectDefaultMetrics({ register: metricsRegistry });
  // Gauges named like counters, which `promtool check metrics` refuses; the
  // same counts by type stay (nodejs_active_handles, …_requests, …_resources).
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    metricsRegistry.removeSingleMetric(name);
  }
}

type MetricsSource = { name: ProcessName; read(): Promise<MetricsSnapshot> };
const sources: MetricsSource[] = [];
let sourceUp: Gauge | null = null;

/**
 * Another process's series, read on each scrape (boot adds the access
 * service's child). `metrics_source_up{source}` says whether it answered this scrape.
 */
export function addMetricsSource(name: ProcessName, read: () => Promise<MetricsSnapshot>) {
  sourceUp ??= new Gauge({
    name: "metrics_source_up",
    help: "1 when the process named by `source` answered this scrape with its series, else 0.",
    labelNames: ["source"],
    registers: [metricsRegistry],
  });
  sources.push({ name, read });
}

/** This process's series and those of its sources, in the Prometheus text format. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  const remote = await Promise.all(
    sources.map(async (source) => {
      try {
        const snapshot = await source.read();
        sourceUp?.set({ source: source.name }, 1);
        return snapshot;
      } catch (error) {
        sourceUp?.set({ source: source.name }, 0);
        console.warn(`[metrics] the ${source.name} process sent no metrics: ${error instanceof Error ? error.message : String(error)}`);
        return [];
      }
    }),
  );
  const own = await metricsRegistry.getMetricsAsJSON();
  const merged = AggregatorRegistry.aggregate([own, ...remote] as Parameters<typeof AggregatorRegistry.aggregate>[0]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
