// Vitest configuration of the real-model suites (`npm run test:model`): one file at a time, since each keeps both cores busy generating.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/model/**/*.test.ts'],
    // Past the agents' budget (80 s) plus the type-check a Fix waits for, on a busy machine.
    testTimeout: 240_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    setupFiles: ['test/support/cleanup.ts'],
    globalSetup: ['test/support/cacheHome.ts'],
  },
});
