import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  test: {
    // `npm test` runs unit and integration; `npm run test:system` runs system
    // (scenarios that rebuild build/ or run at volume).
    projects: [
      { extends: true, test: { name: "unit", include: ["app/**/*.test.{ts,tsx}", "bridge/src/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["tests/integration/**/*.test.ts"] } },
      { extends: true, test: { name: "system", include: ["tests/system/**/*.test.ts"] } },
    ],
    environment: "node",
    globalSetup: ["tests/setup/vitest-global.ts"],
    setupFiles: ["tests/setup/vitest-db.ts"],
    pool: "forks",
    // One test file per core (vitest's default leaves one core idle: 1 worker
    // on 2 cores), at least two: most files spend their time waiting on
    // brokers, child processes and sockets, not on the CPU.
    maxWorkers: Math.max(2, os.availableParallelism()),
    testTimeout: 20_000,
    silent: "passed-only",
    hookTimeout: 30_000,
  },
});
