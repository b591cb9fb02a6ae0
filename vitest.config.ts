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
    testTimeout: 20_000,
    silent: "passed-only",
    hookTimeout: 30_000,
  },
});
