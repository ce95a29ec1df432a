// Helpers for the editor-shim tests: a strict TOML parser for the subset Helix configs use, and the protocol-name scanner.
import path from 'node:path';
import { ALL_COMMANDS, CUSTOM_METHODS, DEFAULT_SETTINGS, SETTINGS, SETTINGS_SECTION } from '../../protocol/src/index.js';
import type { Setting } from '../../protocol/src/index.js';

// ---------------------------------------------------------------------------------------------------------------
// TOML: tables, arrays of tables, dotted and quoted keys, basic and literal strings, integers, floats, booleans,
// arrays and inline tables, with the TOML 1.0 rules on duplicate keys and table redefinition. Multi-line strings and
// dates are not in the subset: they are refused with a clear error rather than misread.

export type TomlTable = { [key: string]: unknown };

export class TomlError extends Error {}

const BARE_KEY = /[A-Za-z0-9_-]/;
const NUMBER = /^[+-]?(?:0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*|(?:inf|nan)|(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?)/;

class TomlParser {
  private pos = 0;
  private readonly root: TomlTable = {};
  /** Tables a `[header]` or `[[header]]` defined, which no later header or dotted key may define again. */
  private readonly headerDefined = new WeakSet<object>();
  /** Tables created by dotted keys, which no header may define afterwards. */
  private readonly dottedCreated = new WeakSet<object>();
  /** Inline tables and arrays written as values: closed once written. */
  private readonly sealed = new WeakSet<object>();
  /** Arrays created by `[[header]]`. */
  private readonly tableArrays = new WeakSet<object>();

  constructor(private readonly text: string) {}

  parse(): TomlTable {
    let current = this.root;
    for (;;) {
      this.skipBlankLines();
      if (this.pos >= this.text.length) return this.root;
      if (this.text[this.pos] === '[') current = this.header();
      else this.keyValue(current);
      this.endOfLine();
    }
  }

  private fail(message: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new TomlError(`TOML line ${line}: ${message}`);
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  private skipComment(): void {
    if (this.text[this.pos] !== '#') return;
    while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
  }

  private skipNewline(): boolean {
    if (this.text.startsWith('\r\n', this.pos)) this.pos += 2;
    else if (this.text[this.pos] === '\n') this.pos++;
    else return false;
    return true;
  }

  private skipBlankLines(): void {
    for (;;) {
      this.skipSpaces();
      this.skipComment();
      if (!this.skipNewline()) return;
    }
  }

  /** Spaces, comments and newlines, as allowed between array elements. */
  private skipArraySpace(): void {
    for (;;) {
      this.skipSpaces();
      this.skipComment();
      if (!this.skipNewline()) return;
    }
  }

  private endOfLine(): void {
    this.skipSpaces();
    this.skipComment();
    if (this.pos < this.text.length && !this.skipNewline()) this.fail(`unexpected "${this.text[this.pos]}" after a value`);
  }

  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipSpaces();
      const c = this.text[this.pos];
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.pos;
        while (this.pos < this.text.length && BARE_KEY.test(this.text[this.pos] as string)) this.pos++;
        if (this.pos === start) this.fail('expected a key');
        parts.push(this.text.slice(start, this.pos));
      }
      this.skipSpaces();
      if (this.text[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  private isTable(value: unknown): value is TomlTable {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  }

  private header(): TomlTable {
    const isArray = this.text.startsWith('[[', this.pos);
    this.pos += isArray ? 2 : 1;
    const keys = this.key();
    if (!this.text.startsWith(isArray ? ']]' : ']', this.pos)) this.fail(`expected "${isArray ? ']]' : ']'}" after the table name`);
    this.pos += isArray ? 2 : 1;
    let table = this.root;
    for (const part of keys.slice(0, -1)) {
      const next: unknown = table[part];
      if (next === undefined) table = table[part] = {};
      else if (Array.isArray(next) && this.tableArrays.has(next)) table = next[next.length - 1] as TomlTable;
      else if (this.isTable(next) && !this.sealed.has(next)) table = next;
      else this.fail(`"${keys.join('.')}": "${part}" is not a table`);
    }
    const last = keys[keys.length - 1] as string;
    const existing = table[last];
    if (isArray) {
      const created: TomlTable = {};
      this.headerDefined.add(created);
      if (existing === undefined) {
        const array = [created];
        this.tableArrays.add(array);
        table[last] = array;
      } else if (Array.isArray(existing) && this.tableArrays.has(existing)) existing.push(created);
      else this.fail(`"${keys.join('.')}" is already defined and is not an array of tables`);
      return created;
    }
    if (existing === undefined) {
      const created: TomlTable = (table[last] = {});
      this.headerDefined.add(created);
      return created;
    }
    if (!this.isTable(existing) || this.sealed.has(existing) || this.headerDefined.has(existing) || this.dottedCreated.has(existing)) {
      this.fail(`table "${keys.join('.')}" is defined twice`);
    }
    this.headerDefined.add(existing);
    return existing;
  }

  private keyValue(table: TomlTable): void {
    const keys = this.key();
    if (this.text[this.pos] !== '=') this.fail(`expected "=" after the key "${keys.join('.')}"`);
    this.pos++;
    this.skipSpaces();
    const value = this.value();
    this.assign(table, keys, value);
  }

  private assign(table: TomlTable, keys: string[], value: unknown): void {
    let target = table;
    for (const part of keys.slice(0, -1)) {
      const next: unknown = target[part];
      if (next === undefined) {
        const created: TomlTable = (target[part] = {});
        this.dottedCreated.add(created);
        target = created;
      } else if (this.isTable(next) && this.dottedCreated.has(next) && !this.sealed.has(next)) target = next;
      else this.fail(`"${keys.join('.')}": "${part}" is already defined`);
    }
    const last = keys[keys.length - 1] as string;
    if (Object.prototype.hasOwnProperty.call(target, last)) this.fail(`duplicate key "${keys.join('.')}"`);
    target[last] = value;
  }

  private value(): unknown {
    const c = this.text[this.pos];
    if (c === undefined || c === '\n' || c === '\r' || c === '#') this.fail('expected a value');
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    for (const [word, value] of [['true', true], ['false', false]] as const) {
      if (this.text.startsWith(word, this.pos) && this.delimited(this.pos + word.length)) {
        this.pos += word.length;
        return value;
      }
    }
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(this.text.slice(this.pos, this.pos + 10))) this.fail('dates and times are not in the supported subset');
    const match = NUMBER.exec(this.text.slice(this.pos));
    if (!match || !this.delimited(this.pos + match[0].length)) this.fail(`cannot read a value at "${this.text.slice(this.pos, this.pos + 12)}"`);
    this.pos += match[0].length;
    const raw = match[0].replace(/_/g, '');
    const unsigned = raw.replace(/^[+-]/, '');
    const sign = raw.startsWith('-') ? -1 : 1;
    if (unsigned === 'inf') return sign * Infinity;
    if (unsigned === 'nan') return NaN;
    if (/^0[xob]/.test(unsigned)) return sign * Number.parseInt(unsigned.slice(2), unsigned[1] === 'x' ? 16 : unsigned[1] === 'o' ? 8 : 2);
    return Number(raw);
  }

  private delimited(at: number): boolean {
    const c = this.text[at];
    return c === undefined || /[\s,\]}#]/.test(c);
  }

  private basicString(): string {
    if (this.text.startsWith('"""', this.pos)) this.fail('multi-line strings are not in the supported subset');
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined || c === '\n' || c === '\r') this.fail('unterminated string');
      this.pos++;
      if (c === '"') return out;
      if (c !== '\\') {
        const code = c.charCodeAt(0);
        if ((code < 0x20 && code !== 0x09) || code === 0x7f) this.fail('control character in a string');
        out += c;
        continue;
      }
      const e = this.text[this.pos++];
      const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'u' || e === 'U') {
        const length = e === 'u' ? 4 : 8;
        const hex = this.text.slice(this.pos, this.pos + length);
        const code = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === length ? Number.parseInt(hex, 16) : -1;
        if (code < 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`bad escape \\${e}${hex}`);
        out += String.fromCodePoint(code);
        this.pos += length;
      } else this.fail(`bad escape \\${e ?? ''}`);
    }
  }

  private literalString(): string {
    if (this.text.startsWith("'''", this.pos)) this.fail('multi-line strings are not in the supported subset');
    const end = this.text.indexOf("'", this.pos + 1);
    const newline = this.text.indexOf('\n', this.pos);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail('unterminated string');
    const content = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return content;
  }

  private array(): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    for (;;) {
      this.skipArraySpace();
      if (this.text[this.pos] === ']') break;
      out.push(this.value());
      this.skipArraySpace();
      if (this.text[this.pos] === ',') this.pos++;
      else if (this.text[this.pos] !== ']') this.fail('expected "," or "]" in an array');
    }
    this.pos++;
    this.sealed.add(out);
    return out;
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const table: TomlTable = {};
    this.skipSpaces();
    if (this.text[this.pos] === '}') {
      this.pos++;
      this.sealed.add(table);
      return table;
    }
    for (;;) {
      const keys = this.key();
      if (this.text[this.pos] !== '=') this.fail(`expected "=" after the key "${keys.join('.')}"`);
      this.pos++;
      this.skipSpaces();
      this.assign(table, keys, this.value());
      this.skipSpaces();
      const c = this.text[this.pos++];
      if (c === '}') break;
      this.skipSpaces();
      if (c !== ',' || this.text[this.pos] === '}') this.fail('expected "," or "}" in an inline table (inline tables are one line, without a trailing comma)');
    }
    this.sealed.add(table);
    return table;
  }
}

/** Parses TOML text into plain objects; throws `TomlError` naming the line on anything invalid or outside the subset. */
export function parseToml(text: string): TomlTable {
  return new TomlParser(text).parse();
}

// ---------------------------------------------------------------------------------------------------------------
// Protocol names in client files.

export type NameKind = 'method' | 'command' | 'setting';

export interface NameUse {
  name: string;
  kind: NameKind;
  line: number;
  known: boolean;
}

/**
 * `assistant/<method>` or `assistant.<name>[.<name>…]`, not preceded by a word character or by `.`, `/`, `-`, `$`
 * or `@`: so `.assistant/trace` (a directory), `x/assistant/y` (a URL), `assistant-ls` and `assistantLs.*` (the VS
 * Code extension's own ids) are not protocol names.
 */
const NAME = /(?<![\w$@./-])assistant(?:\/[A-Za-z]+|(?:\.[A-Za-z]+)+)/g;

/** In these files only string literals are read, so `assistant.start()` on a variable is not taken for a name. */
const STRING_LITERALS: Record<string, RegExp> = {
  '.ts': /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g,
  '.lua': /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g,
};
for (const ext of ['.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']) STRING_LITERALS[ext] = STRING_LITERALS['.ts'] as RegExp;

let settingsPathsCache: Set<string> | undefined;

/**
 * Every settings path, `assistant.<key>[.<key>…]`, read from the declaration in protocol/: optional keys such as
 * `user.name` count, and so do the fields of a list's items (`assistant.agents.model`) and a map's keys
 * (`assistant.agents.prompts.document`).
 */
export function settingsPaths(): Set<string> {
  if (settingsPathsCache) return settingsPathsCache;
  const paths = new Set<string>();
  const walk = (setting: Setting, prefix: string): void => {
    if (setting.kind === 'object') {
      for (const [key, field] of Object.entries(setting.fields)) {
        paths.add(`${prefix}.${key}`);
        walk(field, `${prefix}.${key}`);
      }
    } else if (setting.kind === 'list') walk(setting.item, prefix);
    else if (setting.kind === 'map') for (const key of setting.keys) paths.add(`${prefix}.${key}`);
  };
  walk(SETTINGS, SETTINGS_SECTION);
  settingsPathsCache = paths;
  return paths;
}

/**
 * Whether a name is a method, a command or a setting, and whether protocol/ declares it. `assistant.<settings key>…`
 * and any name with two dots are settings paths; other `assistant.<name>` are command ids.
 */
export function classifyName(name: string): { kind: NameKind; known: boolean } {
  if (name.startsWith(`${SETTINGS_SECTION}/`)) return { kind: 'method', known: CUSTOM_METHODS.includes(name) };
  const segments = name.split('.');
  const top = segments[1] as string;
  if (segments.length > 2 || Object.prototype.hasOwnProperty.call(DEFAULT_SETTINGS, top) || settingsPaths().has(`${SETTINGS_SECTION}.${top}`)) {
    return { kind: 'setting', known: settingsPaths().has(name) };
  }
  return { kind: 'command', known: ALL_COMMANDS.includes(name) };
}

/** A quoted name right after `require`, `import(` or `from` is a module name (Lua's `require('assistant.ui')`). */
const MODULE_SPECIFIER = /(?:\brequire\s*\(?|\bimport\s*\(|\bfrom)\s*["'`]$/;

/** The protocol-looking names in a file's text; in code files, only those inside string literals. */
export function findNames(text: string, fileName: string): NameUse[] {
  const literals = STRING_LITERALS[path.extname(fileName).toLowerCase()];
  const spans: [number, number][] = literals ? [...text.matchAll(literals)].map((m) => [m.index, m.index + m[0].length]) : [];
  const uses: NameUse[] = [];
  for (const match of text.matchAll(NAME)) {
    const at = match.index;
    if (literals && !spans.some(([start, end]) => at > start && at < end)) continue;
    if (MODULE_SPECIFIER.test(text.slice(Math.max(0, at - 40), at))) continue;
    uses.push({ name: match[0], line: text.slice(0, at).split('\n').length, ...classifyName(match[0]) });
  }
  return uses;
}
