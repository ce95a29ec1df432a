// The project's own ESLint for one workspace, loaded once and kept while its configuration stays as it was.
import fs from 'node:fs';
import path from 'node:path';
import { EslintRunner } from '../eval/eslintRunner.js';
import type { FileEvent } from './workspaceFiles.js';

/** The files a loaded configuration depends on at the root; a change to one loads ESLint again. */
const CONFIG_NAMES = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts', '.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.json', '.eslintrc.yaml', '.eslintrc.yml', 'package.json'];

/**
 * A workspace's ESLint (its `Workspace.eslint`): loading one runs its configuration's code and may build a TypeScript
 * program, so the runner is kept, and used again while the configuration files' times are those it was loaded at and
 * no file event named one of them.
 */
export class WorkspaceEslint {
  private loaded: { stamp: string; runner: EslintRunner } | undefined;

  constructor(private readonly root: string) {}

  /** The runner, or why ESLint cannot run here (no configuration at the root, or ESLint missing or failing to load). */
  async runner(): Promise<{ runner: EslintRunner } | { unavailable: string }> {
    const stamp = this.configStamp();
    if (this.loaded?.stamp === stamp) return { runner: this.loaded.runner };
    this.loaded = undefined;
    const loaded = await EslintRunner.load(this.root);
    if (!loaded) return { unavailable: 'the workspace has no ESLint configuration (eslint.config.js or .eslintrc) at its root' };
    if ('unavailable' in loaded) return loaded;
    this.loaded = { stamp, runner: loaded };
    return { runner: loaded };
  }

  /** A configuration file came, changed or went: the next lint loads ESLint again. */
  filesChanged(events: readonly FileEvent[]): void {
    if (events.some((event) => path.dirname(event.fsPath) === this.root && CONFIG_NAMES.includes(path.basename(event.fsPath)))) this.loaded = undefined;
  }

  /** What a loaded configuration depends on: the configuration files and package.json, by modification time. */
  private configStamp(): string {
    return CONFIG_NAMES.map((name) => {
      try {
        return `${name}:${fs.statSync(path.join(this.root, name)).mtimeMs}`;
      } catch {
        return '';
      }
    }).join('|');
  }
}
