// Ghost text in the real VS Code (code-server): typing shows the model's suggestion, Tab accepts it, and the trace records the acceptance.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction } from '../../protocol/src/index.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { scriptedAgent } from '../support/scriptedAgents.js';
import { readInteractions as interactions } from '../support/traceFiles.js';
import { copyFixture } from '../support/lspClient.js';
import { Workbench, assertAvailable, skipReason, skipVscode } from './harness/vscode.js';

if (skipVscode) console.warn(`vscodeInline.test.ts skipped: ${skipReason}`);


describe.skipIf(skipVscode)(`inline completion in VS Code 1.139 (code-server)${skipReason ? ` — ${skipReason}` : ''}`, () => {
  let model: ScriptedModel;
  let vscode: Workbench;
  let file: string;

  beforeAll(async () => {
    assertAvailable();
    model = await startScriptedModel();
    const workspace = copyFixture('completion');
    file = path.join(workspace, 'src', 'main.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('reduce(ADD, 0)', 'reduce(, 0)'));
    vscode = await Workbench.start(workspace, {
      'assistant.useEnvironment': false,
      'assistant.agents': [scriptedAgent(model, 'scripted-coder')],
      'assistant.completion.debounceMs': 0,
      // TypeScript's own suggestion list would open as `s` is typed and take the Tab: this journey is the ghost text's.
      'editor.quickSuggestions': { other: false, comments: false, strings: false },
      'editor.suggestOnTriggerCharacters': false,
    });
    await vscode.step('open src/main.ts', () => vscode.open('main.ts', 'export function total'));
    // Typing before the server is up asks no one: the extension starts it when a TypeScript file opens, and VS Code
    // asks for inline completions only as the text changes. The trace folder is there once the server started.
    await vscode.step('the server started', async () => {
      const started = Date.now();
      while (!fs.existsSync(path.join(workspace, '.assistant', 'trace')) && Date.now() - started < 60_000) await vscode.page.waitForTimeout(200);
      await vscode.page.waitForTimeout(1000);
    });
  }, 180_000);

  afterAll(async () => {
    await vscode?.close();
    await model?.close();
  });

  it('shows the suggestion as ghost text as you type; Tab inserts it and the trace records a complete interaction', async () => {
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v' });
    const page = vscode.page;
    await vscode.step('type `s` after `reduce(`', async () => {
      // Line 12: `  return values.reduce(, 0);`, the cursor after the parenthesis.
      await vscode.goTo('12:24');
      await page.keyboard.type('s');
      const ghost = page.locator('.monaco-editor .ghost-text-decoration');
      await ghost.first().waitFor({ state: 'visible', timeout: 30_000 });
      // Monaco draws spaces as no-break spaces.
      expect((await ghost.allTextContents()).join('').replace(/\u00a0/g, ' ')).toBe('um, v) => sum + v');
    });
    await vscode.step('Tab accepts it', async () => {
      // VS Code asks again once the text changed; the scripted model would offer the same text after it, a new ghost.
      model.setDefault({ kind: 'text', content: '' });
      await page.keyboard.press('Tab');
      await page.locator('.monaco-editor .ghost-text-decoration').first().waitFor({ state: 'detached', timeout: 10_000 });
      const text = await vscode.savedText(file, (t) => t.includes('reduce(sum, v) => sum + v, 0);'));
      expect(text).toContain('  return values.reduce(sum, v) => sum + v, 0);\n');
    });
    await vscode.step('the trace records the acceptance', async () => {
      const started = Date.now();
      let completions: Interaction[] = [];
      while (completions.length === 0 && Date.now() - started < 10_000) {
        completions = interactions(vscode.workspace).filter((i) => i.task === 'complete');
        if (completions.length === 0) await page.waitForTimeout(200);
      }
      expect(completions).toHaveLength(1);
      expect(completions[0]!.completion).toEqual({ offered: 'um, v) => sum + v', partial: false, mode: 'fim' });
      expect(completions[0]!.responses[0]).toMatchObject({ used: true, text: 'um, v) => sum + v', insertedAt: [{ range: { start: { line: 11, character: 24 }, end: { line: 11, character: 41 } } }] });
    });
    expect(model.requests.map((r) => r.path)).toContain('/v1/completions');
  }, 120_000);
});
