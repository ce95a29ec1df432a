// The set-up most end-to-end suites share: a scripted model per test, and the editors and fixture copies it made, cleaned up after each test.
import fs from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
import { copyFixture, linkModules } from './lspClient.js';
import type { TestEditor } from './lspClient.js';
import { startScriptedModel } from './scriptedModel.js';
import type { ScriptedModel } from './scriptedModel.js';

export interface ScriptedSuite {
  /** This test's scripted OpenAI-compatible endpoint. */
  readonly model: ScriptedModel;
  /** Disposes of the editor after the test. */
  track(editor: TestEditor): TestEditor;
  /** A fresh copy of a fixture, removed after the test; `node_modules` linked in unless `link` is false. */
  workspace(fixture: string, options?: { link?: boolean }): string;
}

/** Registers the per-test set-up and clean-up in the calling suite. */
export function scriptedSuite(): ScriptedSuite {
  const editors: TestEditor[] = [];
  const roots: string[] = [];
  let model: ScriptedModel | undefined;
  beforeEach(async () => {
    model = await startScriptedModel();
  });
  afterEach(async () => {
    await Promise.all(editors.splice(0).map((e) => e.dispose()));
    await model?.close();
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });
  return {
    get model(): ScriptedModel {
      if (!model) throw new Error('the scripted model starts before each test');
      return model;
    },
    track(editor) {
      editors.push(editor);
      return editor;
    },
    workspace(fixture, options = {}) {
      const root = copyFixture(fixture);
      roots.push(root);
      if (options.link !== false) linkModules(root);
      return root;
    },
  };
}
