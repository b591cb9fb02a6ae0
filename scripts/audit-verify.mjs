// `npm run audit:verify`: checks the audit trail's hash chain in the app's
// database (DATABASE_URL, else DATA_DIR/app.db; docs/audit.md) and prints
// {"data": {"ok", "checked", "firstBadId"}}, as GET /api/audit/verify does.
// Exit status 0 when the chain holds, 1 when an event fails, 2 when it could
// not be checked (no database, not migrated). Safe while the app runs.
import { runTs } from "./lib/run-ts.mjs";

const { verifyAuditTrail } = await runTs("scripts/audit-verify.ts");
process.exit(await verifyAuditTrail());
