// Text answers in the real VS Code (code-server 4.139.1 through headless Chromium): the answer as a document beside the code, its places in a quick pick that jumps.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { readInteractions } from '../support/traceFiles.js';
import { Workbench, assertAvailable, skipReason, skipVscode } from './harness/vscode.js';

if (skipVscode) console.warn(`vscodeAnswers.test.ts skipped: ${skipReason}`);

function lineOf(workspace: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(workspace, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe.skipIf(skipVscode)(`text answers in VS Code 1.139 (code-server)${skipReason ? ` — ${skipReason}` : ''}`, () => {
  let session: Workbench;
  let workspace: string;

  beforeAll(async () => {
    assertAvailable();
    workspace = copyFixture('question');
    session = await Workbench.start(workspace);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
  });

  /** The editor group the answer opened in, beside the code. */
  const answerEditor = () => session.page.locator('.editor-group-container').nth(1).locator('.monaco-editor .view-lines');
  const quickPick = () => session.page.locator('.quick-input-widget');

  it('"Assistant: Ask…" "where is the retry logic implemented?" opens the ranked places beside the code, and picking withRetry puts the cursor on it', async () => {
    const question = 'where is the retry logic implemented?';
    await session.step('open src/main.ts', () => session.open('main.ts', 'export async function main'));
    // The server starts with the editor; the command answers once it has.
    await session.step('ask the question', async () => {
      await session.runCommand('Assistant: Ask…');
      await quickPick().locator('.quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
      await session.page.keyboard.type(question);
      await session.page.keyboard.press('Enter');
    });
    await session.step('the answer and its places', async () => {
      // The whole answer as a markdown document in the group beside the code.
      await session.page.locator('.tabs-container').getByText('Question where is the retry logic implemented.md', { exact: false }).first().waitFor({ timeout: 60_000 });
      await answerEditor().getByText(`# Question: ${question}`, { exact: false }).first().waitFor({ timeout: 10_000 });
      await answerEditor().getByText('best first:', { exact: false }).first().waitFor({ timeout: 10_000 });
      // The places, in a quick pick titled by the answer.
      await quickPick().locator('.quick-input-title').getByText(/^Question: where is the retry logic implemented\?: \d+ places$/).waitFor({ timeout: 10_000 });
      await quickPick().locator('.quick-input-list').getByText('function withRetry', { exact: true }).first().waitFor({ timeout: 10_000 });
      expect(await quickPick().locator('.quick-input-list').getByText(/^src\/retry\.ts:\d+$/).count()).toBeGreaterThan(0);
      // Shown by the extension, which told the server: the trace records the answer as used.
      const used = (): boolean => readInteractions(workspace).find((i) => i.text === question)?.responses[0]?.used === true;
      const shownAt = Date.now();
      while (!used() && Date.now() - shownAt < 10_000) await session.page.waitForTimeout(100);
      expect(readInteractions(workspace).find((i) => i.text === question)?.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
    });
    await session.step('go to withRetry', async () => {
      await session.page.keyboard.type('withRetry');
      await session.page.keyboard.press('Enter');
      const line = lineOf(workspace, 'src/retry.ts', 'export async function withRetry');
      // The code opened in the code's group with the cursor on the name (columns count from 1).
      await session.page.locator('.statusbar').getByText(`Ln ${line}, Col ${'export async function '.length + 1}`, { exact: false }).first().waitFor({ timeout: 20_000 });
      await session.page.locator('.editor-group-container').nth(0).locator('.tab.active').getByText('retry.ts', { exact: true }).waitFor({ timeout: 10_000 });
      // And the answer is still open beside it.
      expect(await answerEditor().getByText(`# Question: ${question}`, { exact: false }).first().isVisible()).toBe(true);
    });
  }, 180_000);

  it('"Assistant: Ask…" "explain this function" with the cursor inside backoffDelay and nothing selected explains backoffDelay', async () => {
    await session.step('the cursor inside backoffDelay', () => session.goTo(`${lineOf(workspace, 'src/retry.ts', 'const exponential')}:10`));
    await session.step('ask', async () => {
      await session.runCommand('Assistant: Ask…');
      await quickPick().locator('.quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
      await session.page.keyboard.type('explain this function');
      await session.page.keyboard.press('Enter');
    });
    await session.step('the explanation', async () => {
      await answerEditor().getByText('# Explain: explain this function', { exact: false }).first().waitFor({ timeout: 60_000 });
      await answerEditor().getByText('**function `backoffDelay`** in `src/retry.ts`', { exact: false }).first().waitFor({ timeout: 10_000 });
      await quickPick().locator('.quick-input-list').getByText('function backoffDelay (explained)', { exact: true }).first().waitFor({ timeout: 10_000 });
      await session.page.keyboard.press('Escape');
    });
  }, 180_000);

  it('Explain from the code-action menu (Ctrl+.) opens the explanation beside the code', async () => {
    const line = lineOf(workspace, 'src/retry.ts', 'export async function withRetry');
    await session.step('the code action', () => session.runCodeAction(`${line}:25`, 'Assistant: Explain function withRetry'));
    await session.step('the explanation', async () => {
      await answerEditor().getByText('# Explain withRetry', { exact: false }).first().waitFor({ timeout: 60_000 });
      await answerEditor().getByText('**function `withRetry`** in `src/retry.ts`', { exact: false }).first().waitFor({ timeout: 10_000 });
      // Its places: the function itself, then the code it calls.
      await quickPick().locator('.quick-input-title').getByText(/^Explain withRetry: \d+ places?$/).waitFor({ timeout: 10_000 });
      await quickPick().locator('.quick-input-list').getByText('calls backoffDelay', { exact: true }).first().waitFor({ timeout: 10_000 });
      await session.page.keyboard.press('Escape');
      expect(await answerEditor().getByText('# Explain withRetry', { exact: false }).first().isVisible()).toBe(true);
    });
  }, 180_000);

  it('a question asked from the answers\' group opens its answer there, not in a third group, and its places in the code\'s', async () => {
    const question = 'where is the backoff delay computed?';
    await session.step('in the last answer, ask', async () => {
      await answerEditor().click();
      await session.page.locator('.editor-group-container').nth(1).locator('.monaco-editor.focused').waitFor({ timeout: 10_000 });
      await session.runCommand('Assistant: Ask…');
      await quickPick().locator('.quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
      await session.page.keyboard.type(question);
      await session.page.keyboard.press('Enter');
    });
    await session.step('the answer with the others', async () => {
      await answerEditor().getByText(`# Question: ${question}`, { exact: false }).first().waitFor({ timeout: 60_000 });
      expect(await session.page.locator('.editor-group-container').count()).toBe(2);
    });
    await session.step('its first place in the code\'s group', async () => {
      await quickPick().locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 10_000 });
      await session.page.keyboard.press('Enter');
      await session.page.locator('.editor-group-container').nth(0).locator('.tab.active').getByText('retry.ts', { exact: true }).waitFor({ timeout: 10_000 });
      expect(await session.page.locator('.editor-group-container').count()).toBe(2);
      expect(await answerEditor().getByText(`# Question: ${question}`, { exact: false }).first().isVisible()).toBe(true);
    });
  }, 180_000);

  it('the Assistant Trace view leads the question to the first place its answer cites, saying so, not to the file it was asked in', async () => {
    const question = 'where is the retry logic implemented?';
    const asked = readInteractions(workspace).find((i) => i.text === question)!;
    const cited = asked.responses[0]!.locations!;
    const first = cited[0]!;
    expect(path.basename(new URL(first.uri).pathname)).toBe('retry.ts');
    await session.step('back to the start of src/main.ts', async () => {
      await session.page.locator('.editor-group-container').nth(0).locator('.tab').filter({ hasText: 'main.ts' }).first().click();
      await session.page.locator('.editor-group-container').nth(0).locator('.tab.active').getByText('main.ts', { exact: true }).waitFor({ timeout: 10_000 });
      await session.goTo('1:1');
      await session.page.locator('.statusbar').getByText('Ln 1, Col 1', { exact: false }).first().waitFor({ timeout: 10_000 });
    });
    const item = session.page.locator('.pane-body .monaco-list-row').filter({ hasText: `question: ${question}` }).first();
    await session.step('the question in the trace view, saying what it leads to', async () => {
      await session.runCommand('Assistant: Show Trace');
      await item.waitFor({ timeout: 20_000 });
      await item.getByText(new RegExp(`^question-offline · used · cites ${first.label} \\+${cited.length - 1} · \\d\\d:\\d\\d$`)).waitFor({ timeout: 10_000 });
    });
    await session.step('selecting it opens the first cited place', async () => {
      await item.click();
      await session.page.locator('.editor-group-container .tab.active').getByText('retry.ts', { exact: true }).first().waitFor({ timeout: 20_000 });
      // The cited name selected, as the view opens every place: the cursor at its end.
      const { start, end } = first.range;
      expect(end.line).toBe(start.line);
      await session.page.locator('.statusbar').getByText(`Ln ${end.line + 1}, Col ${end.character + 1} (${end.character - start.character} selected)`, { exact: false }).first().waitFor({ timeout: 20_000 });
    });
  }, 180_000);

  it('typing with no model configured asks for no ghost text on purpose: no "No suggestion" notification', async () => {
    await session.step('type a line in src/retry.ts', async () => {
      await session.open('retry.ts', 'export async function withRetry');
      // VS Code asks the server only once it runs: its trace folder is there then.
      const started = Date.now();
      while (!fs.existsSync(path.join(workspace, '.assistant', 'trace')) && Date.now() - started < 60_000) await session.page.waitForTimeout(200);
      await session.page.waitForTimeout(1000);
      await session.goTo(`${lineOf(workspace, 'src/retry.ts', 'throw lastError')}:1`);
      await session.page.keyboard.press('End');
      await session.page.keyboard.press('Enter');
      await session.page.keyboard.type('const note = 1', { delay: 120 });
    });
    // VS Code asks for inline completions as the text changes; asked automatically, the server answers with nothing
    // and says nothing. The notification, when it came, came within a second of the last key.
    await session.page.waitForTimeout(3000);
    expect(await session.page.locator('.notifications-toasts').getByText('No suggestion', { exact: false }).count()).toBe(0);
  }, 120_000);
});
