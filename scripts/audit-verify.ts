// The body of `npm run audit:verify` (scripts/audit-verify.mjs): answers its exit status.
import fs from "node:fs";
import type { AuditChainCheck } from "~/services/audit-chain.server";
import { checkAuditTrail } from "~/services/audit.server";
import { getEnv } from "~/utils/env.server";
import { AUDIT_HEAD_FILE, AUDIT_KEY_FILE, keysPath } from "~/utils/keys.server";

/** What the operator reads on stderr for each way the chain fails (docs/audit.md). */
function explain(check: AuditChainCheck) {
  const id = check.firstBadId;
  switch (check.problem) {
    case "gap":
      return `event ${id} does not follow the one before it: the ids must be consecutive (an event was deleted or the ids renumbered)`;
    case "unkeyed":
      return `the newest event (${id}) is not signed with this installation's audit key (its signed events were removed, or the key is not the one that signed them)`;
    case "truncated":
      return `events from ${id} on are missing: the chain's published head (${keysPath(AUDIT_HEAD_FILE)}) is further on`;
    case "head":
      return `event ${id} is not the event the chain's published head (${keysPath(AUDIT_HEAD_FILE)}) names`;
    default:
      return `the chain breaks at event ${id}`;
  }
}

export async function verifyAuditTrail(): Promise<number> {
  const url = getEnv().DATABASE_URL;
  const file = url.startsWith("file:") ? url.slice("file:".length).split("?")[0]! : null;
  if (file && !fs.existsSync(file)) {
    console.error(`audit:verify: no database at ${file} (set DATA_DIR or DATABASE_URL)`);
    return 2;
  }
  try {
    const check = await checkAuditTrail();
    if (!check) {
      console.error(`audit:verify: no audit key here (AUDIT_KEY, or ${keysPath(AUDIT_KEY_FILE)}): the chain cannot be checked without the key that signed it`);
      return 2;
    }
    process.stdout.write(`${JSON.stringify({ data: { ok: check.ok, checked: check.checked, firstBadId: check.firstBadId } })}\n`);
    if (!check.ok) console.error(`audit:verify: ${explain(check)}`);
    return check.ok ? 0 : 1;
  } catch (error) {
    console.error(`audit:verify: could not read the audit trail: ${(error as Error).message}`);
    return 2;
  }
}
