import { defineConfig } from 'vitest/config';

// Bridge-only runs: `npx vitest run --root bridge`. From the repo root,
// `npx vitest run bridge` uses the root config, which includes these tests too.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
