// The Helix client: clients/helix/languages.toml parses, declares the server beside typescript-language-server, and names only real protocol entries.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';
import { resolveSettings } from '../../server/src/config/settings.js';
import { REPO_ROOT } from '../support/lspClient.js';
import { TomlError, findNames, parseToml } from './shimSupport.js';
import type { TomlTable } from './shimSupport.js';

const FILE = path.join(REPO_ROOT, 'clients', 'helix', 'languages.toml');
const TEXT = fs.readFileSync(FILE, 'utf8');
const LANGUAGES = ['typescript', 'tsx', 'javascript', 'jsx'];

/** Python's tomllib (3.11+) is a complete TOML 1.0 parser: when present, it checks this test's parser too. */
const PYTHON_TOML = spawnSync('python3', ['-c', 'import tomllib'], { encoding: 'utf8' }).status === 0;

function pythonToml(text: string): unknown {
  const result = spawnSync('python3', ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'], { input: text, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tomllib refused the text: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function table(value: unknown, what: string): TomlTable {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value), `${what} is a table`).toBe(true);
  return value as TomlTable;
}

/** A `language-servers` entry is a name or `{ name, only-features | except-features }`. */
function serverName(entry: unknown): string {
  return typeof entry === 'string' ? entry : String(table(entry, 'a language-servers entry').name);
}

describe('the TOML parser of these tests', () => {
  const SAMPLE = [
    '# comment',
    'title = "a \\"quoted\\" \\u00e9 \\U0001F600 tab\\there" # trailing comment',
    "literal = 'C:\\path\\no escapes'",
    'numbers = [1, -2, +3, 1_000, 0x1F, 0o17, 0b101, 3.5, -0.25, 1e3, 6.02E-2,]',
    'nested = [ [1, 2], ["a", \'b\'],',
    '  # a comment inside an array',
    '  { x = 1, y.z = true } ]',
    'a.b.c = false',
    '"quoted key".bare-key = "v"',
    '',
    '[server.one]',
    'args = ["--stdio"]',
    'config = { deep = { list = [] }, flag = true }',
    '[server.one.more]',
    'k = 1',
    '[[item]]',
    'name = "first"',
    '[item.sub]',
    'x = 1',
    '[[item]]',
    'name = "second"',
    '',
  ].join('\r\n');

  it('reads every construct of the subset', () => {
    expect(parseToml(SAMPLE)).toEqual({
      title: 'a "quoted" é 😀 tab\there',
      literal: 'C:\\path\\no escapes',
      numbers: [1, -2, 3, 1000, 31, 15, 5, 3.5, -0.25, 1000, 0.0602],
      nested: [[1, 2], ['a', 'b'], { x: 1, y: { z: true } }],
      a: { b: { c: false } },
      'quoted key': { 'bare-key': 'v' },
      server: { one: { args: ['--stdio'], config: { deep: { list: [] }, flag: true }, more: { k: 1 } } },
      item: [{ name: 'first', sub: { x: 1 } }, { name: 'second' }],
    });
  });

  it.skipIf(!PYTHON_TOML)('agrees with Python tomllib on the sample', () => {
    expect(parseToml(SAMPLE)).toEqual(pythonToml(SAMPLE));
  });

  it.each([
    ['a = 1\na = 2', /duplicate key "a"/],
    ['[t]\n[t]', /defined twice/],
    ['[t]\nx.y = 1\n[t.x]', /defined twice/],
    ['t = { a = 1 }\n[t]', /defined twice/],
    ['t = { a = 1 }\nt.b = 2', /already defined/],
    ['t = [1]\n[[t]]', /not an array of tables/],
    ['a = "unterminated', /unterminated string/],
    ['a = "bad \\q escape"', /bad escape/],
    ['a = "control \u0001 character"', /control character/],
    ['a = ', /expected a value/],
    ['a = 1 b = 2', /unexpected "b"/],
    ['a = { b = 1, }', /inline tables are one line/],
    ['a = [1 2]', /expected "," or "]"/],
    ['a = 01', /cannot read a value/],
    ['a = """multi"""', /not in the supported subset/],
    ['a = 1979-05-27', /not in the supported subset/],
    ['= 1', /expected a key/],
  ])('refuses %j', (text, message) => {
    expect(() => parseToml(text)).toThrow(TomlError);
    expect(() => parseToml(text)).toThrow(message);
  });
});

describe('clients/helix/languages.toml', () => {
  const toml = parseToml(TEXT);
  const server = table(table(toml['language-server'], '[language-server]')['assistant-ls'], '[language-server.assistant-ls]');

  it('starts with a one-line comment of its purpose', () => {
    expect(TEXT.split('\n')[0]).toMatch(/^# \S.{20,}/);
  });

  it.skipIf(!PYTHON_TOML)('is valid TOML 1.0 and reads the same with Python tomllib', () => {
    expect(toml).toEqual(pythonToml(TEXT));
  });

  it('declares the server as `assistant-ls --stdio`, with a request timeout above the agents’ budget', () => {
    expect(server.command).toBe('assistant-ls');
    expect(server.args).toEqual(['--stdio']);
    expect(typeof server.timeout).toBe('number');
    expect(server.timeout as number).toBeGreaterThan(DEFAULT_SETTINGS.orchestrator.agentTimeoutMs / 1000);
  });

  it('passes settings under `assistant` that the server accepts, and they are the defaults as the comment says', () => {
    const config = table(server.config, 'config');
    expect(Object.keys(config)).toEqual(['assistant']);
    const resolved = resolveSettings(config);
    expect(resolved.problems).toEqual([]);
    expect(resolved.settings).toEqual(DEFAULT_SETTINGS);
  });

  it('has a commented agents example that is valid once uncommented', () => {
    const lines = TEXT.split('\n');
    const start = lines.findIndex((l) => /^# agents = \[/.test(l));
    const end = lines.findIndex((l, i) => i > start && /^# \]/.test(l));
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const example = parseToml(lines.slice(start, end + 1).map((l) => l.replace(/^# ?/, '')).join('\n'));
    const resolved = resolveSettings({ assistant: example });
    expect(resolved.problems).toEqual([]);
    expect(resolved.settings.agents).toEqual([{ name: 'local', baseURL: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b', temperature: 0.2 }]);
  });

  it('adds assistant-ls beside typescript-language-server in every TypeScript and JavaScript language', () => {
    const languages = toml.language;
    expect(Array.isArray(languages)).toBe(true);
    const entries = (languages as unknown[]).map((l) => table(l, '[[language]]'));
    expect(entries.map((l) => l.name).sort()).toEqual([...LANGUAGES].sort());
    const declared = new Set(Object.keys(table(toml['language-server'], '[language-server]')));
    for (const language of entries) {
      const names = (language['language-servers'] as unknown[]).map(serverName);
      expect(names, `${String(language.name)}`).toContain('typescript-language-server');
      expect(names, `${String(language.name)}`).toContain('assistant-ls');
      // typescript-language-server first: it keeps hover, completion and go-to; both answer code actions.
      expect(names.indexOf('typescript-language-server')).toBeLessThan(names.indexOf('assistant-ls'));
      // Helix's own languages.toml defines typescript-language-server; every other name must be defined here.
      for (const name of names) expect(name === 'typescript-language-server' || declared.has(name), name).toBe(true);
    }
  });

  it('names only methods, commands and settings that protocol/ declares', () => {
    const uses = findNames(TEXT, FILE);
    expect(uses.map((u) => u.name)).toEqual(expect.arrayContaining(['assistant.document', 'assistant.showInteraction', 'assistant.responseApplied']));
    expect(uses.filter((u) => !u.known).map((u) => `line ${u.line}: ${u.name} (${u.kind})`)).toEqual([]);
  });
});
