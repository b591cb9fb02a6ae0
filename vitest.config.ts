import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  test: {
    include: ["app/**/*.test.{ts,tsx}", "tests/integration/**/*.test.ts", "bridge/src/**/*.test.ts"],
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
