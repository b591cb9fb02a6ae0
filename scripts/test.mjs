// `npm test`: typecheck, lint and the production build side by side, then
// the unit and integration tests (vitest), then the end-to-end suite
// (Playwright) against that build.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

const started = Date.now();
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const MOSQUITTO = "/usr/sbin/mosquitto";
// `promtool check metrics` checks GET /metrics (tests/e2e/metrics.spec.ts).
const PROMTOOL = "/usr/bin/promtool";

function ensureSystemPackages() {
  const missing = [
    [CHROMIUM, "chromium"],
    [MOSQUITTO, "mosquitto"],
    [PROMTOOL, "prometheus"],
  ].filter(([file]) => !fs.existsSync(file));
  if (missing.length === 0) return;
  const packages = missing.map(([, name]) => name);
  if (process.getuid?.() !== 0) {
    console.error(
      `Missing system packages: ${packages.join(", ")}.\nInstall them as root with:\n  apt-get update && apt-get install -y ${packages.join(" ")}`,
    );
    process.exit(1);
  }
  console.info(`[test] installing ${packages.join(", ")} with apt-get`);
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", ...packages], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

function step(name, command, args) {
  const stepStart = Date.now();
  console.info(`\n[test] ${name}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, VITE_CJS_IGNORE_WARNING: "true" } });
  if (result.status !== 0) {
    console.error(`[test] ${name} failed`);
    process.exit(result.status ?? 1);
  }
  console.info(`[test] ${name} done in ${((Date.now() - stepStart) / 1000).toFixed(1)} s`);
}

/** Runs steps side by side; fails if any fails. */
async function together(steps) {
  const results = await Promise.all(
    steps.map(([name, command, args]) => {
      const stepStart = Date.now();
      console.info(`\n[test] ${name}: ${command} ${args.join(" ")}`);
      const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, VITE_CJS_IGNORE_WARNING: "true" } });
      return new Promise((resolve) => {
        child.on("exit", (code) => {
          console.info(`[test] ${name} ${code === 0 ? "done" : "failed"} in ${((Date.now() - stepStart) / 1000).toFixed(1)} s`);
          resolve(code ?? 1);
        });
      });
    }),
  );
  const failed = results.find((code) => code !== 0);
  if (failed !== undefined) process.exit(failed);
}

const npx = "npx";
ensureSystemPackages();
// The typecheck (one tsc at a time), the lint (ESLint with the layer table's
// import boundaries, eslint.config.js) and the production build only read
// the sources: side by side. The build is made once, here; no test of
// `npm test` rebuilds it (the first start's build is `npm run test:system`).
await together([
  ["typecheck", "npm", ["run", "-s", "typecheck"]],
  ["lint", "npm", ["run", "-s", "lint"]],
  ["build", process.execPath, ["scripts/build.mjs"]],
]);
step("unit and integration", npx, ["vitest", "run", "--project", "unit", "--project", "integration"]);
step("end-to-end", npx, ["playwright", "test"]);
console.info(`\n[test] all passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
