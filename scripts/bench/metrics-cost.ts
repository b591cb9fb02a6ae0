// `npm run bench:access -- --scenario metrics`: the CPU time the metrics add
// to each door decision (countDecision, app/access/metrics.server.ts: a
// histogram observe and a counter increment), beside a cost the same path
// already pays, the JSON.stringify of the decision message. CPU time
// (process.cpuUsage) rather than wall time, so a busy machine's other
// processes do not count.
import { countDecision } from "~/access/metrics.server";
import type { DecisionMessage } from "~/doors/contract";

const CALLS = 300_000;
const message: DecisionMessage = {
  id: "8c6f4a1e-3d0b-4c52-9a57-0e3f1b7d2c11",
  granted: true,
  reason: "granted",
  display: { line1: "Hola, Olga", line2: "Adelante" },
  unlockMs: 3000,
};

function cpuNsPerCall(work: (i: number) => unknown) {
  for (let i = 0; i < CALLS / 5; i++) work(i);
  const start = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) work(i);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / CALLS;
}

console.info(`[bench] CPU time per door decision, ${CALLS} calls a round`);
for (let round = 1; round <= 3; round++) {
  const metrics = cpuNsPerCall((i) => countDecision(i % 3 !== 0, i % 2 ? "granted" : "unknown_card", performance.now() - 0.4));
  const json = cpuNsPerCall(() => JSON.stringify(message));
  console.info(`  round ${round}: metrics (observe + increment) ${metrics.toFixed(0)} ns, JSON.stringify of the decision ${json.toFixed(0)} ns`);
}
