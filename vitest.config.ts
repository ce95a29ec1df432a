// Vitest configuration: four tiers, one folder each, run together by `npm test` or alone with `--project <name>`.
import { defineConfig } from 'vitest/config';

const shared = { setupFiles: ['test/support/cleanup.ts'] };

export default defineConfig({
  test: {
    exclude: ['test/fixtures/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time even on two cores (Vitest's default is one fewer than the cores): most of a file's time is
    // spent waiting on the servers, editors and endpoints it starts, so one file at a time leaves a core idle.
    maxWorkers: 2,
    globalSetup: ['test/support/cacheHome.ts'],
    projects: [
      // The code in-process, on real files; no child process (the setup fails a test that starts one).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: [...shared.setupFiles, 'test/support/noChildProcesses.ts'] } },
      // The code with the processes it drives: test runners, linters, the eval command, worker scripts.
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...shared } },
      // The built server as a child process over --stdio (or a socket), as an editor starts it.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], ...shared } },
      // Real editors (headless Neovim, Emacs, VS Code in code-server) driving the built server.
      { extends: true, test: { name: 'editors', include: ['test/editors/**/*.test.ts'], ...shared } },
    ],
  },
});
