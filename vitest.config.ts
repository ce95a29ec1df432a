// Vitest configuration: unit, in-process and end-to-end tiers run together; e2e spawns the built server.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default is one fewer than the cores): most of a file's time is
    // spent waiting on the servers, editors and endpoints it starts, so one file at a time leaves a core idle.
    maxWorkers: 2,
    setupFiles: ['test/support/cleanup.ts'],
    globalSetup: ['test/support/cacheHome.ts'],
  },
});
