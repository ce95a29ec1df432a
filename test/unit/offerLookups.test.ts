// Unit tests for the lookups a code-action request makes for its offers: its document's path, the top-level statement around a range, the function a declaration names, and a body's length.
import { describe, expect, it } from 'vitest';
import { ts } from 'ts-morph';
import { topLevelStatementAround } from '../../server/src/repo/declarations.js';
import { functionIn } from '../../server/src/tasks/generateTask.js';
import { optimizeTask } from '../../server/src/tasks/optimizeTask.js';
import { uriToPath } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

/** Statements on shared lines, doc and line comments, blank lines, a statement at the very start, CRLF lines. */
const TEXT = [
  'const a = 1; export function b() { return a; }',
  '/** Doc of c. */',
  'export class C {',
  '  /** A method. */',
  '  m(): number {',
  '    const inner = () => {',
  '      return 2;',
  '    };',
  '    return inner();',
  '  }',
  '}',
  '',
  '// A line comment above d.',
  'export const d = (x: number): number => {',
  '  return x * 2;',
  '};\r',
  'interface E { f(): void }\r',
  '',
  '',
  'function g(): void {}; function h() {',
  '  return 1;',
  '}',
  '',
].join('\n');

const parse = (text: string): ts.SourceFile => ts.createSourceFile('t.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** What `topLevelStatementAround` replaced: every statement looked at in turn, the first whose lines hold the range. */
function statementByScan(source: ts.SourceFile, start: number, end: number): ts.Statement | undefined {
  for (const statement of source.statements) {
    let first = statement.getStart(source, true);
    while (first > 0 && source.text[first - 1] !== '\n') first--;
    if (start < first || end > statement.getEnd()) continue;
    return statement;
  }
  return undefined;
}

/** What `functionIn` did before it read `pos` first: the same walk, each node's code start found by scanning. */
function functionByScan(source: ts.SourceFile, start: number, end: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (found || node.getEnd() <= start || node.getStart(source) >= end) return;
    const fn = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);
    if (fn && node.body !== undefined && ts.isBlock(node.body) && node.getStart(source) >= start && node.getEnd() <= end) {
      found = node;
      return;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** Every range of a text whose ends fall on a step of `step` characters (and the text's end). */
function ranges(text: string, step: number): [number, number][] {
  const points: number[] = [];
  for (let at = 0; at < text.length; at += step) points.push(at);
  points.push(text.length);
  return points.flatMap((start) => points.filter((end) => end >= start).map((end): [number, number] => [start, end]));
}

describe('the top-level statement around a range', () => {
  it('is the statement a scan of every statement finds, for every range', () => {
    for (const text of [TEXT, `\n${TEXT}`, '', '\n\n', 'x;', '/** only a comment */\n']) {
      const source = parse(text);
      for (const [start, end] of ranges(text, text.length > 100 ? 3 : 1)) {
        expect(topLevelStatementAround(source, start, end), `${JSON.stringify(text.slice(0, 20))} [${start}, ${end}]`).toBe(statementByScan(source, start, end));
      }
    }
  });

  it('holds its doc comment and a line it shares with an earlier statement, not a line comment above it', () => {
    const source = parse(TEXT);
    const named = (name: string): ts.Statement | undefined => topLevelStatementAround(source, TEXT.indexOf(name), TEXT.indexOf(name));
    expect(named('/** Doc of c')?.getText(source)).toMatch(/^export class C/);
    expect(named('function b')?.getText(source)).toMatch(/^export function b/);
    expect(named('// A line comment')).toBeUndefined();
    expect(named('(x: number)')?.getText(source)).toMatch(/^export const d/);
    expect(named('function h')?.getText(source)).toMatch(/^function h/);
    // A blank line between two statements is in neither's lines.
    expect(topLevelStatementAround(source, TEXT.indexOf('\n\n\nfunction g') + 1, TEXT.indexOf('\n\n\nfunction g') + 1)).toBeUndefined();
  });
});

describe('the function a declaration names', () => {
  it('is the node the walk without positions first finds, for every range', () => {
    const source = parse(TEXT);
    for (const [start, end] of ranges(TEXT, 4)) {
      expect(functionIn(source, start, end), `[${start}, ${end}]`).toBe(functionByScan(source, start, end));
    }
  });
});

describe('Optimize: a body worth rewriting', () => {
  const text = ['function two(): number {', '  return 1; }', '', 'function three(): number {', '  return 1;', '}', '', 'function crlf(): number {\r', '  return 1;\r', '}\r', ''].join('\n');
  const document: DocumentSnapshot = { uri: 'file:///ws/src/lines.ts', fsPath: '/ws/src/lines.ts', languageId: 'typescript', version: 1, text };
  const offered = (name: string): string[] => optimizeTask.offersAt({ document, start: text.indexOf(name), end: text.indexOf(name), diagnostics: [] }).map((o) => o.title);

  it('spans three lines or more, counted from the body’s brace to its end', () => {
    expect(offered('two')).toEqual([]);
    expect(offered('three')).toEqual(['Assistant: Optimize function three']);
    expect(offered('crlf')).toEqual(['Assistant: Optimize function crlf']);
  });
});

describe("a document's path from its URI", () => {
  it('is each URI’s own when URIs alternate or repeat, and undefined for one that names no local file', () => {
    const asked = ['file:///ws/a%20b.ts', 'file:///ws/c.ts', 'file:///ws/a%20b.ts', 'file:///ws/a%20b.ts', 'file://server/share/x.ts', 'file://server/share/x.ts', 'untitled:Untitled-1', 'file:///ws/c.ts'];
    expect(asked.map(uriToPath)).toEqual(['/ws/a b.ts', '/ws/c.ts', '/ws/a b.ts', '/ws/a b.ts', undefined, undefined, undefined, '/ws/c.ts']);
  });
});
