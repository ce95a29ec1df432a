// Unit tests for the harness's metrics and case selection: doc format correctness, syntax, which diagnostics are cases, generated and minified files.
import { describe, expect, it } from 'vitest';
import { Project, ts } from 'ts-morph';
import { checkDocFormat, syntaxErrors } from '../../server/src/eval/docFormat.js';
import { coverageProblems, signatureFacts } from '../../server/src/repo/docCoverage.js';
import type { SignatureFacts } from '../../server/src/repo/docCoverage.js';
import { withoutOwnDoc } from '../../server/src/eval/docScenario.js';
import { excludedDiagnostic } from '../../server/src/eval/diagnosticFilter.js';
import { isImportRule } from '../../server/src/eval/eslintRunner.js';
import { isGenerated, isMinified } from '../../server/src/workspace/generatedFiles.js';
import { listDeclarations } from '../../server/src/repo/declarations.js';
import type { DeclarationTarget } from '../../server/src/repo/declarations.js';

let fileCounter = 0;

/** The declaration `name` of `code`, with its signature facts from a real checker. */
function caseOf(code: string, name: string): { fileName: string; text: string; target: DeclarationTarget; facts: SignatureFacts } {
  const fileName = `/work/case${fileCounter++}.ts`;
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'] } });
  const sourceFile = project.createSourceFile(fileName, code);
  const checker = project.getProgram().compilerObject.getTypeChecker();
  const target = listDeclarations(fileName, code).find((d) => d.name === name);
  if (!target) throw new Error(`no declaration ${name}`);
  const facts = signatureFacts(sourceFile.compilerNode, target, checker);
  if (!facts) throw new Error(`no facts for ${name}`);
  return { fileName, text: code, target, facts };
}

/** The case's text with `comment` inserted above the declaration, indented like it. */
function documented(c: { text: string; target: DeclarationTarget }, comment: string): string {
  const indented = comment
    .split('\n')
    .map((line) => c.target.indent + line)
    .join('\n');
  return `${c.text.slice(0, c.target.lineStart)}${indented}\n${c.text.slice(c.target.lineStart)}`;
}

function verdict(c: ReturnType<typeof caseOf>, after: string): ReturnType<typeof checkDocFormat> {
  return checkDocFormat({ fileName: c.fileName, before: c.text, after, target: { kind: c.target.kind, simpleName: c.target.simpleName, start: c.target.start }, facts: c.facts });
}

const ADD = 'export function add(a: number, b: number): number {\n  const sum = a + b;\n  return sum;\n}\n';

describe('doc format correctness', () => {
  it('passes a comment with a description, every @param and @returns, inserted above the function', () => {
    const c = caseOf(ADD, 'add');
    const result = verdict(c, documented(c, '/**\n * Adds two numbers.\n *\n * @param a - The first.\n * @param b - The second.\n * @returns The sum.\n */'));
    expect(result).toMatchObject({ placed: true, correct: true, problems: [] });
  });

  it('names what is missing: a parameter, the return, the description', () => {
    const c = caseOf(ADD, 'add');
    expect(verdict(c, documented(c, '/**\n * Adds.\n * @param a - The first.\n * @returns The sum.\n */')).problems).toEqual(['no @param for b']);
    expect(verdict(c, documented(c, '/**\n * Adds.\n * @param a - The first.\n * @param b - The second.\n */')).problems).toEqual(['no @returns']);
    expect(verdict(c, documented(c, '/**\n * @param a - The first.\n * @param b - The second.\n * @returns The sum.\n */')).problems).toEqual(['no description']);
    expect(verdict(c, documented(c, '/**\n * Adds.\n * @param a\n * @param b - The second.\n * @param c - Extra.\n * @returns The sum.\n */')).problems).toEqual(['the @param for a says nothing', '@param c names no parameter']);
  });

  it('fails a comment that comes with changed code or sits on another declaration', () => {
    const c = caseOf(ADD, 'add');
    const good = documented(c, '/**\n * Adds.\n * @param a - A.\n * @param b - B.\n * @returns The sum.\n */');
    expect(verdict(c, good.replace('const sum', 'let sum'))).toMatchObject({ placed: false, correct: false, problems: ['the code was changed, not only documented'] });
    const two = caseOf(`${ADD}\nexport function other(): void {\n  add(1, 2);\n  add(3, 4);\n}\n`, 'other');
    const onAdd = documented({ text: two.text, target: listDeclarations(two.fileName, two.text)[0]! }, '/** Adds. */');
    expect(verdict(two, onAdd)).toMatchObject({ placed: false, correct: false });
    expect(verdict(c, c.text)).toMatchObject({ correct: false, problems: ['nothing was inserted'] });
    // Code inserted with the comment is a change of the code.
    expect(verdict(c, documented(c, '/** Adds. @param a - A. @param b - B. @returns Sum. */\nconst x = 1;'))).toMatchObject({ placed: false, correct: false });
  });

  it('requires @returns only when something is returned', () => {
    const cases = [
      ['export function log(m: string): void {\n  if (m) {\n    m.trim();\n  }\n}\n', 'log', false],
      ['export async function save(m: string): Promise<void> {\n  await Promise.resolve(m);\n  return;\n}\n', 'save', false],
      ['export function fail(m: string): never {\n  const e = new Error(m);\n  throw e;\n}\n', 'fail', false],
      ['export function nothing(m: string) {\n  if (m) return undefined;\n  return null;\n}\n', 'nothing', false],
      ['export async function load(m: string) {\n  await Promise.resolve();\n  return m.length;\n}\n', 'load', true],
      ['export function* ids(n: number) {\n  for (let i = 0; i < n; i++) {\n    yield i;\n  }\n}\n', 'ids', true],
    ] as const;
    for (const [code, name, returns] of cases) expect(caseOf(code, name).facts.returnsValue, name).toBe(returns);
    const generator = caseOf(cases[5][0], 'ids');
    expect(verdict(generator, documented(generator, '/**\n * Counts.\n * @param n - How many.\n * @yields The next id.\n */')).correct).toBe(true);
  });

  it('accepts destructured parameters under any name, as root0 with properties, or through property tags alone', () => {
    const c = caseOf('export function area({ width, height }: { width: number; height: number }, scale = 1): number {\n  const raw = width * height;\n  return raw * scale;\n}\n', 'area');
    expect(c.facts.parameters).toEqual([{ rest: false }, { name: 'scale', rest: false }]);
    const ok = (comment: string): string[] => verdict(c, documented(c, comment)).problems;
    expect(ok('/**\n * Area.\n * @param root0 - The size.\n * @param root0.width - W.\n * @param root0.height - H.\n * @param scale - S.\n * @returns A.\n */')).toEqual([]);
    expect(ok('/**\n * Area.\n * @param size - The size.\n * @param scale - S.\n * @returns A.\n */')).toEqual([]);
    expect(ok('/**\n * Area.\n * @param size.width - W.\n * @param size.height - H.\n * @param scale - S.\n * @returns A.\n */')).toEqual([]);
    expect(ok('/**\n * Area.\n * @param scale - S.\n * @returns A.\n */')).toEqual(['no @param for the destructured parameter at position 1']);
    expect(ok('/**\n * Area.\n * @param size - The size.\n * @param scale - S.\n * @param other.x - X.\n * @returns A.\n */')).toEqual(['@param other.x names no parameter']);
  });

  it('accepts rest parameters written with or without the dots, ignores `this`, needs nothing for constructors and setters beyond parameters', () => {
    const rest = caseOf('export function join(this: unknown, sep: string, ...parts: string[]): string {\n  const kept = parts.filter(Boolean);\n  return kept.join(sep);\n}\n', 'join');
    expect(rest.facts.parameters.map((p) => p.name)).toEqual(['sep', 'parts']);
    expect(coverageProblems('/**\n * Joins.\n * @param sep - S.\n * @param ...parts - P.\n * @returns J.\n */', rest.facts)).toEqual([]);
    expect(coverageProblems('/**\n * Joins.\n * @param {string} sep S.\n * @param {...string} [parts] P.\n * @return {string} J.\n */', rest.facts)).toEqual([]);
    const klass = caseOf('export class Box {\n  private v = 0;\n  constructor(\n    value: number,\n  ) {\n    this.v = value;\n  }\n  set value(next: number) {\n    this.v = next;\n    this.v += 0;\n  }\n}\n', 'Box.constructor');
    expect(klass.facts).toEqual({ parameters: [{ name: 'value', rest: false }], returnsValue: false, generator: false });
    expect(verdict(klass, documented(klass, '/**\n * Creates a box.\n * @param value - The value.\n */')).correct).toBe(true);
  });

  it('reports syntax errors of a file and none for valid code', () => {
    expect(syntaxErrors('/a.ts', ADD)).toEqual([]);
    expect(syntaxErrors('/a.tsx', 'export const A = () => <div>{1}</div>;\n')).toEqual([]);
    expect(syntaxErrors('/a.ts', 'export function f( {\n')[0]).toMatch(/^TS\d+: /);
    // A type error is not a syntax error.
    expect(syntaxErrors('/a.ts', 'const n: number = "x";\n')).toEqual([]);
  });
});

describe('doc cases', () => {
  it('removes the target’s own doc comment, on its own lines or on the declaration’s line', () => {
    const text = 'const a = 1;\n\n  /**\n   * Old.\n   */\n  function f(x: number) {\n    return x;\n  }\n/** Inline. */ function g() {\n  return 1;\n}\n';
    const [f, g] = listDeclarations('/d.ts', text).filter((d) => d.kind === 'function');
    const strippedF = withoutOwnDoc('/d.ts', text, f!)!;
    expect(strippedF.text).toBe('const a = 1;\n\n  function f(x: number) {\n    return x;\n  }\n/** Inline. */ function g() {\n  return 1;\n}\n');
    expect(strippedF.declaration).toMatchObject({ simpleName: 'f', start: strippedF.text.indexOf('function f') });
    expect(strippedF.declaration.existingDoc).toBeUndefined();
    const strippedG = withoutOwnDoc('/d.ts', text, g!)!;
    expect(strippedG.text.endsWith('}\nfunction g() {\n  return 1;\n}\n')).toBe(true);
  });

  it('recognises generated and minified files', () => {
    expect(isGenerated('// Code generated by protoc-gen-ts. DO NOT EDIT.\nexport {}')).toBe(true);
    expect(isGenerated('/* @generated */\n')).toBe(true);
    expect(isGenerated('// Generates reports.\nexport function generate() {}\n')).toBe(false);
    expect(isMinified(`${'function a(b){return b+1}'.repeat(60)}\n`)).toBe(true);
    expect(isMinified(`${'export function a(b: number): number {\n  return b + 1;\n}\n'.repeat(30)}`)).toBe(false);
  });
});

describe('fix cases', () => {
  const diagnostic = (code: number, start = 0): { start: number; end: number; message: string; code: number } => ({ start, end: start + 1, message: 'm', code });

  it('leaves out import and configuration diagnostics, keeps errors in the code', () => {
    const text = "import { x } from './x.js';\nconst n: number = 'a';\nconsole.log(n, x);\n";
    expect(excludedDiagnostic(diagnostic(2307, 20), '/f.ts', text)).toBe('import');
    expect(excludedDiagnostic(diagnostic(2724, 9), '/f.ts', text)).toBe('import');
    expect(excludedDiagnostic(diagnostic(2584, text.indexOf('console')), '/f.ts', text)).toBe('configuration');
    expect(excludedDiagnostic(diagnostic(5023), '/f.ts', text)).toBe('configuration');
    expect(excludedDiagnostic(diagnostic(6046), '/f.ts', text)).toBe('configuration');
    // An unused import is about the import declaration: out. An unused local is about the code: in.
    expect(excludedDiagnostic(diagnostic(6133, 9), '/f.ts', text)).toBe('import');
    expect(excludedDiagnostic(diagnostic(6133, text.indexOf('n:')), '/f.ts', text)).toBeUndefined();
    expect(excludedDiagnostic(diagnostic(2322, text.indexOf('n:')), '/f.ts', text)).toBeUndefined();
    expect(excludedDiagnostic({ ...diagnostic(2304), code: 'TS2304' as unknown as number, start: text.indexOf('console') }, '/f.ts', text)).toBeUndefined();
  });

  it('treats ESLint rules about imports and modules as import problems', () => {
    for (const rule of ['import/no-unresolved', 'n/no-missing-import', '@typescript-eslint/consistent-type-imports', 'no-restricted-imports', '@typescript-eslint/no-require-imports', '@typescript-eslint/no-var-requires', 'import-x/order']) expect(isImportRule(rule), rule).toBe(true);
    for (const rule of ['prefer-const', 'eqeqeq', '@typescript-eslint/no-unused-vars', 'no-console', '@typescript-eslint/no-floating-promises']) expect(isImportRule(rule), rule).toBe(false);
  });
});
