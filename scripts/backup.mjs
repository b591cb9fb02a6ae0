// `npm run backup`: one backup archive now (scripts/backup.ts).
import { runTs } from "./lib/run-ts.mjs";

await runTs("scripts/backup.ts");
