// The build a newcomer's first `npm start` runs prints only its result. It
// rebuilds build/, so it belongs to `npm run test:system`, never to `npm test`
// (which builds once, beside the typecheck).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { expect, it } from "vitest";

it(
  "the build a first start runs prints only its result: no Rollup warnings, no list of files",
  () => {
    // scripts/start.mjs runs exactly this when there is no build.
    expect(fs.readFileSync("scripts/start.mjs", "utf8")).toContain('["scripts/build.mjs", "--quiet"]');
    // As a newcomer runs it: no NODE_ENV (vitest's "test" would make development bundles).
    const env = { ...process.env };
    Reflect.deleteProperty(env, "NODE_ENV");
    const output = execFileSync(process.execPath, ["scripts/build.mjs", "--quiet"], { encoding: "utf8", env, stdio: ["ignore", "pipe", "pipe"] });
    expect(output.trim().split("\n")).toEqual([
      "[build] web app -> build/server/index.js (browser files in build/client/)",
      "[build] access service -> build/access.js",
    ]);
  },
  180_000,
);
