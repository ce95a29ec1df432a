// Unit tests of rename over the TypeScript project: locations across files (aliases, shorthand properties, members) and the checks of a new name.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { checkNameSyntax, isIdentifierName, planRename, prepareRename, styleOf, toStyle } from '../../server/src/repo/renameSymbol.js';
import type { PreparedRename } from '../../server/src/repo/renameSymbol.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import type { Proposal } from '../../server/src/edits/proposal.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

let root: string;
let project: WorkspaceProject;
const signal = new AbortController().signal;

beforeAll(() => {
  root = copyFixture('rename');
  project = new WorkspaceProject(root);
});

function document(relative: string, text?: string, version: number | null = 4): DocumentSnapshot {
  const fsPath = path.join(root, relative);
  return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version, text: text ?? fs.readFileSync(fsPath, 'utf8') };
}

function prepared(relative: string, needle: string, delta = 0): PreparedRename {
  const doc = document(relative);
  const result = prepareRename(project, doc, doc.text.indexOf(needle) + delta, signal);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

/** Each file of a proposal as it reads after the edits, by workspace-relative path. */
function applied(proposal: Proposal): Record<string, string> {
  return Object.fromEntries(proposal.documents.map((d) => [path.relative(root, new URL(d.uri).pathname), applyOffsetEdits(d.baseText, d.edits)]));
}

describe('names without a program', () => {
  it('accepts Unicode identifiers and refuses what is not one', () => {
    expect(isIdentifierName('größe')).toBe(true);
    expect(isIdentifierName('naïveClamp')).toBe(true);
    expect(isIdentifierName('值')).toBe(true);
    expect(isIdentifierName('$el_2')).toBe(true);
    expect(isIdentifierName('2fast')).toBe(false);
    expect(isIdentifierName('clamp-values')).toBe(false);
    expect(isIdentifierName('clamp values')).toBe(false);
    expect(isIdentifierName('')).toBe(false);
  });

  it('tells conventions apart and rewrites names in them', () => {
    expect(styleOf('clampAll')).toBe('camelCase');
    expect(styleOf('Range')).toBe('PascalCase');
    expect(styleOf('MAX_ITEMS')).toBe('UPPER_CASE');
    expect(styleOf('read_all')).toBe('snake_case');
    expect(styleOf('_privateThing')).toBe('camelCase');
    expect(styleOf('值')).toBeUndefined();
    expect(toStyle('clamp_values', 'camelCase')).toBe('clampValues');
    expect(toStyle('clampValues', 'UPPER_CASE')).toBe('CLAMP_VALUES');
    expect(toStyle('parseHTTPResponse', 'snake_case')).toBe('parse_http_response');
  });

  it('refuses bad syntax, reserved words and other conventions with a reason', () => {
    expect(checkNameSyntax('2fast', 'clampAll', 'function')).toMatch(/not a valid identifier \(it starts with a digit\)/);
    expect(checkNameSyntax('clamp-values', 'clampAll', 'function')).toMatch(/not a valid identifier/);
    expect(checkNameSyntax('class', 'clampAll', 'function')).toBe('`class` is a reserved word in JavaScript and cannot name a function');
    expect(checkNameSyntax('let', 'clampAll', 'variable')).toMatch(/reserved word/);
    expect(checkNameSyntax('await', 'clampAll', 'function')).toMatch(/reserved word/);
    // Contextual keywords are ordinary names.
    expect(checkNameSyntax('type', 'kind', 'variable')).toBeUndefined();
    expect(checkNameSyntax('string', 'Range', 'type')).toMatch(/predefined type name/);
    expect(checkNameSyntax('clamp_values', 'clampAll', 'function')).toMatch(/naming convention of functions here \(camelCase\); for example `clampValues`/);
    expect(checkNameSyntax('interval', 'Range', 'type')).toMatch(/\(PascalCase\); for example `Interval`/);
    expect(checkNameSyntax('größe', 'size', 'variable')).toBeUndefined();
    expect(checkNameSyntax('值', 'size', 'variable')).toBeUndefined();
    // A React-style component keeps its PascalCase; an UPPER_CASE constant may stay UPPER_CASE.
    expect(checkNameSyntax('PrimaryButton', 'Button', 'function')).toBeUndefined();
    expect(checkNameSyntax('ITEM_LIMIT', 'MAX_ITEMS', 'variable')).toBeUndefined();
    expect(checkNameSyntax('clampAll', 'clampAll', 'function')).toMatch(/already has that name/);
    expect(checkNameSyntax('#count', 'count', 'property')).toMatch(/only private class members/);
  });
});

describe('rename locations', () => {
  it('renames a function in its file, through a plain import, a shorthand property and an import alias', () => {
    const rename = prepared('src/clamp.ts', 'clampAll(values');
    expect(rename).toMatchObject({ oldName: 'clampAll', category: 'function', kindLabel: 'function' });
    expect(rename.size()).toEqual({ edits: 7, files: 3 });
    const proposal = rename.proposal('clampValues');
    // The request's document first, with its version; the others as read, without one.
    expect(proposal.documents.map((d) => [path.basename(d.uri), d.version])).toEqual([['clamp.ts', 4], ['report.ts', null], ['stats.ts', null]]);
    const files = applied(proposal);
    expect(files['src/clamp.ts']).toContain('export function clampValues(values: number[], range: Range): number[] {');
    expect(files['src/clamp.ts']).toContain('return clampValues(clampValues(values, range), range);');
    expect(files['src/clamp.ts']).not.toMatch(/\bclampAll\b/);
    // The alias keeps its local name; only the imported name changes.
    expect(files['src/report.ts']).toContain("import { clampValues as clampEvery } from './clamp.js';");
    expect(files['src/report.ts']).toContain('return clampEvery(values, range)');
    expect(files['src/stats.ts']).toContain("import { clampValues } from './clamp.js';");
    expect(files['src/stats.ts']).toContain('return clampValues(values, range);');
    // The object keeps its property name: TypeScript's prefix text turns the shorthand into `name: value`.
    expect(files['src/stats.ts']).toContain('export const helpers = { clampAll: clampValues, total };');
  });

  it('finds the same locations from a use in another file', () => {
    const fromUse = prepared('src/stats.ts', 'clampAll(values');
    expect(fromUse.oldName).toBe('clampAll');
    expect(fromUse.size()).toEqual({ edits: 7, files: 3 });
    expect(fromUse.proposal('clampValues').documents[0]!.uri).toBe(document('src/stats.ts').uri);
  });

  it('renames a class property through this. and another file', () => {
    const rename = prepared('src/range.ts', 'limit =');
    expect(rename).toMatchObject({ oldName: 'limit', category: 'property', kindLabel: 'property' });
    const files = applied(rename.proposal('maxWidth'));
    expect(files['src/range.ts']).toContain('  maxWidth = 100;');
    expect(files['src/range.ts']).toContain('this.high - this.low, this.maxWidth');
    expect(files['src/report.ts']).toContain('range.maxWidth = 5;');
  });

  it('computes edits on the editor text of the document, not the disk', () => {
    const disk = document('src/clamp.ts').text;
    const edited = `// unsaved line\n${disk}`;
    const result = planRename(project, document('src/clamp.ts', edited, 9), edited.indexOf('clampAll'), 'clampValues', signal);
    if (!result.ok) throw new Error(result.reason);
    const first = result.value.proposal.documents[0]!;
    expect(first).toMatchObject({ version: 9, baseText: edited });
    expect(applyOffsetEdits(first.baseText, first.edits)).toMatch(/^\/\/ unsaved line\n/);
  });

  it('refuses symbols of the standard library with TypeScript\'s reason', () => {
    const doc = document('src/clamp.ts');
    const result = prepareRename(project, doc, doc.text.indexOf('min('), signal);
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/standard TypeScript library/) });
  });
});

describe('validation against the program', () => {
  it('accepts a fitting name', () => {
    expect(prepared('src/clamp.ts', 'clampAll').validate('clampValues')).toBeUndefined();
  });

  it('refuses a name declared in the same scope', () => {
    expect(prepared('src/clamp.ts', 'clampAll').validate('clampOne')).toBe('a function named clampOne is already visible at src/clamp.ts:5 (declared at src/clamp.ts:9)');
  });

  it('refuses a name visible where another file uses the symbol', () => {
    expect(prepared('src/clamp.ts', 'clampAll').validate('total')).toBe('a variable named total is already visible at src/stats.ts:2 (declared at src/stats.ts:5)');
  });

  it('refuses a name that a parameter shadows at a use', () => {
    expect(prepared('src/clamp.ts', 'clampAll').validate('values')).toMatch(/a variable named values is already visible at src\/clamp.ts:15/);
  });

  it('refuses a name whose existing uses would be captured', () => {
    expect(prepared('src/clamp.ts', 'clampAll').validate('isFinite')).toBe('isFinite is already used at src/clamp.ts:10 for something else; renaming would change what it refers to');
  });

  it('refuses a member name the class already has, own or inherited', () => {
    const rename = prepared('src/range.ts', 'limit =');
    expect(rename.validate('width')).toBe('width is already a member there (src/range.ts:10)');
    expect(rename.validate('toString')).toMatch(/^toString is already a member there \(lib\./);
    expect(rename.validate('Limit')).toMatch(/naming convention of properties/);
  });

  it('follows the file\'s own convention and an UPPER_CASE constant\'s', () => {
    const snake = prepared('src/legacy.ts', 'read_all');
    expect(snake.validate('load_all')).toBeUndefined();
    expect(snake.validate('loadAll')).toBeUndefined();
    expect(snake.validate('LoadAll')).toMatch(/camelCase or snake_case/);
    expect(snake.validate('close_all')).toMatch(/already visible/);
    const constant = prepared('src/legacy.ts', 'MAX_ITEMS');
    expect(constant.validate('ITEM_LIMIT')).toBeUndefined();
    expect(constant.validate('Item_limit')).toMatch(/camelCase or UPPER_CASE/);
  });

  it('refuses a class name in the wrong case', () => {
    const rename = prepared('src/range.ts', 'class Range', 6);
    expect(rename.kindLabel).toBe('class');
    expect(rename.validate('Interval')).toBeUndefined();
    expect(rename.validate('interval')).toMatch(/PascalCase/);
  });
});
