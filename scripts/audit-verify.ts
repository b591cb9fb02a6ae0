// The body of `npm run audit:verify` (scripts/audit-verify.mjs): answers its exit status.
import fs from "node:fs";
import { verifyAuditChain } from "~/services/audit.server";
import { getEnv } from "~/utils/env.server";

export async function verifyAuditTrail(): Promise<number> {
  const url = getEnv().DATABASE_URL;
  const file = url.startsWith("file:") ? url.slice("file:".length).split("?")[0]! : null;
  if (file && !fs.existsSync(file)) {
    console.error(`audit:verify: no database at ${file} (set DATA_DIR or DATABASE_URL)`);
    return 2;
  }
  try {
    const result = await verifyAuditChain();
    process.stdout.write(`${JSON.stringify({ data: result })}\n`);
    if (!result.ok) console.error(`audit:verify: the chain breaks at event ${result.firstBadId}`);
    return result.ok ? 0 : 1;
  } catch (error) {
    console.error(`audit:verify: could not read the audit trail: ${(error as Error).message}`);
    return 2;
  }
}
