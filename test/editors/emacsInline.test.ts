// Ghost text in a real Emacs 28 with Eglot, in a terminal (tmux): the suggestion after point as you type, its keys (C-g, M-n, M-<right>, TAB), undo after accepting, and what the mode says.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { endTerminals, readInteractions as interactions, requireEmacs, terminalEmacs, terminalInit } from './harness/emacs.js';
import type { Terminal } from './harness/emacs.js';

let model: ScriptedModel;
beforeEach(async () => {
  model = await startScriptedModel();
});
afterEach(async () => {
  endTerminals();
  await model.close();
});

const LINE = /^ {2}return values\.reduce\(.*$/m;
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;]*m/g;

/** Emacs -nw in a tmux server of its own on the completion fixture, with `reduce(ADD, 0)` made `reduce(, 0)`, its Eglot connected. */
async function start(ctx: Parameters<typeof requireEmacs>[0], agents = true): Promise<{ root: string; term: Terminal; line: (escapes?: boolean) => string; echo: () => string }> {
  requireEmacs(ctx, { tmux: true });
  const root = copyFixture('completion');
  const file = path.join(root, 'src', 'main.ts');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('reduce(ADD, 0)', 'reduce(, 0)'));
  const init = terminalInit(
    root,
    `(:useEnvironment :json-false
        ${agents ? `:agents [(:name "scripted-coder" :baseURL ${JSON.stringify(model.baseURL)} :apiKey "sk-test" :model "scripted-coder" :tasks ["document"])]` : ''}
        :completion (:debounceMs 0))`,
  );
  // A timeout says what the mode was doing and what reached the model (the ghost text's absence alone says little).
  const diagnose = async (term: Terminal): Promise<string> => {
    term.keys('C-g', 'M-:');
    term.type('(message "inline: mode=%S pending=%S tick=%S/%S timer=%S" assistant-ls-inline-mode assistant-ls-inline--pending assistant-ls-inline--tick (buffer-chars-modified-tick) (and assistant-ls-inline--timer t))');
    term.keys('Enter');
    await sleep(1_000);
    return `${term.screen().split('\n')[44]}\nmodel requests: ${JSON.stringify(model.requests.map((r) => r.path))}`;
  };
  const term = await terminalEmacs({ root, init, file: 'src/main.ts', columns: 150, lines: 45, deadlineMs: 100_000, diagnose });
  const line = (escapes = false): string => LINE.exec(term.screen(escapes).replace(escapes ? /$^/ : ESCAPES, ''))?.[0] ?? '';
  // The echo area: the screen's last line.
  const echo = (): string => term.screen().split('\n')[44]!.trim();
  term.keys('M-<');
  term.keys('C-s');
  term.type('reduce(');
  term.keys('Enter');
  return { root, term, line, echo };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('clients/emacs/assistant-ls.el: inline completion', () => {
  it('shows the suggestion after point as you type; C-g dismisses it, M-n asks again, TAB inserts it and the trace records it', async (ctx) => {
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v' });
    const { root, term, line } = await start(ctx);
    term.type('s');
    const ghost = '  return values.reduce(sum, v) => sum + v, 0);';
    await term.until('the ghost text', () => line() === ghost);
    // The suggestion is drawn apart from the code around it (in the shadow face): a colour change before and after it.
    // eslint-disable-next-line no-control-regex
    expect(line(true)).toMatch(/reduce\(.*s\u001b\[[0-9;]*mum, v\) => sum \+ v\u001b\[[0-9;]*m.*, 0\);/);
    expect(interactions(root).filter((i) => i.task === 'complete')).toEqual([]);

    term.keys('C-g');
    await term.until('the dismissal', () => line() === '  return values.reduce(s, 0);');
    term.keys('M-n');
    await term.until('the ghost text again', () => line() === ghost);

    // Nothing more to suggest: the text typed after the accepted one stays as typed.
    model.setDefault({ kind: 'text', content: '' });
    term.keys('Tab');
    await term.until('the acceptance in the trace', () => interactions(root).some((i) => i.task === 'complete'));
    const [accepted] = interactions(root).filter((i) => i.task === 'complete');
    expect(accepted!.completion).toEqual({ offered: 'um, v) => sum + v', partial: false, mode: 'fim' });
    expect(accepted!.responses[0]).toMatchObject({ used: true, insertedAt: [{ range: { start: { line: 11, character: 24 }, end: { line: 11, character: 41 } } }] });
    // The text is in the buffer: typing on goes after it.
    term.type(' ');
    await term.until('the typed text after the accepted one', () => line() === '  return values.reduce(sum, v) => sum + v , 0);');
  }, 120_000);
  it('undoes an accepted suggestion in one step, and shows nothing new after undo', async (ctx) => {
    model.setDefault({ kind: 'text', content: 'um, v) => sum + v' });
    const { root, term, line, echo } = await start(ctx);
    term.type('s');
    await term.until('the ghost text', () => line() === '  return values.reduce(sum, v) => sum + v, 0);');
    term.keys('Tab');
    await term.until('the acceptance in the trace', () => interactions(root).some((i) => i.task === 'complete'));
    term.keys('C-_');
    await term.until('the undone acceptance', () => line() === '  return values.reduce(s, 0);');
    // Long enough for the mode's idle delay and the server's cached answer: the suggestion does not come back.
    await sleep(1500);
    expect(line()).toBe('  return values.reduce(s, 0);');
    // The next undo goes on backwards (the typed `s`), as without the mode; it does not redo the acceptance.
    term.keys('C-_');
    await term.until('the undone typing', () => line() === '  return values.reduce(, 0);');
    expect(echo()).not.toMatch(/Redo/);
    await sleep(1000);
    expect(line()).toBe('  return values.reduce(, 0);');
  }, 120_000);

  it('in a terminal, M-<right> takes a word; M-n asks with a message, and says when there is no other suggestion or none', async (ctx) => {
    // A slow first answer, as a local model loading; then nothing to suggest.
    let calls = 0;
    model.setDefault({ kind: 'dynamic', respond: () => (++calls === 1 ? { kind: 'text', content: 'sum, v) => sum + v', delayMs: 1500 } : { kind: 'text', content: '' }) });
    const { term, line, echo } = await start(ctx);
    const ghost = '  return values.reduce(sum, v) => sum + v, 0);';
    term.keys('M-n');
    await term.until('the asking message', () => echo() === 'assistant-ls: asking the model...');
    expect(line()).toBe('  return values.reduce(, 0);');
    await term.until('the ghost text', () => line() === ghost);
    await term.until('the message cleared', () => echo() === '');
    // The server offers one suggestion: the keys say there is no other, and it stays.
    term.keys('M-n');
    await term.until('no other suggestion', () => echo() === 'assistant-ls: no other suggestion');
    expect(line()).toBe(ghost);
    // Its next word (the key sends an escape sequence in a terminal), then the rest dismissed.
    term.keys('M-Right');
    // The same text on screen, the colour change now after the word (C-g sent at once could quit the command).
    // eslint-disable-next-line no-control-regex
    await term.until('the rest after the word', () => /reduce\(.*sum(?:\u001b\[[0-9;]*m)+, v\) => sum \+ v\u001b/.test(line(true)));
    term.keys('C-g');
    await term.until('the word taken', () => line() === '  return values.reduce(sum, 0);');
    // Typing (not what was suggested, which the server's cache would answer) asks the model too, silently.
    term.type('x');
    await term.until('the model asked again', () => calls === 2);
    await sleep(1000);
    expect(echo()).not.toMatch(/assistant-ls/);
    // Where the model has nothing: asked with the key, it says so.
    term.keys('M-n');
    await term.until('no suggestion here', () => echo() === 'assistant-ls: no suggestion here');
    expect(line()).toBe('  return values.reduce(sumx, 0);');
    expect(calls).toBe(3);
  }, 120_000);

  it('says why there is no suggestion when M-n asks without a model agent', async (ctx) => {
    const { term, line, echo } = await start(ctx, false);
    term.keys('M-n');
    await term.until('the reason', () => /No suggestion: no model agent is configured/.test(echo()));
    await sleep(500);
    expect(echo()).toMatch(/No suggestion: no model agent is configured/);
    expect(line()).toBe('  return values.reduce(, 0);');
    expect(model.requests).toEqual([]);
  }, 120_000);
});
