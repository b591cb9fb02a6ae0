// `npm run bench:bridge`: swipe-to-relay latency through the whole door chain
// (BENCH_ONLINE, BENCH_OFFLINE set the number of swipes).
import { runTs } from "./lib/run-ts.mjs";

await runTs("scripts/bench/bridge-chain.ts");
