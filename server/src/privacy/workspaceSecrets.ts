// Values a workspace keeps from models wherever they turn up: its .env values, and the literals of ignored files a document imports.
import fs from 'node:fs';
import path from 'node:path';
import type { Workspace } from '../workspace/workspace.js';
import type { FileEvent } from '../workspace/workspaceFiles.js';
import { looksRandom, secretKeyKind } from './secrets.js';

/** Files larger than this are not read for values: a .env or a config module is small. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_VALUES = 500;

/**
 * The values of a .env file worth hiding: every value of a secret-named key, and any value that looks like a
 * credential; `NODE_ENV=development` or `PORT=3000` are left alone, since hiding them everywhere would only blur prompts.
 */
export function dotenvValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1] as string;
    let value = (match[2] as string).trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.lastIndexOf(quote) > 0) value = value.slice(1, value.lastIndexOf(quote));
    else value = value.replace(/(?<!\s)\s+#.*$/, '');
    if (value.length < 4 || /^\$\{?\w+\}?$/.test(value)) continue;
    const named = secretKeyKind(key) !== undefined;
    const credentialLike = value.length >= 8 && ((/\d/.test(value) && /[A-Za-z]/.test(value)) || looksRandom(value));
    if (named || credentialLike) values.set(value, 'dotenv');
    // A value with spaces may reach a prompt one word at a time; its distinctive words are hidden too.
    for (const word of value.split(/\s+/)) if (word !== value && word.length >= 8 && /\d/.test(word) && /[A-Za-z]/.test(word)) values.set(word, 'dotenv');
  }
  return values;
}

/** String literals of an ignored source or JSON file (at least 8 characters, not a path or URL). */
export function literalValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  const literal = /(["'`])((?:(?!\1)[^\\\n]|\\.){8,}?)\1/g;
  for (const match of text.matchAll(literal)) {
    const value = match[2] as string;
    if (value.includes('${') || /^(?:\.{1,2}\/|\/|[a-z][a-z0-9+.-]*:\/\/|node:|@[\w-]+\/)/i.test(value) || value === 'use strict') continue;
    values.set(value, 'ignored-file');
    if (values.size >= MAX_VALUES) break;
  }
  return values;
}

/** What a relative specifier's quote follows: `from`, `import` or `import(`, `require(`. */
const IMPORT_KEYWORD = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)$/;
/** How far before its quote a specifier's keyword is looked for (the white space between them included). */
const KEYWORD_REACH = 200;
const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json', '/index.ts', '/index.tsx', '/index.js'];

const RESOLVED_SPECIFIERS = 2_000;
const RESOLVED_IMPORTS_TTL_MS = 5_000;

/**
 * The relative specifiers a text imports (`from './x'`, `import('../y')`, `require('./z')`), in order. The text is
 * searched for `./` natively and only the places found are read: a pattern run over a 900 KB file took 0.9 ms, the
 * search 0.27 ms (each model request about a document asks).
 */
export function relativeSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf('./'); at >= 0; at = text.indexOf('./', at + 2)) {
    // `'./` or `'../`: the quote just before the dots.
    const quoteAt = text.charCodeAt(at - 1) === 46 /* . */ ? at - 2 : at - 1;
    const quote = text.charCodeAt(quoteAt);
    if (quote !== 34 /* " */ && quote !== 39 /* ' */) continue;
    // The specifier runs to the next quote of either kind, on its line, and has something after its slash.
    let end = at + 2;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      if (c === 34 || c === 39 || c === 10) break;
      end++;
    }
    if (end === at + 2 || end >= text.length || text.charCodeAt(end) === 10) continue;
    if (!IMPORT_KEYWORD.test(text.slice(Math.max(0, quoteAt - KEYWORD_REACH), quoteAt))) continue;
    found.push(text.slice(quoteAt + 1, end));
  }
  return found;
}

function isFile(candidate: string): boolean {
  try {
    // Most candidates do not exist: `throwIfNoEntry` spares building an exception for each.
    return fs.statSync(candidate, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false; // a file where a folder was expected (ENOTDIR), or no permission
  }
}

/**
 * Values to redact from every message about a document, wherever they appear: the values of the .env files in the
 * workspace root and in each folder down to the document, and the string literals of the ignored or secret files
 * the document imports (which the type checker or a test run could otherwise quote).
 */
export function protectedValues(workspace: Workspace, document?: { fsPath?: string; text: string }): Map<string, string> {
  return workspace.secrets.protectedValues(document);
}

/**
 * What one workspace (its `Workspace.secrets`) keeps to answer `protectedValues` quickly: the values read from each
 * file, by the file's text, and recent resolutions of relative imports. Its file events drop them.
 */
export class WorkspaceSecrets {
  /** Values of a file by path, valid while the file's text (the workspace's disk text, so usually the same string) is the one they were read from. */
  private readonly read = new Map<string, { text: string; values: Map<string, string> }>();
  /**
   * Recent resolutions of one specifier from one folder, for a few seconds: every model request about a document
   * asks again, and each costs a dozen stats. Only found files are kept: a file created for an import just written
   * is read at once.
   */
  private readonly resolved = new Map<string, { at: number; file: string }>();

  constructor(private readonly workspace: Workspace) {}

  /** Files came, changed or went: what was read from them goes, and an import may resolve elsewhere now. */
  filesChanged(events: readonly FileEvent[]): void {
    for (const event of events) this.read.delete(event.fsPath);
    if (events.some((event) => event.type !== 'changed')) this.resolved.clear();
  }

  protectedValues(document?: { fsPath?: string; text: string }): Map<string, string> {
    const values = new Map<string, string>();
    const add = (found: Map<string, string>): void => {
      for (const [value, kind] of found) if (values.size < MAX_VALUES) values.set(value, kind);
    };
    const resolvedRoot = this.workspace.root;
    const folders = [resolvedRoot];
    if (document?.fsPath) {
      const relative = path.relative(resolvedRoot, path.dirname(document.fsPath));
      if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) {
        let folder = resolvedRoot;
        for (const part of relative.split(path.sep)) folders.push((folder = path.join(folder, part)));
      }
    }
    for (const folder of folders) {
      let names: string[];
      try {
        names = fs.readdirSync(folder).filter((name) => name.startsWith('.env'));
      } catch {
        continue;
      }
      for (const name of names) add(this.valuesOf(path.join(folder, name), dotenvValues));
    }
    if (document?.fsPath) {
      const exclusion = this.workspace.exclusion.view();
      for (const file of this.importedFiles(document.fsPath, document.text)) {
        if (exclusion.check(file)) add(this.valuesOf(file, file.endsWith('.env') ? dotenvValues : literalValues));
      }
    }
    return values;
  }

  private valuesOf(file: string, parse: (text: string) => Map<string, string>): Map<string, string> {
    const text = this.workspace.disk.text(file, MAX_FILE_BYTES);
    if (text === undefined) {
      this.read.delete(file);
      return new Map();
    }
    const cached = this.read.get(file);
    if (cached?.text === text) return cached.values;
    let values: Map<string, string>;
    try {
      values = parse(text);
    } catch {
      values = new Map();
    }
    this.read.delete(file);
    this.read.set(file, { text, values });
    if (this.read.size > 200) this.read.delete(this.read.keys().next().value as string);
    return values;
  }

  /** The files a document's relative imports resolve to (ESM `.js` specifiers find their `.ts` sources too). */
  /** The files a document's relative imports resolve to (ESM `.js` specifiers find their `.ts` sources too). */
  importedFiles(fsPath: string, text: string): string[] {
    const now = Date.now();
    const files = new Set<string>();
    const folder = path.dirname(fsPath);
    for (const specifier of relativeSpecifiers(text)) {
      const found = this.resolveImport(folder, specifier, now);
      if (found) files.add(found);
      if (files.size >= 50) break;
    }
    return [...files];
  }

  private resolveImport(folder: string, specifier: string, now: number): string | undefined {
    const key = `${folder}\0${specifier}`;
    const cached = this.resolved.get(key);
    if (cached && now - cached.at < RESOLVED_IMPORTS_TTL_MS) return cached.file;
    const base = path.resolve(folder, specifier);
    let file: string | undefined;
    for (const stem of [base, base.replace(/\.(c|m)?jsx?$/, '')]) {
      file = EXTENSIONS.map((extension) => stem + extension).find(isFile);
      if (file) break;
    }
    this.resolved.delete(key);
    if (file === undefined) return undefined;
    this.resolved.set(key, { at: now, file });
    if (this.resolved.size > RESOLVED_SPECIFIERS) this.resolved.delete(this.resolved.keys().next().value as string);
    return file;
  }
}
