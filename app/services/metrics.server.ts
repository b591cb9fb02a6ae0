// The web process's own series for GET /metrics beside the HTTP requests
// (utils/http-metrics.server.ts): sign-in failures, the backups and the
// database's size, read when scraped. The access service's series come from
// its process (utils/metrics.server.ts merges them). docs/metrics.md lists
// every series.
import fs from "node:fs/promises";
import { Counter, Gauge } from "prom-client";
import { metricsRegistry, scrapeMetrics } from "~/utils/metrics.server";
import { backupStatus, databaseFile } from "./backups.server";

export type SignInFailureReason = "bad_credentials" | "inactive" | "rate_limited";

const signInFailures = new Counter({
  name: "sign_in_failures_total",
  help: "Sign-ins refused (page and API), by reason: bad_credentials, inactive (the account is not active), rate_limited (too many failures, or too many sign-ins at once).",
  labelNames: ["reason"],
  registers: [metricsRegistry],
});

// Every reason is there from the start (at 0), so a rate over it has a beginning.
for (const reason of ["bad_credentials", "inactive", "rate_limited"] satisfies SignInFailureReason[]) signInFailures.inc({ reason }, 0);

export function countSignInFailure(reason: SignInFailureReason) {
  signInFailures.inc({ reason });
}

const seconds = (date: Date | null) => (date ? date.getTime() / 1000 : 0);

let backups: Promise<Awaited<ReturnType<typeof backupStatus>>> | null = null;

/** One reading of the backups folder serves the three gauges of a scrape. */
function readBackupStatus() {
  backups ??= backupStatus().finally(() => setImmediate(() => (backups = null)));
  return backups;
}

new Gauge({
  name: "backup_last_success_timestamp_seconds",
  help: "When the newest backup archive was made (Unix time); 0 when there is none.",
  registers: [metricsRegistry],
  async collect() {
    this.set(seconds((await readBackupStatus()).lastSuccessAt));
  },
});

new Gauge({
  name: "backup_last_size_bytes",
  help: "Size of the newest backup archive; 0 when there is none.",
  registers: [metricsRegistry],
  async collect() {
    this.set((await readBackupStatus()).lastSuccessSizeBytes ?? 0);
  },
});

new Gauge({
  name: "backup_last_failure_timestamp_seconds",
  help: "When a backup last failed (Unix time); 0 when none has.",
  registers: [metricsRegistry],
  async collect() {
    this.set(seconds((await readBackupStatus()).lastFailureAt));
  },
});

async function fileSize(file: string) {
  return (await fs.stat(file).catch(() => null))?.size ?? 0;
}

new Gauge({
  name: "database_size_bytes",
  help: "Size on disk of the SQLite database, by file: main (app.db) and wal (its write-ahead log). Absent for a remote database.",
  labelNames: ["file"],
  registers: [metricsRegistry],
  async collect() {
    const file = databaseFile();
    if (!file) return;
    const [main, wal] = await Promise.all([fileSize(file), fileSize(`${file}-wal`)]);
    this.set({ file: "main" }, main);
    this.set({ file: "wal" }, wal);
  },
});

/** What GET /metrics answers: both processes' series in the Prometheus text format. */
export function readMetrics() {
  return scrapeMetrics();
}
