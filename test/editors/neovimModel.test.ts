// A model agent beside the offline one, in headless Neovim: its failure named, its progress while it works, and :AssistantCancel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, expectModelAtWork, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { ERROR, INFO, WARN, hasNvim, lua, readInteractions, removeQuietly, runScenario, skipNvim, skipReason } from './harness/neovim.js';

let model: ScriptedModel;
const cleanups: string[] = [];
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  await model.close();
  for (const dir of cleanups.splice(0)) removeQuietly(dir);
});

/** setup() with the scripted endpoint as the model agent `gpt-4o-mini` beside the offline agents. */
function setupWithModel(extra = ''): string {
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  return `{ settings = { useEnvironment = false, agents = { { name = ${lua(agent.name!)}, baseURL = ${lua(agent.baseURL!)}, apiKey = 'sk-test', model = 'gpt-4o-mini', tasks = { 'document' } } }${extra} } }`;
}

/** A file the scenario waits for, written once the model has `count` requests. */
function markWhenAsked(count = 1): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-nvim-mark-'));
  cleanups.push(dir);
  const file = path.join(dir, 'asked');
  void model.waitForRequests(count, 20_000).then(
    () => fs.writeFileSync(file, ''),
    () => undefined,
  );
  return file;
}

/** The doc comment, then the annotation line below it, right above the method. */
const DOCUMENTED_LOAD = /\/\*\*\n(?: {3}\*[^\n]*\n)* {3}\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\): Promise<Config> \{/;

describe.skipIf(skipNvim)(`a model agent in Neovim${skipReason}`, () => {
  it('has nvim (CI installs it)', () => {
    expect(hasNvim).toBe(true);
  });

  it('applies the offline answer from the code-action menu and warns that the model refused the key (401); :AssistantAsk names it in the picker', async () => {
    model.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const { result } = await runScenario(
      `
    T.cursor_on('async load')
    T.pick('Document')
    vim.lsp.buf.code_action()
    T.wait('the doc comment', function() return T.text():find('%*/\\n  // @assistant [^\\n]*\\n  async load%(') ~= nil end)
    T.wait_notified('gpt%-4o%-mini failed')
    T.cursor_on('export function parseConfig')
    T.pick('doc-offline')
    vim.cmd('AssistantAsk write documentation for parseConfig')
    T.wait('the second doc comment', function() return T.text():find('%*/\\n// @assistant [^\\n]*\\nexport function parseConfig') ~= nil end)
    T.wait_notified('gpt%-4o%-mini failed', 2)
`,
      { setup: setupWithModel() },
    );
    expect(result.text).toMatch(DOCUMENTED_LOAD);
    expect(result.text).toMatch(/@assistant task=document agent=doc-offline/);
    const warning = 'assistant-ls: Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).';
    // Once after the code action's edit, once after the ask's.
    expect(result.notifications.filter((n) => n.message === warning)).toEqual([
      { message: warning, level: WARN },
      { message: warning, level: WARN },
    ]);
    // The failed model is named in the picker's prompt and is not one of its choices.
    const ask = result.selects.at(-1)!;
    expect(ask.prompt).toBe('Assistant document: apply which candidate? (gpt-4o-mini failed: the endpoint refused the API key (401))');
    expect(ask.labels).toEqual([expect.stringMatching(/^doc-offline: /), 'Discard']);
    expect(result.notifications.filter((n) => n.level >= ERROR)).toEqual([]);
  });

  it(':AssistantDocument leaves the warning that the model failed on screen rather than a plain "applied"', async () => {
    model.setDefault({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    const { result } = await runScenario(
      `
    T.cursor_on('export function parseConfig')
    vim.cmd('AssistantDocument')
    T.wait('the doc comment', function() return T.text():find('%*/\\n// @assistant [^\\n]*\\nexport function parseConfig') ~= nil end)
    T.wait_notified('gpt%-4o%-mini failed')
    vim.wait(1000)
`,
      { setup: setupWithModel() },
    );
    const warning = 'assistant-ls: Used the answer of doc-offline; gpt-4o-mini failed: the endpoint refused the API key (401).';
    expect(result.notifications.at(-1), JSON.stringify(result.notifications)).toEqual({ message: warning, level: WARN });
    expect(result.notifications.map((n) => n.message)).not.toContain('assistant-ls: applied');
  });

  it('asks which of two answers to a code action with the server’s message as it is: no stray colon after the last summary', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC })));
    const { result } = await runScenario(
      `
    T.cursor_on('async load')
    -- The code-action menu, then the server's question (0.10+: vim.ui.select; before: Neovim's inputlist()).
    vim.ui.select = function(items, opts, on_choice)
      local record = { prompt = tostring(opts.prompt), labels = {} }
      table.insert(R.selects, record)
      local chosen
      for _, item in ipairs(items) do
        local label = opts.format_item and opts.format_item(item) or tostring(item)
        table.insert(record.labels, label)
        if not chosen and (label:find('Document', 1, true) or label == 'Use gpt-4o-mini') then chosen = item end
      end
      on_choice(chosen)
    end
    vim.fn.inputlist = function(lines)
      R.data.inputlist = lines
      return 2
    end
    vim.lsp.buf.code_action()
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
`,
      { setup: setupWithModel() },
    );
    expect(result.text).toMatch(DOCUMENTED_LOAD);
    const newer = !result.version.startsWith('0.7.');
    const question = newer ? result.selects[1] : { prompt: (result.data.inputlist as string[])[0]!, labels: (result.data.inputlist as string[]).slice(2).map((line) => line.replace(/^\d+\. /, '')) };
    expect(question?.prompt.split('\n')).toEqual(['2 answers for ConfigStore.load:', expect.stringMatching(/^1\. doc-offline: \w/), '2. gpt-4o-mini: Loads the configuration from disk once and caches it.']);
    expect(question?.labels).toEqual(['Use doc-offline', 'Use gpt-4o-mini', 'Discard']);
    expect(result.selects).toHaveLength(newer ? 2 : 1);
  });

  it('shows "1 of 2 agents done" with the model’s seconds while it works, and how to cancel', async () => {
    // About 8 s of streaming, long after the offline agent is done even on a busy machine.
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 4, delayMs: 350 })));
    const { result } = await runScenario(
      `
    -- A terminal wide enough for the whole line.
    vim.o.columns = 200
    T.cursor_on('async load')
    T.pick('gpt-4o-mini')
    vim.cmd('AssistantAsk write documentation for the load method')
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
`,
      { setup: setupWithModel() },
    );
    // The model's seconds go on while it works, and what it has written, each line saying how to stop it; no
    // percentage, which half the agents done would hold at one figure for the whole of the model's answer.
    expectModelAtWork(result.progress, /^Assistant: ask: 1 of 2 agents done · gpt-4o-mini: (?:(\d+) characters written, )?(\d+) s · :AssistantCancel stops it$/);
    expect(result.text).toMatch(DOCUMENTED_LOAD);
  });

  it('shows a lone model agent’s seconds and what it has written while it streams a long answer, with no percentage standing still', async () => {
    // About 8 s of streaming from the one agent of the task.
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 4, delayMs: 350 })));
    const { result } = await runScenario(
      `
    vim.o.columns = 200
    T.cursor_on('async load')
    T.pick('gpt-4o-mini')
    vim.cmd('AssistantAsk write documentation for the load method')
    T.wait('the model’s doc comment', function() return T.text():find('once and caches it', 1, true) ~= nil end)
`,
      { setup: setupWithModel(", disabledAgents = { 'doc-offline' }") },
    );
    const lines = result.progress.filter((p) => p.startsWith('Assistant: ask: '));
    // The agent's own line, not "0 of 1 agent done", and never a percentage (it stood at 5% for the whole answer).
    expect(lines.filter((p) => /%|of 1 agent/.test(p)), lines.join('\n')).toEqual([]);
    // What moves while it works: its seconds and what it has written, in order.
    expectModelAtWork(lines, /^Assistant: ask: gpt-4o-mini: (?:(\d+) characters written, )?(\d+) s · :AssistantCancel stops it$/);
    expect(result.text).toMatch(DOCUMENTED_LOAD);
  });

  it(':AssistantCancel stops a code action on a hung model: the request closes within 500 ms, the file is unchanged, the trace says cancelled', async () => {
    model.setDefault({ kind: 'stall', afterHeaders: true });
    const asked = markWhenAsked();
    const { result, workspace, original } = await runScenario(
      `
    T.cursor_on('async load')
    T.pick('Document')
    vim.lsp.buf.code_action()
    T.wait_file(${lua(asked)})
    T.wait_progress('1 of 2 agents done · gpt%-4o%-mini')
    R.data.cancelledAt = T.now_ms()
    vim.cmd('AssistantCancel')
    T.wait_notified('^assistant%-ls: cancelled')
    T.wait_progress('ConfigStore.load: cancelled$')
    -- An edit that came after the cancel would land now.
    vim.wait(300)
    T.trace(true)
`,
      { setup: setupWithModel() },
    );
    const closedAt = await model.waitForClose(0, 1000);
    expect(closedAt - (result.data.cancelledAt as number)).toBeLessThan(500);
    expect(result.notifications).toEqual([{ message: 'assistant-ls: cancelled Assistant: document ConfigStore.load; nothing applied', level: INFO }]);
    expect(result.progress.at(-1)).toBe('Assistant: document ConfigStore.load: cancelled');
    expect(result.progress.filter((p) => p.includes('2 of 2 agents done'))).toEqual([]);
    expect(result.text).toBe(original);
    expect(fs.readFileSync(path.join(workspace, 'src/config.ts'), 'utf8')).toBe(original);
    const interaction = readInteractions(workspace).find((i) => i.task === 'document');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    // The trace list says so too.
    expect(result.quickfix[0]?.text).toMatch(/^document ConfigStore\.load by doc-offline, gpt-4o-mini \(cancelled\) /);
    expect(interaction!.responses.map((r) => [r.agent.name, r.status, r.used])).toEqual([
      ['doc-offline', 'ok', false],
      ['gpt-4o-mini', 'cancelled', false],
    ]);
  });

  it(':AssistantCancel stops :AssistantAsk on a hung model', async () => {
    model.setDefault(taskSteps(() => ({ kind: 'stall', afterHeaders: true })));
    // The request says its task plainly: classified offline, so the model's one request is the task's.
    const asked = markWhenAsked(1);
    const { result, workspace, original } = await runScenario(
      `
    T.cursor_on('async load')
    T.pick('doc-offline')
    vim.cmd('AssistantAsk write documentation for the load method')
    T.wait_file(${lua(asked)})
    R.data.cancelledAt = T.now_ms()
    vim.cmd('AssistantCancel')
    T.wait_notified('^assistant%-ls: cancelled')
    T.wait_progress('^Assistant: ask: cancelled$')
    vim.wait(300)
    T.trace(true)
`,
      { setup: setupWithModel() },
    );
    const closedAt = await model.waitForClose(0, 1000);
    expect(closedAt - (result.data.cancelledAt as number)).toBeLessThan(500);
    expect(result.selects).toEqual([]);
    expect(result.text).toBe(original);
    expect(result.notifications).toEqual([{ message: 'assistant-ls: cancelled Assistant: ask; nothing applied', level: INFO }]);
    const interaction = readInteractions(workspace).find((i) => i.source === 'text');
    expect(interaction).toMatchObject({ message: 'Cancelled before an answer was chosen.' });
    // The trace list says so too.
    expect(result.quickfix[0]?.text).toMatch(/^document ConfigStore\.load by doc-offline, gpt-4o-mini \(cancelled\) /);
    expect(interaction!.responses.find((r) => r.agent.name === 'gpt-4o-mini')).toMatchObject({ status: 'cancelled', used: false });
  });
});
