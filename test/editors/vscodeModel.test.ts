// A model agent beside the offline one, in the real VS Code (code-server): its failure named, its progress while it works, and the Cancel button.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { readInteractions as interactions, readSegment, segmentFiles } from '../support/traceFiles.js';
import { copyFixture } from '../support/lspClient.js';
import { Workbench, assertAvailable, skipReason, skipVscode } from './harness/vscode.js';

if (skipVscode) console.warn(`vscodeModel.test.ts skipped: ${skipReason}`);


describe.skipIf(skipVscode)(`a model agent in VS Code 1.139 (code-server)${skipReason ? ` — ${skipReason}` : ''}`, () => {
  let model: ScriptedModel;
  let vscode: Workbench;
  let file: string;

  beforeAll(async () => {
    assertAvailable();
    model = await startScriptedModel();
    vscode = await Workbench.start(copyFixture('basic'), { 'assistant.useEnvironment': false, 'assistant.agents': [scriptedAgent(model, 'gpt-4o-mini')] });
    file = path.join(vscode.workspace, 'src', 'config.ts');
    await vscode.step('open src/config.ts', () => vscode.open('config.ts', 'export function parseConfig'));
  }, 180_000);

  afterAll(async () => {
    await vscode?.close();
    await model?.close();
  });

  /** "Assistant: Ask…" with the request typed in, as a user does. */
  async function ask(request: string): Promise<void> {
    await vscode.runCommand('Assistant: Ask…');
    await vscode.page.locator('.quick-input-widget .quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
    await vscode.page.keyboard.type(request);
    await vscode.page.keyboard.press('Enter');
  }

  /** The toasts' text, each notification on its own. */
  function toasts(): Promise<string[]> {
    return vscode.page.locator('.notification-toast').allTextContents();
  }

  it('applies the offline answer beside a model that answers 401, showing the failure in the quick pick and a warning', async () => {
    model.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    await vscode.step('Ask… "write documentation for the load method"', async () => {
      await ask('write documentation for the load method');
      const list = vscode.page.locator('.quick-input-widget .quick-input-list');
      await list.getByText('doc-offline', { exact: true }).first().waitFor({ timeout: 30_000 });
      // The failed model is listed under "Failed"; accepting it applies nothing and leaves the list open.
      await list.getByText('Failed', { exact: true }).first().waitFor({ timeout: 5_000 });
      await list.getByText('gpt-4o-mini failed: the endpoint refused the API key (401)').first().waitFor({ timeout: 5_000 });
      await vscode.page.keyboard.press('ArrowDown');
      await vscode.page.keyboard.press('Enter');
      await vscode.page.waitForTimeout(500);
      expect(await list.getByText('doc-offline', { exact: true }).first().isVisible()).toBe(true);
      await vscode.page.keyboard.press('ArrowUp');
      await vscode.page.keyboard.press('Enter');
      const text = await vscode.savedText(file, (t) => /\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/.test(t));
      expect(text).toContain('@assistant task=document agent=doc-offline');
      await vscode.page.getByText('Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).', { exact: true }).first().waitFor({ timeout: 10_000 });
    });
  }, 120_000);

  it('shows "1 of 2 agents done" with the model’s seconds in the progress notification while it works', async () => {
    // About 5 s of streaming, long after the offline agent is done.
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 8, delayMs: 400 })));
    await vscode.step('Ask… "write documentation for parseConfig"', async () => {
      await ask('write documentation for parseConfig');
      const seen = new Set<string>();
      const started = Date.now();
      while (seen.size < 2 && Date.now() - started < 30_000) {
        for (const toast of await toasts()) {
          const match = /Assistant: write documentation for parseConfig.*?(1 of 2 agents done · gpt-4o-mini: (?:\d+ characters written, )?(\d+) s)/.exec(toast);
          if (match) seen.add(match[2]!);
        }
        await vscode.page.waitForTimeout(100);
      }
      // The same notification, its seconds moving on while the model streams.
      expect(seen.size).toBeGreaterThanOrEqual(2);
      // The answers arrive; Escape discards them, which the trace records.
      await vscode.page.locator('.quick-input-widget .quick-input-list').getByText('gpt-4o-mini', { exact: true }).first().waitFor({ timeout: 30_000 });
      await vscode.page.keyboard.press('Escape');
      const asked = interactions(vscode.workspace).find((i) => i.text === 'write documentation for parseConfig')!;
      const discards = (): number => segmentFiles(path.join(vscode.workspace, '.assistant', 'trace')).flatMap((f) => readSegment(f).amendments ?? []).filter((a) => a.interactionId === asked.id && a.patch.choiceDiscardedAt).length;
      const escaped = Date.now();
      while (discards() < 2 && Date.now() - escaped < 10_000) await vscode.page.waitForTimeout(100);
      expect(discards()).toBe(2);
    });
  }, 120_000);

  it('Cancel on the progress notification stops a hung model: its request closes within 500 ms, nothing is applied, the trace says cancelled', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'stall', afterHeaders: true })));
    const before = fs.readFileSync(file, 'utf8');
    const count = model.requests.length;
    await vscode.step('Ask… "write documentation for firstOf", then Cancel', async () => {
      await ask('write documentation for firstOf');
      // The task's request: the request says its task plainly, so it is classified offline.
      await model.waitForRequests(count + 1, 30_000);
      const toast = vscode.page.locator('.notification-toast').filter({ hasText: 'Assistant: write documentation for firstOf' });
      const cancel = toast.getByRole('button', { name: 'Cancel' });
      await cancel.waitFor({ timeout: 10_000 });
      const cancelledAt = await vscode.clickedAt(cancel);
      const closedAt = await model.waitForClose(count, 2_000);
      expect(closedAt - cancelledAt).toBeLessThan(500);
      await toast.waitFor({ state: 'hidden', timeout: 10_000 });
      // No picker, no edit: the file is as it was, saved or not.
      await vscode.page.waitForTimeout(500);
      expect(await vscode.page.locator('.quick-input-widget .quick-input-list').getByText('doc-offline', { exact: true }).first().isVisible()).toBe(false);
      expect(await vscode.savedText(file, (text) => text === before)).toBe(before);
    });
    const interaction = interactions(vscode.workspace).find((i) => i.text === 'write documentation for firstOf');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    expect(interaction!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'cancelled', used: false });
  }, 120_000);

  it('Cancel on the server’s progress notification stops a code action on a hung model', async () => {
    model.setDefault({ kind: 'stall', afterHeaders: true });
    const before = fs.readFileSync(file, 'utf8');
    const count = model.requests.length;
    await vscode.step('code action "Assistant: Document function greet", then Cancel', async () => {
      const line = before.split('\n').findIndex((l) => l.startsWith('export function greet')) + 1;
      await vscode.runCodeAction(`${line}:17`, 'Assistant: Document function greet');
      await model.waitForRequests(count + 1, 30_000);
      // vscode-languageclient shows the server's cancellable progress with a Cancel button, titled by the task's command.
      const toast = vscode.page.locator('.notification-toast').filter({ hasText: 'Assistant: document greet' });
      await toast.getByText(/1 of 2 agents done · gpt-4o-mini: \d+ s/).first().waitFor({ timeout: 10_000 });
      const cancel = toast.getByRole('button', { name: 'Cancel' });
      const cancelledAt = await vscode.clickedAt(cancel);
      const closedAt = await model.waitForClose(count, 2_000);
      expect(closedAt - cancelledAt).toBeLessThan(500);
      await toast.waitFor({ state: 'hidden', timeout: 10_000 });
      await vscode.page.waitForTimeout(500);
      expect(await vscode.savedText(file, (text) => text === before)).toBe(before);
      // The work ended as the user asked: no error toast ("Canceled") says otherwise.
      expect((await toasts()).filter((text) => /cancel/i.test(text))).toEqual([]);
    });
    const interaction = interactions(vscode.workspace).find((i) => i.source === 'command' && i.context.symbol === 'greet');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    expect(interaction!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'cancelled', used: false });
  }, 120_000);
});
