import { defineConfig } from "@playwright/test";
import { E2E } from "./tests/setup/e2e-env";

// End-to-end tests run the production build under remix-serve against its
// own migrated database, in Debian's Chromium (never a downloaded browser).
export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: E2E.baseURL,
    locale: "es-ES",
    timezoneId: "Europe/Madrid",
    // No trace: recording one for every test (to keep it on failure) cost a
    // sixth of the browser tests' CPU even without screenshots or DOM snapshots.
    // A failure still writes its page snapshot (error-context.md); to get a
    // trace, rerun the spec with `npx playwright test <spec> --trace on`.
    trace: "off",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "js", use: { javaScriptEnabled: true } },
    // axe-core runs as a script in the page, so the accessibility scan runs
    // in the JavaScript project; the no-JS markup is the same server render.
    // The fuzz, the JS budgets, the HTTP edge and the metrics speak HTTP without a page: once is enough.
    { name: "no-js", use: { javaScriptEnabled: false }, testIgnore: /(a11y|fuzz|js-budget|http-edge|metrics)\.spec\.ts/ },
  ],
  webServer: {
    command: "node tests/setup/e2e-server.mjs",
    url: `${E2E.baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: E2E.serverEnv,
    stdout: "ignore",
    stderr: "pipe",
  },
});
