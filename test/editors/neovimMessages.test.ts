// The message line of a real Neovim in a terminal (tmux): the outcome stays on screen after the progress ends, and progress after a picker never asks for Enter.
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
function startNvim(): { term: Terminal; root: string } {
  const root = copyFixture('basic');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-nvim-messages-'));
  temporary.push(root, scratch);
  const bin = serverBin(scratch);
  const init = path.join(scratch, 'init.lua');
  fs.writeFileSync(
    init,
    `vim.opt.runtimepath:append([==[${PLUGIN_DIR}]==])
vim.opt.swapfile = false
require('assistant').setup({ settings = { preview = 'always', progress = { showAfterMs = 0 } } })
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
});
