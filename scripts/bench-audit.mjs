#!/usr/bin/env node
// `npm run bench:audit`: what the audit trail costs (docs/audit.md). On a
// scratch database with a trail of --events events it measures, one at a time
// after a warm-up, an admin change (a card's alias, a door's name) raw (the
// read and the autocommit update the services made before the trail) and
// through the service (the same in one IMMEDIATE transaction with its event):
// p50 and p95 in ms. Then it swipes cards through the real access service and
// its embedded broker and counts the audit events the swipes wrote (none
// expected: swipes are the access log).
//
//   node scripts/bench-audit.mjs [--requests=300] [--warmup=20] [--events=50000] [--swipes=200]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runTs } from "./lib/run-ts.mjs";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    warmup: { type: "string", default: "20" },
    events: { type: "string", default: "50000" },
    swipes: { type: "string", default: "200" },
  },
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-audit-"));
Object.assign(process.env, {
  NODE_ENV: "production",
  DATA_DIR: dir,
  DATABASE_URL: `file:${path.join(dir, "app.db")}`,
  SESSION_SECRET: "bench-audit-session-secret-0123456789",
});
delete process.env.MQTT_URL;
try {
  const { benchAudit } = await runTs("scripts/bench-audit.ts");
  const result = await benchAudit({
    requests: Number(args.requests),
    warmup: Number(args.warmup),
    events: Number(args.events),
    swipes: Number(args.swipes),
  });
  console.info(JSON.stringify(result, null, 2));
  process.exit(0);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
