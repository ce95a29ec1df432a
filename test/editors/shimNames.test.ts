// One source of names: every method, command or setting a client under clients/ names must be declared in protocol/src.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS, CUSTOM_METHODS } from '../../protocol/src/index.js';
import { REPO_ROOT } from '../support/lspClient.js';
import { findNames, settingsPaths } from './shimSupport.js';
import type { NameUse } from './shimSupport.js';

const CLIENTS = path.join(REPO_ROOT, 'clients');
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git']);
const MAX_BYTES = 2 * 1024 * 1024;

/** Every text file under clients/, whatever its kind: shims written later are checked without touching this test. */
function clientFiles(dir = CLIENTS): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : clientFiles(full);
    if (!entry.isFile() || entry.name.endsWith('.vsix') || fs.statSync(full).size > MAX_BYTES) return [];
    const head = fs.readFileSync(full).subarray(0, 8192);
    return head.includes(0) ? [] : [full];
  });
}

function usesIn(file: string): NameUse[] {
  return findNames(fs.readFileSync(file, 'utf8'), file);
}

describe('the name scanner', () => {
  it('reads settings paths from the declaration, optional keys, list items and map keys included', () => {
    const paths = settingsPaths();
    for (const p of ['assistant.agents', 'assistant.agents.model', 'assistant.agents.prompts.document', 'assistant.trace.directory', 'assistant.annotations.enabled', 'assistant.user.name', 'assistant.user.role']) {
      expect(paths.has(p), p).toBe(true);
    }
    for (const p of ['assistant.trace.bogus', 'assistant.document', 'assistant.annotations.enabled.more']) expect(paths.has(p), p).toBe(false);
  });

  it('tells methods, commands and settings apart, and knows which protocol/ declares', () => {
    const text = [
      `"assistant/ask" 'assistant/bogus' :assistant/trace`,
      '`assistant.document` assistant.showInteraction assistant.bogusCommand',
      'assistant.trace.directory assistant.annotations.enabled assistant.trace.bogus',
    ].join('\n');
    expect(findNames(text, 'x.md').map(({ name, kind, known, line }) => [name, kind, known, line])).toEqual([
      ['assistant/ask', 'method', true, 1],
      ['assistant/bogus', 'method', false, 1],
      ['assistant/trace', 'method', true, 1],
      ['assistant.document', 'command', true, 2],
      ['assistant.showInteraction', 'command', true, 2],
      ['assistant.bogusCommand', 'command', false, 2],
      ['assistant.trace.directory', 'setting', true, 3],
      ['assistant.annotations.enabled', 'setting', true, 3],
      ['assistant.trace.bogus', 'setting', false, 3],
    ]);
  });

  it('ignores paths, URLs, the server name and the VS Code extension’s own assistantLs.* ids', () => {
    const text = '.assistant/trace/x.json https://example.test/assistant/nothing assistant-ls.el assistantLs.ask @assistant/pkg myassistant.foo';
    expect(findNames(text, 'x.md')).toEqual([]);
  });

  it('reads only string literals in code, so a variable named assistant is not a command', () => {
    const code = `const assistant = start();\nassistant.stop();\nclient.sendRequest('assistant/ask', {});\nrun("assistant.bogus");\n`;
    expect(findNames(code, 'extension.ts').map((u) => [u.name, u.line])).toEqual([
      ['assistant/ask', 3],
      ['assistant.bogus', 4],
    ]);
    const lua = `local ui = require('assistant.ui')\nlocal q = require "assistant.quickfix"\nlocal assistant = {}\nassistant.ask()\nvim.lsp.buf_request(0, "assistant/trace", {})`;
    expect(findNames(lua, 'init.lua').map((u) => u.name)).toEqual(['assistant/trace']);
    expect(findNames("Replace `require('assistant.progress').echo` to show it elsewhere.", 'README.md')).toEqual([]);
  });

  it('takes names with two dots for settings paths, so a client setting under assistant. is caught', () => {
    expect(findNames('"assistant.server.path"', 'package.json')).toEqual([{ name: 'assistant.server.path', kind: 'setting', known: false, line: 1 }]);
  });
});

describe('client shims', () => {
  const files = clientFiles();

  it('scans the shims this suite knows of (and any added later)', () => {
    const relative = files.map((f) => path.relative(REPO_ROOT, f).split(path.sep).join('/'));
    expect(relative).toEqual(expect.arrayContaining(['clients/helix/languages.toml', 'clients/emacs/assistant-ls.el']));
    for (const owned of ['clients/helix/languages.toml', 'clients/emacs/assistant-ls.el']) {
      expect(usesIn(path.join(REPO_ROOT, owned)).length, `${owned} names the protocol`).toBeGreaterThan(0);
    }
  });

  it('name only methods, commands and settings declared in protocol/src', () => {
    const unknown = files.flatMap((file) =>
      usesIn(file)
        .filter((use) => !use.known)
        .map((use) => `${path.relative(REPO_ROOT, file)}:${use.line}: ${use.name} is not a declared ${use.kind}`),
    );
    // Client-only ids and settings belong under `assistantLs.` (not `assistant.`), which is the server's namespace.
    expect(unknown, `methods: ${CUSTOM_METHODS.join(', ')}; commands: ${ALL_COMMANDS.join(', ')}`).toEqual([]);
  });
});
