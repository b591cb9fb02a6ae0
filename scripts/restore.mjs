// `npm run restore -- <archive>`: puts a backup archive back (scripts/restore.ts).
import { runTs } from "./lib/run-ts.mjs";

await runTs("scripts/restore.ts");
