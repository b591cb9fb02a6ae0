// The access service in its own process, started and stopped by the web
// process (app/boot.server.ts, ACCESS_SERVICE=on): @libsql/client runs
// every query of a `file:` database synchronously on the calling thread, so a
// heavy admin query or a million-row export in the web process would delay
// every door's decision if both shared one event loop. Each process opens its
// own connection (WAL: the web reads while the service writes).
//
// The child is the same entry as `npm run start:access` (build/access.js,
// app/access/main.server.ts), forked with an IPC channel:
//   parent → child  {type: "start", options}   the service's options
//                   {type: "change", change}    a change notification (the handle's notifier),
//                                               applied to the service's door publisher
//                   {type: "metrics", id}           a scrape of GET /metrics: the child's series, please
//                   {type: "stop"}              graceful stop (swipes answered, broker closed)
//   child → parent  {type: "ready", mqttPort, mqttTlsPort}
//                   {type: "metrics", id, metrics}  its registry as JSON (utils/metrics.server.ts merges it)
// The child stops by itself when the channel closes (the web process died),
// and the parent starts a new child when one dies unexpectedly.
//
// The doors' decisions must not wait for the CPU behind a busy web side (an
// export, heavy admin pages): two things, neither needing privileges,
// give the access process the CPU first (docs/decisions/0004):
// - The child runs in a session of its own (`detached`). Where the kernel
//   groups processes by session to share the CPU (Linux's autogroup, on by
//   default on desktops and many servers), a session is one entity: the web
//   side's load is then charged to its own session, not to the doors', and a
//   swipe wakes the access process ahead of it. The child still stops when
//   the channel closes, whatever signal the web process got.
// - Once the first child runs, every thread of the web process lowers its
//   CPU priority (a higher nice value, always allowed): where the two
//   processes share one scheduling group (no autogroup, one cgroup), the
//   access process comes first. Raising the access process instead would need
//   CAP_SYS_NICE. On Linux the nice value is per thread (hence every thread,
//   from /proc/self/task) and a child inherits its parent thread's: a child
//   restarted after a crash runs at the web's priority, and only unprivileged
//   raises are impossible, so it cannot be given back (its own session
//   still puts it first).
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AccessChange } from "~/doors/contract";
import { metricsRegistry, type MetricsSnapshot } from "~/utils/metrics.server";
import { withTimeout } from "~/utils/timeout";
import { errorMessage } from "./mqtt.server";
import type { AccessNotifier } from "./notify.server";
import type { AccessServiceHandle, AccessServiceOptions } from "./service.server";

export type ParentMessage =
  | { type: "start"; options: AccessServiceOptions }
  | { type: "change"; change: AccessChange }
  | { type: "metrics"; id: number }
  | { type: "stop" };
export type ChildMessage =
  | { type: "ready"; mqttPort: number | null; mqttTlsPort: number | null }
  | { type: "metrics"; id: number; metrics: MetricsSnapshot };

export type AccessProcessOptions = {
  /** The bundled entry; default build/access.js (scripts/build.mjs writes it). */
  entry?: string;
  /** Passed to startAccessService in the child. */
  service?: AccessServiceOptions;
  /** How long the first start may take (migrations, broker, first connection). Default 60 s. */
  startTimeoutMs?: number;
};

export type AccessProcessHandle = {
  /** The embedded broker's ports (kept across restarts of the child); null on an external broker. */
  mqttPort: number | null;
  mqttTlsPort: number | null;
  /** The running child's pid (a new one after a restart). */
  pid(): number | undefined;
  /** Resolves once the current child (a restarted one included) is ready. */
  whenReady(): Promise<void>;
  /** Sends change notifications to the child over the channel (boot hands it to useAccessNotifier). */
  notifier: AccessNotifier;
  /** The child's metrics (its prom-client registry as JSON); rejects after 2 s without an answer. */
  metrics(): Promise<MetricsSnapshot>;
  stop(): Promise<void>;
};

const STOP_TIMEOUT_MS = 10_000;
const METRICS_TIMEOUT_MS = 2000;
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A child that ran this long before dying restarts after the shortest delay again. */
const STABLE_AFTER_MS = 60_000;
/** The web's main thread runs this much nicer than the access process (nice values, 0–19). */
export const WEB_PRIORITY_OFFSET = 5;

export function defaultAccessEntry() {
  return path.resolve("build", "access.js");
}

/** Forks the access service and resolves once it decides swipes. */
export async function startAccessProcess(options: AccessProcessOptions = {}): Promise<AccessProcessHandle> {
  const entry = options.entry ?? defaultAccessEntry();
  const serviceOptions: AccessServiceOptions = { ...options.service };
  let child: ChildProcess | null = null;
  let stopping = false;
  let restartDelay = RESTART_MIN_MS;
  let restartTimer: NodeJS.Timeout | null = null;
  let ready: Promise<void> = Promise.resolve();
  let metricsRequests = 0;
  /** Scrapes waiting for the child's answer, by request id. */
  const metricsWaiting = new Map<number, (metrics: MetricsSnapshot) => void>();
  const handle: AccessProcessHandle = {
    mqttPort: null,
    mqttTlsPort: null,
    pid: () => child?.pid,
    whenReady: () => ready,
    notifier: { notify: publishChange },
    metrics: readMetrics,
    stop,
  };

  function launch(): Promise<void> {
    const started = Date.now();
    const current = fork(entry, [], { stdio: ["ignore", "inherit", "inherit", "ipc"], serialization: "json", detached: true });
    child = current;
    current.on("message", (message: ChildMessage) => {
      if (message?.type === "metrics") metricsWaiting.get(message.id)?.(message.metrics);
    });
    ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: ChildMessage) => {
        if (message?.type !== "ready") return;
        current.off("exit", onEarlyExit);
        handle.mqttPort = message.mqttPort;
        handle.mqttTlsPort = message.mqttTlsPort;
        // A restarted child listens where the first one did (bridges know that port).
        if (message.mqttPort !== null) serviceOptions.port = message.mqttPort;
        if (message.mqttTlsPort !== null) serviceOptions.tlsPort = message.mqttTlsPort;
        resolve();
      };
      const onEarlyExit = (code: number | null, signal: string | null) =>
        reject(new Error(`the access service exited before it was ready (${signal ?? `code ${code}`})`));
      current.on("message", onMessage);
      current.once("exit", onEarlyExit);
    });
    current.once("exit", (code, signal) => {
      if (child === current) child = null;
      if (stopping) return;
      const ranFor = Date.now() - started;
      if (ranFor > STABLE_AFTER_MS) restartDelay = RESTART_MIN_MS;
      console.error(`[access] the access service process exited (${signal ?? `code ${code}`}); starting it again in ${restartDelay} ms`);
      restartTimer = setTimeout(() => {
        restartTimer = null;
        launch().catch((error: unknown) => console.error(`[access] restart failed: ${errorMessage(error)}`));
      }, restartDelay);
      restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
    });
    send(current, { type: "start", options: serviceOptions });
    return ready;
  }

  async function publishChange(change: AccessChange) {
    if (!child) throw new Error("the access service process is not running");
    await send(child, { type: "change", change });
  }

  async function readMetrics(): Promise<MetricsSnapshot> {
    if (!child) throw new Error("the access service process is not running");
    const id = ++metricsRequests;
    const answer = new Promise<MetricsSnapshot>((resolve) => metricsWaiting.set(id, resolve));
    try {
      await send(child, { type: "metrics", id });
      return await withTimeout(answer, METRICS_TIMEOUT_MS, "the access service's metrics");
    } finally {
      metricsWaiting.delete(id);
    }
  }

  async function stop() {
    if (stopping) return;
    stopping = true;
    if (restartTimer) clearTimeout(restartTimer);
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    await send(current, { type: "stop" }).catch(() => void current.kill("SIGTERM"));
    const timer = setTimeout(() => current.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  const timeoutMs = options.startTimeoutMs ?? 60_000;
  try {
    await withTimeout(launch(), timeoutMs, "the access service's start");
  } catch (error) {
    stopping = true;
    (child as ChildProcess | null)?.kill("SIGKILL");
    throw error;
  }
  giveWayToTheDoors();
  return handle;
}

const startingPriority = os.getPriority();

/** This process's threads (Linux); elsewhere the priority is the process's, set through the calling thread (0). */
function threadIds(): number[] {
  try {
    return fs.readdirSync("/proc/self/task").map(Number);
  } catch {
    return [0];
  }
}

function giveWayToTheDoors() {
  const lowered = Math.min(19, startingPriority + WEB_PRIORITY_OFFSET);
  for (const thread of threadIds()) {
    try {
      if (os.getPriority(thread) < lowered) os.setPriority(thread, lowered);
    } catch (error) {
      // A thread may end meanwhile (ESRCH); anything else is worth saying.
      if ((error as { info?: { code?: string } }).info?.code !== "ESRCH") {
        console.warn(`[access] could not lower the web process's priority: ${errorMessage(error)}`);
      }
    }
  }
}

function send(child: ChildProcess, message: ParentMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!child.connected) return reject(new Error("the access service process is not connected"));
    child.send(message, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * The child's side: waits for the parent's options, starts the service with
 * them, reports ready, applies change notifications, and stops on "stop" or
 * when the parent goes away. Returns once the service has stopped.
 */
export async function serveParent(start: (options: AccessServiceOptions) => Promise<AccessServiceHandle>) {
  const parent = process as NodeJS.Process & { send: NonNullable<NodeJS.Process["send"]> };
  const options = await new Promise<AccessServiceOptions>((resolve) => {
    const onStart = (message: ParentMessage) => {
      if (message?.type !== "start") return;
      process.off("message", onStart);
      resolve(message.options);
    };
    process.on("message", onStart);
  });
  const service = await start(options);
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= service.stop());
  process.on("message", (message: ParentMessage) => {
    if (message?.type === "change") void service.notifier.notify(message.change);
    else if (message?.type === "metrics") void sendMetrics(message.id);
    else if (message?.type === "stop") void stop().then(() => process.disconnect?.());
  });
  // The web process is gone (even by kill -9): finish what was received, then leave.
  process.once("disconnect", () => void stop());
  async function sendMetrics(id: number) {
    try {
      const answer: ChildMessage = { type: "metrics", id, metrics: await metricsRegistry.getMetricsAsJSON() };
      parent.send(answer);
    } catch (error) {
      console.warn(`[access] could not send the metrics: ${errorMessage(error)}`);
    }
  }
  const ready: ChildMessage = { type: "ready", mqttPort: service.mqttPort, mqttTlsPort: service.mqttTlsPort };
  parent.send(ready);
  await new Promise<void>((resolve) => process.once("disconnect", () => resolve()));
  await stop();
}
