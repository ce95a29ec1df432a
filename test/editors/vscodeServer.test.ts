// The extension in the real VS Code: code-server 4.139.1 (VS Code 1.139) driven through headless Chromium, with the packaged .vsix installed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, until } from '../support/lspClient.js';
import { Workbench, assertAvailable, skipReason, skipVscode } from './harness/vscode.js';
import type { Page } from './harness/vscode.js';

if (skipVscode) console.warn(`vscodeServer.test.ts skipped: ${skipReason}`);

describe.skipIf(skipVscode)(`the extension in VS Code 1.139 (code-server)${skipReason ? ` — ${skipReason}` : ''}`, () => {
  let vscode: Workbench;
  let page: Page;
  let workspace: string;

  beforeAll(async () => {
    assertAvailable();
    vscode = await Workbench.start(copyFixture('basic'));
    page = vscode.page;
    workspace = vscode.workspace;
  }, 180_000);

  afterAll(async () => {
    if (vscode && process.env.ASSISTANT_VSCODE_E2E_SCREENSHOT) await vscode.page.screenshot({ path: process.env.ASSISTANT_VSCODE_E2E_SCREENSHOT }).catch(() => undefined);
    await vscode?.close();
    // The start-up phases and each step, for whoever watches the journey's cost.
    console.info(`vscodeServer.test.ts timings (ms): ${JSON.stringify(vscode?.timings ?? {})}`);
  });

  it('documents parseConfig through the code action and the load method through "Assistant: Ask…", rates and reverts, and shows the trace', async () => {
    const file = path.join(workspace, 'src', 'config.ts');

    await vscode.step('open src/config.ts', () => vscode.open('config.ts', 'export function parseConfig'));

    // The server starts with the editor: retry until its code action is offered.
    await vscode.step('code action "Assistant: Document function parseConfig"', async () => {
      await vscode.runCodeAction('10:17', 'Assistant: Document function parseConfig', 60_000);
      // The first task of a cold server waits for the workspace's first index walk and first program: under the
      // whole suite's load that has taken over 30 s once (its progress still in the status bar).
      const text = await vscode.savedText(file, (t) => t.includes('@param text'), 90_000);
      // The annotation is a line comment between the doc comment and the code.
      expect(text).toMatch(/\*\/\n\/\/ @assistant task=document agent=doc-offline [^\n]*\nexport function parseConfig/);
    });

    await vscode.step('Assistant: Ask… "write documentation for the load method"', async () => {
      await vscode.runCommand('Assistant: Ask…');
      await page.locator('.quick-input-widget .quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
      await page.keyboard.type('write documentation for the load method');
      await page.keyboard.press('Enter');
      // The candidates: one per agent, the offline one here.
      await page.locator('.quick-input-widget .quick-input-list').getByText('doc-offline', { exact: true }).first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      const text = await vscode.savedText(file, (t) => /\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/.test(t));
      expect(text.match(/@assistant task=document/g)).toHaveLength(2);
    });

    await vscode.step('rate, then revert, the load method at the cursor', async () => {
      const line = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('async load()')) + 1;
      await vscode.goTo(`${line}:5`);
      await vscode.runCommand('Assistant: Rate the Code at the Cursor');
      // The picker follows a trace query at the cursor, which waits for the records written before it: under the
      // whole suite's load on two cores that has taken over 10 s once.
      await page.locator('.quick-input-widget .quick-input-title').getByText('Rate document ConfigStore.load · doc-offline', { exact: true }).waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter'); // Up, the first choice
      await page.locator('.quick-input-widget .quick-input-message').getByText('Why? (optional; Enter to skip)', { exact: false }).waitFor({ timeout: 10_000 });
      await page.keyboard.type('clear enough');
      await page.keyboard.press('Enter');
      await page.getByText('Assistant: rated up.', { exact: true }).first().waitFor({ timeout: 10_000 });

      await vscode.runCommand('Assistant: Revert the Code at the Cursor');
      const text = await vscode.savedText(file, (t) => t.includes('constructor(private readonly path: string) {}\n\n  async load()'));
      expect(text.match(/@assistant task=document/g)).toHaveLength(1);
      expect(text).toContain('@param text');
    });

    await vscode.step('the trace view lists both interactions', async () => {
      await vscode.runCommand('Assistant: Show Trace');
      const view = page.locator('.pane-body');
      await view.getByText('document ConfigStore.load', { exact: true }).first().waitFor({ timeout: 20_000 });
      await view.getByText('document parseConfig', { exact: true }).first().waitFor({ timeout: 20_000 });
      expect(await view.getByText(/^doc-offline · reverted · /).first().isVisible()).toBe(true);
    });
  }, 240_000);

  it('"Assistant: Restart the Server" says it restarts, logs no error for the old server\'s normal exit, and the new one documents code', async () => {
    await vscode.step('restart', () => vscode.runCommand('Assistant: Restart the Server'));
    await vscode.step('the output says so, with no error', async () => {
      await until(() => vscode.serverOutput().includes('A server process exited normally (code 0).'), 20_000, 'the old server\'s exit in the output');
      const output = vscode.serverOutput();
      expect(output).toContain('Restarting: the running server stops, and a new one starts.');
      expect(output.match(/^Starting assistant-ls /gm)).toHaveLength(2);
      expect(output).not.toMatch(/^\[Error/m);
    });
    await vscode.step('the new server documents greet', async () => {
      const file = path.join(workspace, 'src', 'config.ts');
      const line = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('export function greet')) + 1;
      // The menu is opened again until the new server, once up, offers the action.
      await vscode.runCodeAction(`${line}:17`, 'Assistant: Document function greet', 60_000);
      // Its doc comment goes above the author's line comment on greet, which it takes as the summary.
      await vscode.savedText(file, (t) => /\*\/\n\/\/ @assistant task=document [^\n]*\n\/\/ Emoji[^\n]*\nexport function greet/.test(t), 60_000);
    });
  }, 180_000);
});
