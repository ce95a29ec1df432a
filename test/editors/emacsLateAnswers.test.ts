// Answers and edits to preview that a model sends while the user types, in Emacs in a terminal: no prompt or preview takes the typed keys (an `a` among them applies nothing), and what came waits for M-x assistant-ls-answers.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { LOAD_DOC, scriptedAgent, taskSteps } from '../support/scriptedAgents.js';
import { endTerminals, readInteractions, requireEmacs, terminalEmacs, terminalInit } from './harness/emacs.js';
import type { Terminal } from './harness/emacs.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  endTerminals();
  await model.close();
});

/** The scripted endpoint as the model agent `gpt-4o-mini` on Document, as an Eglot initialization plist entry. */
function modelAgent(): string {
  const agent = scriptedAgent(model, 'gpt-4o-mini');
  return `(:name "gpt-4o-mini" :baseURL "${agent.baseURL}" :apiKey "sk-test" :model "gpt-4o-mini" :tasks ["document"])`;
}

/** `emacs -nw` in tmux on a copy of the basic fixture with `configuration` (assistant-ls's settings), once Eglot is connected. */
async function startEmacs(configuration: string): Promise<{ root: string; file: string; original: string; term: Terminal }> {
  const root = copyFixture('basic');
  const file = path.join(root, 'src/config.ts');
  const original = fs.readFileSync(file, 'utf8');
  const term = await terminalEmacs({ root, init: terminalInit(root, configuration), file: 'src/config.ts', columns: 160 });
  return { root, file, original, term };
}

/** What the user types at the end of the file while the model works, in two halves: before the answers come and after. */
const TYPED = ['// typed while waiting', ': 1 more'] as const;

describe('clients/emacs/assistant-ls.el when answers come while the user types', () => {
  it('M-x assistant-ls-ask answered while the user types: the keys go into the buffer, the answers wait for M-x assistant-ls-answers, which applies the one picked', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    // The offline answer comes at once; the model's three seconds later, while the user types.
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 3000 })));
    // Ghost text off: the scripted model would answer its requests too.
    const { root, file, original, term } = await startEmacs(`(:useEnvironment :json-false :agents [${modelAgent()}] :completion (:enabled :json-false))`);
    term.keys('M-x');
    term.type('assistant-ls-ask');
    term.keys('Enter');
    term.type('write documentation for the load method');
    term.keys('Enter');
    await term.screenShowing('the ask under way', 'assistant-ls: asking...');
    // The user goes on at once, at the end of the file.
    term.keys('M->');
    term.type(TYPED[0]);
    // The answers come (or, before this change, a prompt opened over the typing).
    const arrived = await term.screenShowing('the answers', /assistant-ls-answers to choose|Apply \(document/);
    term.type(TYPED[1]);
    term.keys('C-x', 'C-s');
    await term.screenShowing('the file saved', 'Wrote ');
    const saved = fs.readFileSync(file, 'utf8');
    // Every key went into the buffer, and nothing was applied or discarded by them; one line said what waits.
    expect(saved).toBe(`${original}${TYPED.join('')}\n`);
    expect(arrived).toContain('assistant-ls: 2 answers for "write documentation for the load method" are ready: M-x assistant-ls-answers to choose');
    // Once idle, the line is said again (the keys typed since cleared it).
    await term.screenShowing('the reminder', /assistant-ls-answers to choose\s*$/);
    term.keys('M-x');
    term.type('assistant-ls-answers');
    term.keys('Enter');
    const prompt = await term.screenShowing('the prompt', 'Apply (document, 2 candidates');
    term.type('gpt-4o-mini');
    term.keys('Tab', 'Enter');
    term.keys('M-<');
    await term.until('the model’s doc comment', () => term.screen().includes('once and caches it'));
    term.keys('C-x', 'C-s');
    await term.until('the file saved', () => fs.readFileSync(file, 'utf8').includes('once and caches it'));
    const applied = fs.readFileSync(file, 'utf8');
    expect(applied).toContain(LOAD_DOC.split('\n')[1]);
    expect(applied.endsWith(`${TYPED.join('')}\n`)).toBe(true);
    expect(prompt).not.toContain('discarded');
    const interaction = readInteractions(root).find((i) => i.source === 'text');
    expect(interaction!.responses.map((r) => [r.agent.name, r.used])).toEqual([
      ['doc-offline', false],
      ['gpt-4o-mini', true],
    ]);
  }, 100_000);
});

/** Typed at the end of the file while the model works, in two halves: before the edit comes and after; the second has the `a` that applies a preview. */
const TYPED_BEFORE_EDIT = ['// typed while waiting', ': a late key'] as const;

/**
 * The Document code action on `async load`, picked from `eglot-code-actions`; the user goes on at once at the end of
 * the file, typing the first half of `typed` before the edit comes (`arrives`, or what took the keys before the
 * change), the second after, and saves. The screen when the edit came.
 */
async function documentWhileTyping(term: Terminal, typed: readonly [string, string], arrives: RegExp): Promise<string> {
  term.keys('C-s');
  term.type('async load');
  term.keys('Enter');
  term.keys('M-x');
  term.type('eglot-code-actions');
  term.keys('Enter');
  await term.screenShowing('the code actions', 'Pick an action (default Assistant: Document');
  term.keys('Enter');
  term.keys('M->');
  term.type(typed[0]);
  const arrived = await term.screenShowing('the edit', arrives);
  term.type(typed[1]);
  term.keys('C-x', 'C-s');
  await term.screenShowing('the file saved', 'Wrote ');
  return arrived;
}

describe('clients/emacs/assistant-ls.el when an edit to preview comes while the user types', () => {
  it('the Document code action whose edit comes while the user types: no preview takes the keys, the answer waits for M-x assistant-ls-answers, and a in its preview applies it', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 2500 })));
    // The model alone on Document (one answer, so no question), every edit previewed; ghost text off, as the scripted
    // model would answer its requests too.
    const { root, file, original, term } = await startEmacs(`(:useEnvironment :json-false :preview "always" :disabledAgents ["doc-offline"] :agents [${modelAgent()}] :completion (:enabled :json-false))`);
    // The edit comes (or, before this change, its preview opened over the typing).
    const arrived = await documentWhileTyping(term, TYPED_BEFORE_EDIT, /assistant-ls-answers to see it|Apply this edit\?/);
    // Every key (the `a` too) went into the buffer and nothing was applied; one line said what waits.
    expect(fs.readFileSync(file, 'utf8')).toBe(`${original}${TYPED_BEFORE_EDIT.join('')}\n`);
    expect(arrived).toContain('assistant-ls: an edit for "document ConfigStore.load" is waiting: M-x assistant-ls-answers to see it');
    expect(readInteractions(root).find((i) => i.task === 'document')!.responses.map((r) => [r.used, r.outcome])).toEqual([[false, 'rejected-by-client']]);
    term.keys('M-x');
    term.type('assistant-ls-answers');
    term.keys('Enter');
    await term.screenShowing('the preview', /\+\+\+ b\/src\/config\.ts[\s\S]*Apply this edit\? \(a or RET: apply, q or d: discard\)/);
    term.keys('a');
    // The user looks at the top of the file: the window may have scrolled with the typing while the preview shared the
    // frame, and the doc comment lands above what it shows.
    term.keys('M-<');
    await term.until('the model’s doc comment', () => term.screen().includes('once and caches it'));
    term.keys('C-x', 'C-s');
    await term.until('the file saved', () => fs.readFileSync(file, 'utf8').includes('once and caches it'));
    const applied = fs.readFileSync(file, 'utf8');
    expect(applied).toContain(LOAD_DOC.split('\n')[1]);
    expect(applied.endsWith(`${TYPED_BEFORE_EDIT.join('')}\n`)).toBe(true);
    const interaction = readInteractions(root).find((i) => i.task === 'document');
    expect(interaction!.responses.map((r) => [r.agent.name, r.used, r.outcome])).toEqual([['gpt-4o-mini', true, 'applied']]);
  }, 100_000);

  it('the Document code action whose edit (not previewed) comes while the user types: Eglot asks nothing over the keys, a y among them applies nothing, and M-x assistant-ls-answers asks then', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    model.setDefault(taskSteps(() => ({ kind: 'text', content: LOAD_DOC, chunkSize: 1000, delayMs: 2500 })));
    // The default preview (multiFile): a one-file edit goes to Eglot, which asks "Proceed? (y or n)" before it applies one.
    const { root, file, original, term } = await startEmacs(`(:useEnvironment :json-false :disabledAgents ["doc-offline"] :agents [${modelAgent()}] :completion (:enabled :json-false))`);
    const typed = ['// typed while waiting', ': yes, and no'] as const;
    // The edit comes (or, before this change, Eglot's question opened over the typing and took its y).
    const arrived = await documentWhileTyping(term, typed, /assistant-ls-answers to see it|Proceed\? \(y or n\)/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${original}${typed.join('')}\n`);
    expect(arrived).toContain('assistant-ls: an edit for "document ConfigStore.load" is waiting: M-x assistant-ls-answers to see it');
    expect(readInteractions(root).find((i) => i.task === 'document')!.responses.map((r) => [r.used, r.outcome])).toEqual([[false, 'rejected-by-client']]);
    term.keys('M-x');
    term.type('assistant-ls-answers');
    term.keys('Enter');
    await term.screenShowing('Eglot’s question', 'Proceed? (y or n)');
    term.keys('y');
    term.keys('M-<');
    await term.until('the model’s doc comment', () => term.screen().includes('once and caches it'));
    term.keys('C-x', 'C-s');
    await term.until('the file saved', () => fs.readFileSync(file, 'utf8').includes('once and caches it'));
    const applied = fs.readFileSync(file, 'utf8');
    expect(applied).toContain(LOAD_DOC.split('\n')[1]);
    expect(applied.endsWith(`${typed.join('')}\n`)).toBe(true);
    const interaction = readInteractions(root).find((i) => i.task === 'document');
    expect(interaction!.responses.map((r) => [r.agent.name, r.used, r.outcome])).toEqual([['gpt-4o-mini', true, 'applied']]);
  }, 100_000);
});
