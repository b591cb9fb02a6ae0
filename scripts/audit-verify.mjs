// `npm run audit:verify`: checks the audit trail's hash chain in the app's
// database (DATABASE_URL, else DATA_DIR/app.db; docs/audit.md) and prints
// {"data": {"ok", "checked", "firstBadId"}}, as GET /api/audit/verify does.
// The chain is keyed (AUDIT_KEY or KEYS_DIR/audit-key) and compared with the
// head published in KEYS_DIR/audit-head.json; stderr says how it failed.
// Exit status 0 when the chain holds, 1 when an event fails, 2 when it could
// not be checked (no database, not migrated, no key). Safe while the app runs.
import { runTs } from "./lib/run-ts.mjs";

const { verifyAuditTrail } = await runTs("scripts/audit-verify.ts");
process.exit(await verifyAuditTrail());
