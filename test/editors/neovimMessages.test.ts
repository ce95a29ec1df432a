// The message line of a real Neovim in a terminal (tmux): the outcome stays on screen after the progress ends, progress after a picker never asks for Enter, a long message (the warning about bad settings at start too) is cut to the line, whole in :messages.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { Terminal, offlineEnv, removeQuietly, serverBin } from './harness/emacs.js';
import { NVIM, PLUGIN_DIR, readInteractions, skipNvim, skipReason } from './harness/neovim.js';

const hasTmux = !spawnSync('tmux', ['-V']).error;

const sockets: string[] = [];
const temporary: string[] = [];
afterEach(() => {
  // Only the tmux server this test started, by its own socket; nvim and the language server end with it.
  for (const socket of sockets.splice(0)) spawnSync('tmux', ['-S', socket, 'kill-server']);
  for (const dir of temporary.splice(0)) removeQuietly(dir);
});

/** nvim on a fresh copy of the basic fixture in an 80-column terminal, as a user's init would set the plugin up. */
function startNvim(settings = "{ preview = 'always', progress = { showAfterMs = 0 } }"): { term: Terminal; root: string } {
  const root = copyFixture('basic');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-nvim-messages-'));
  temporary.push(root, scratch);
  const bin = serverBin(scratch);
  const init = path.join(scratch, 'init.lua');
  fs.writeFileSync(
    init,
    `vim.opt.runtimepath:append([==[${PLUGIN_DIR}]==])
vim.opt.swapfile = false
require('assistant').setup({ settings = ${settings} })
`,
  );
  const socket = path.join(scratch, 'tmux.sock');
  sockets.push(socket);
  const env = offlineEnv(bin, { HOME: scratch, TERM: 'xterm-256color', XDG_STATE_HOME: path.join(scratch, 'state'), XDG_DATA_HOME: path.join(scratch, 'data') });
  // Not the tmux of whoever runs the tests: this session is a server of its own.
  for (const key of Object.keys(env)) if (key.startsWith('TMUX')) delete env[key];
  execFileSync('tmux', ['-S', socket, '-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', '24', '-c', root, NVIM, '--clean', '-u', init, 'src/config.ts'], { env });
  return { term: new Terminal(socket, Date.now() + 25_000), root };
}

/** Waits until the plugin's client for the buffer is running (asked with :lua, answered on the message line). */
async function clientReady(term: Terminal): Promise<void> {
  let asked = 0;
  await term.until('the assistant-ls client', () => {
    // Asked again every half second, reading the answer in between.
    if (asked++ % 5 === 0) {
      term.type(":lua print(require('assistant').client(0) and 'client ready' or 'no client yet')");
      term.keys('Enter');
    }
    // A line of the answer alone, not the typed command, which holds the same words until Enter is read.
    return term
      .screen()
      .split('\n')
      .some((line) => line.trimEnd() === 'client ready');
  });
}

/** The last line of the screen: Neovim's message line. */
function messageLine(screen: string): string {
  return screen.replace(/\n$/, '').split('\n').at(-1)?.trimEnd() ?? '';
}

describe.skipIf(skipNvim || !hasTmux)(`the message line in nvim${skipReason}${hasTmux ? '' : ' (skipped: tmux is not installed)'}`, () => {
  it('q in the preview of a code action leaves "discarded" on the message line, not the progress "done"', async () => {
    const { term, root } = startNvim();
    await term.screenShowing('nvim with the file', 'export function parseConfig');
    await clientReady(term);
    term.type(':call search("parseConfig(text") | lua vim.lsp.buf.code_action()');
    term.keys('Enter');
    await term.screenShowing('the code actions', '1: Assistant: Document function parseConfig');
    term.type('1');
    term.keys('Enter');
    await term.screenShowing('the preview', 'assistant-ls preview');
    term.keys('q');
    const after = await term.screenShowing('the preview closed', 'src/config.ts ', 'assistant-ls preview');
    // The server records the discard, then ends the progress; wait past both before reading what stays.
    await term.until('the discard in the trace', () => readInteractions(root).some((i) => i.responses[0]?.outcome === 'discarded'));
    await new Promise((r) => setTimeout(r, 1_500));
    const screen = term.screen();
    expect(messageLine(screen), after).toBe('assistant-ls: discarded; nothing changed');
    expect(screen).not.toContain(': done');
  });

  it('progress lines right after choosing in a picker replace each other, with no "Press ENTER" prompt', async () => {
    const { term } = startNvim();
    await term.screenShowing('nvim with the file', 'export function parseConfig');
    await clientReady(term);
    // The server's $/progress for the work the choice starts, through the plugin's handler, as it arrives after a pick.
    term.type(
      ":lua vim.ui.select({ 'doc-offline', 'Discard' }, { prompt = 'Assistant document: apply which candidate?' }, function() " +
        "local h = require('assistant.progress').handler " +
        "h(nil, { token = 't', value = { kind = 'begin', title = 'Assistant: document parseConfig', message = 'asking doc-offline' } }, { client_id = require('assistant').client(0).id }) " +
        "h(nil, { token = 't', value = { kind = 'report', message = 'checking the answer' } }, { client_id = require('assistant').client(0).id }) " +
        "h(nil, { token = 't', value = { kind = 'report', message = 'applying' } }, { client_id = require('assistant').client(0).id }) end)",
    );
    term.keys('Enter');
    await term.screenShowing('the picker', 'Type number and <Enter>');
    term.type('1');
    term.keys('Enter');
    // Until the last line shows (or a prompt does): the handler's redraws are scheduled, later on a busy machine.
    const last = 'Assistant: document parseConfig: applying';
    await term.until('the last progress line', () => term.screen().includes('Press ENTER') || messageLine(term.screen()) === last);
    // A prompt would come right after the lines that overflow: none a moment later either.
    await new Promise((r) => setTimeout(r, 500));
    const screen = term.screen();
    expect(screen).not.toContain('Press ENTER');
    expect(messageLine(screen)).toBe(last);
  });

  it('bad settings are said once at start, on one line with no "Press ENTER", and the editor goes on', async () => {
    const { term } = startNvim("{ preview = 'sometimes', agents = { { name = 'local', modelPath = '~/models/does-not-exist.gguf' } } }");
    await term.screenShowing('nvim with the file', 'export function parseConfig');
    const start = 'assistant-ls: 2 setting problems: ';
    await term.until('the warning about the settings', () => term.screen().includes('Press ENTER') || messageLine(term.screen()).startsWith(start));
    await new Promise((r) => setTimeout(r, 700));
    const screen = term.screen();
    expect(screen).not.toContain('Press ENTER');
    // The server's name once (the plugin adds it), the message cut to the line.
    expect(messageLine(screen)).toMatch(/^assistant-ls: 2 setting problems: assistant\.preview.*… \(:messages\)$/);
    expect([...messageLine(screen)].length).toBeLessThanOrEqual(67);
    // Not a prompt: the editor takes the next command at once.
    await clientReady(term);
    // On a busy machine the readiness check can be answered twice at once, a prompt of its own: dismissed first, so
    // the prompt read below is the one :messages ends with.
    if (term.screen().includes('Press ENTER')) {
      term.keys('Enter');
      await term.until('the prompt dismissed', () => !term.screen().includes('Press ENTER'));
    }
    term.type(':messages');
    term.keys('Enter');
    const history = (await term.screenShowing(':messages', 'Press ENTER')).replace(/\s+/g, '');
    expect(history).toContain('assistant.agents[0].modelPath:nofileat');
    expect(history.split('settingproblems').length - 1).toBe(1);
  });

  it('messages longer than the line show cut to it, never with a "Press ENTER" prompt, and whole in :messages', async () => {
    const { term } = startNvim();
    await term.screenShowing('nvim with the file', 'export function parseConfig');
    await clientReady(term);
    // What :messages shows next is the plugin's alone.
    term.type(':messages clear');
    term.keys('Enter');
    // Runs a command as the user types it and returns the message line once the message that starts with `start`
    // is on it, after a moment in which a prompt would have come.
    const said = async (command: string, start: string): Promise<string> => {
      term.type(command);
      term.keys('Enter');
      await term.until(`the message of ${command}`, () => term.screen().includes('Press ENTER') || messageLine(term.screen()).startsWith(start));
      await new Promise((r) => setTimeout(r, 700));
      const screen = term.screen();
      expect(screen, `after ${command}`).not.toContain('Press ENTER');
      return messageLine(screen);
    };
    // v:echospace at 80 columns with 'ruler' and 'showcmd' (the defaults): 68, one column kept free.
    const fits = (line: string): void => expect([...line].length).toBeLessThanOrEqual(67);

    // A request that matches no task, answered by the server as a warning.
    const noTask = await said(':AssistantAsk what is the weather in Paris', 'assistant-ls: This request');
    expect(noTask).toBe('assistant-ls: This request does not match any… (:messages)');
    fits(noTask);
    // A task only a model agent does, with none configured: the server's warning of two lines' length.
    const needsModel = await said(':AssistantAsk make parseConfig faster', 'assistant-ls: This needs');
    expect(needsModel).toBe('assistant-ls: This needs a model agent: no offline… (:messages)');
    fits(needsModel);
    // Said at once, inside the typed command (an empty register has no patch).
    const noPatch = await said(':AssistantApplyPatch a', 'assistant-ls: no patch');
    expect(noPatch).toBe('assistant-ls: no patch in register a… (:messages)');
    fits(noPatch);
    // Several lines: the first, which names the agents.
    const agents = await said(':AssistantAgents', 'assistant-ls: agents');
    expect(agents).toBe('assistant-ls: agents: doc-offline, explain-offline… (:messages)');
    fits(agents);
    // An error the user must act on: asked from a buffer the server does not serve.
    term.type(':enew');
    term.keys('Enter');
    const noClient = await said(':AssistantAsk document this', 'assistant-ls: no assistant-ls client');
    expect(noClient).toBe('assistant-ls: no assistant-ls client for this buffer… (:messages)');
    fits(noClient);

    term.type(':messages');
    term.keys('Enter');
    const history = await term.screenShowing(':messages', 'Press ENTER');
    // Lines are wrapped at 80 columns on screen: compared without the spaces and line breaks.
    const flat = (text: string): string => text.replace(/\s+/g, '');
    for (const whole of [
      'assistant-ls: This request does not match any assistant task. Try e.g. "document the load method" or "explain this function".',
      'assistant-ls: This needs a model agent: no offline agent can optimise code. Configure one (see "Models" in the README).',
      'assistant-ls: no patch in register a: :AssistantApplyPatch applies the unified diff in the buffer, its [range], or a register (:AssistantApplyPatch +)',
      'assistant-ls: agents: doc-offline, explain-offline, rename-offline, fix-offline, test-scaffold-offline, implement-offline, question-offline\ndoc-offline (rule): document\nexplain-offline (rule): explain',
      'assistant-ls: no assistant-ls client for this buffer (is it a TypeScript or JavaScript file, and did setup() run?)',
    ]) {
      expect(flat(history), history).toContain(flat(whole));
    }
    // Each message once: the line shown is not kept beside the whole text.
    expect(history).not.toContain('(:messages)');
  });
});
