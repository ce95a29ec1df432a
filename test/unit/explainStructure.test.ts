// Unit tests of the code structure behind Explain and of the offline agent's markdown: a real fixture workspace, a real ts-morph project.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeStructure } from '../../server/src/repo/structure/codeStructure.js';
import type { CodeStructure, StructureTarget } from '../../server/src/repo/structure/codeStructure.js';
import { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { explainStructure, OfflineExplainAgent } from '../../server/src/agents/offline/explainAgent.js';
import { explainTask } from '../../server/src/tasks/explainTask.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

let root: string;
let project: WorkspaceProject;
let ws: Workspace;

beforeAll(() => {
  root = copyFixture('explain');
  ws = new Workspace(root);
  project = ws.projects.workspace;
});

/** A snapshot of a workspace file: its text on disk, or the given text as an editor buffer would hold it. */
function snapshot(relative: string, text?: string): DocumentSnapshot {
  const fsPath = path.join(root, relative);
  return { uri: pathToUri(fsPath), fsPath, languageId: relative.endsWith('.js') ? 'javascript' : 'typescript', version: 1, text: text ?? fs.readFileSync(fsPath, 'utf8') };
}

/** The target Explain offers at the first occurrence of `needle` (through `endNeedle`, for a selection). */
function targetAt(document: DocumentSnapshot, needle: string, endNeedle?: string): StructureTarget {
  const start = document.text.indexOf(needle);
  const end = endNeedle === undefined ? start : document.text.indexOf(endNeedle, start) + endNeedle.length;
  const [offer] = explainTask.offersAt({ document, start, end, diagnostics: [] });
  if (!offer) throw new Error(`nothing to explain at ${needle}`);
  return offer.target;
}

function structureAt(document: DocumentSnapshot, needle: string, endNeedle?: string, workspace = project): CodeStructure {
  return codeStructure(workspace, document, targetAt(document, needle, endNeedle));
}

describe('codeStructure of a function', () => {
  it('reads the signature, returns, documentation, branches, complexity and throws from the checker', () => {
    const s = structureAt(snapshot('src/parser.ts'), 'parseEntries(text');
    expect(s).toMatchObject({ subject: 'declaration', name: 'parseEntries', kind: 'function', file: 'src/parser.ts', line: 15, endLine: 28, modifiers: ['exported'], typed: true });
    expect(s.signature).toBe('parseEntries(text: string, strict?: boolean): Entry[]');
    expect(s.returns).toEqual({ type: 'Entry[]', points: [{ line: 27, text: 'entries' }] });
    expect(s.documentation).toEqual({ summary: 'Parses `key=value` lines into entries, skipping blank lines and `#` comments.', tags: ['@param'] });
    expect(s.branches.counts).toEqual({ loop: 1, if: 3, '||': 1 });
    expect(s.branches.complexity).toBe(6);
    expect(s.branches.sites.map((site) => [site.label, site.line])).toEqual([
      ['loop', 17],
      ['if', 19],
      ['if', 21],
      ['if', 22],
    ]);
    expect(s.throws).toEqual([{ line: 22, type: 'SyntaxError', when: 'when `strict`' }]);
  });

  it('resolves each call to its declaration: workspace code by file and line, libraries and unresolved imports as external', () => {
    const parse = structureAt(snapshot('src/parser.ts'), 'parseEntries(text');
    expect(parse.calls.find((c) => c.name === 'String.trim')).toMatchObject({ count: 3, external: 'TypeScript lib', construct: false });
    expect(parse.calls.find((c) => c.name === 'SyntaxError')).toMatchObject({ construct: true, external: 'TypeScript lib' });
    expect(parse.callSites).toBe(10);
    const load = structureAt(snapshot('src/parser.ts'), 'loadEntries(path');
    expect(load.calls).toEqual([
      { name: 'parseEntries', construct: false, count: 1, declaredAt: { file: 'src/parser.ts', line: 15 } },
      // The fixture has no @types/node: the import still says where the function comes from.
      { name: 'readFileSync', construct: false, count: 1, external: 'node:fs' },
    ]);
  });

  it('finds who calls it in files nobody opened, grouped by file and by the declaration they are in', () => {
    const s = structureAt(snapshot('src/parser.ts'), 'parseEntries(text');
    expect(s.references).toMatchObject({ total: 5, calls: 4, scope: { files: 2, truncated: false } });
    expect(s.references!.files).toEqual([
      {
        file: 'src/main.ts',
        count: 3,
        users: [
          { name: 'countKeys', lines: [5], asValue: false },
          { name: 'main', lines: [9], asValue: false },
          { lines: [14], asValue: true },
        ],
      },
      {
        file: 'src/parser.ts',
        count: 2,
        users: [
          { name: 'loadEntries', lines: [31], asValue: false },
          { name: 'EntryIndex.constructor', lines: [40], asValue: false },
        ],
      },
    ]);
  });

  it('finds callers in a file written after the first search, and forgets them when the file is deleted', () => {
    const callers = (): string[] | undefined => structureAt(snapshot('src/parser.ts'), 'double =').references?.files.map((f) => f.file);
    expect(callers()).toEqual(['src/main.ts']);
    fs.writeFileSync(path.join(root, 'src/extra.ts'), "import { double } from './parser.js';\nexport const four = double(2);\n");
    expect(callers()).toEqual(['src/extra.ts', 'src/main.ts']);
    fs.rmSync(path.join(root, 'src/extra.ts'));
    expect(callers()).toEqual(['src/main.ts']);
  });
});

describe('callers through the package\'s own name, in files the tsconfig leaves out', () => {
  let selfProject: WorkspaceProject;
  /** The fixture's `tally` (or another function) explained in a fresh copy, after `change` edits the copy. */
  function explainSelf(name: string, change: (copy: string) => void = () => undefined): CodeStructure {
    const copy = copyFixture('explain-self');
    change(copy);
    const fsPath = path.join(copy, 'src/tally.ts');
    const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
    selfProject = new Workspace(copy).projects.workspace;
    return structureAt(document, `${name}(values`, undefined, selfProject);
  }
  const withoutBuild = (copy: string): void => {
    for (const file of ['index.d.ts', 'index.js', 'tally.d.ts', 'tally.js']) fs.rmSync(path.join(copy, file));
  };
  const testCaller = [{ file: 'src/tally.test.ts', count: 1, users: [{ lines: [4], asValue: false }] }];

  it('finds a test the tsconfig excludes that imports the package by name, through the compiled declarations the name resolves to', () => {
    const s = explainSelf('tally');
    expect(s.references).toMatchObject({ total: 1, calls: 1, files: testCaller, through: [{ file: 'tally.d.ts', count: 1 }] });
    expect(explainStructure(s)).toContain('- **Callers:** 1 reference in 1 file (1 through its compiled declarations `tally.d.ts`): `src/tally.test.ts` (1): the top level (line 4).');
    // The test was laid over the project for the search only: the program stays the tsconfig's (no auto-import from a test).
    expect(selfProject.tsProject().getSourceFile(path.join(selfProject.root, 'src/tally.test.ts'))).toBeUndefined();
  });

  it('finds it through the sources when a custom condition resolves the name to them', () => {
    const s = explainSelf('tally', (copy) => {
      withoutBuild(copy);
      const config = path.join(copy, 'tsconfig.json');
      const tsconfig = JSON.parse(fs.readFileSync(config, 'utf8')) as { compilerOptions: Record<string, unknown> };
      tsconfig.compilerOptions.customConditions = ['selfpkg-source'];
      fs.writeFileSync(config, JSON.stringify(tsconfig));
    });
    expect(s.references).toMatchObject({ total: 1, files: testCaller });
    expect(s.references?.through).toBeUndefined();
  });

  it('says what it searched, not that there are none, when the name resolves to nothing', () => {
    const s = explainSelf('tally', withoutBuild);
    expect(s.references?.total).toBe(0);
    expect(explainStructure(s)).toContain('- **Callers:** none found in the 2 files `tsconfig.json` includes and the 1 other workspace file that names `tally`.');
    expect(explainStructure(explainSelf('unused'))).toContain('- **Callers:** none found in the 2 files `tsconfig.json` includes.');
  });
});

describe('codeStructure of a generic function', () => {
  it('keeps the type parameters as the source writes them, a default named by an alias unresolved', () => {
    const parser = snapshot('src/parser.ts');
    const generic = [
      'export interface Register {}',
      'export type DefaultError = Register extends { defaultError: infer E } ? E : Error;',
      'export function fetchOnce<TData, TError = DefaultError, TMap extends (value: TData) => unknown = (value: TData) => TData>(load: () => Promise<TData>, map?: TMap): Promise<TData | TError> {',
      '  return load();',
      '}',
      '',
    ].join('\n');
    const s = structureAt(snapshot('src/parser.ts', `${parser.text}\n${generic}`), 'fetchOnce<');
    expect(s.signature).toBe('fetchOnce<TData, TError = DefaultError, TMap extends (value: TData) => unknown = (value: TData) => TData>(load: () => Promise<TData>, map?: TMap): Promise<TData | TError>');
  });
});

describe('codeStructure of an overloaded function', () => {
  const withOverloads = (signatures: string[]): CodeStructure => {
    const parser = snapshot('src/parser.ts');
    const code = [...signatures, 'export function matchKey(a: any, b: any): any {', '  return a === b ? true : String(a);', '}', ''].join('\n');
    return structureAt(snapshot('src/parser.ts', `${parser.text}\n${code}`), 'matchKey(a: any');
  };

  it('shows the overload callers see, not the implementation behind it', () => {
    const s = withOverloads(['export function matchKey(a: readonly unknown[], b: readonly unknown[]): boolean;']);
    expect(s.signature).toBe('matchKey(a: readonly unknown[], b: readonly unknown[]): boolean');
    expect(s.returns?.type).toBe('boolean');
  });

  it('shows the first of several and counts the others', () => {
    const s = withOverloads(['export function matchKey(a: string, b: string): boolean;', 'export function matchKey(a: number, b: number): string;']);
    expect(s.signature).toBe('matchKey(a: string, b: string): boolean (and 1 more overload)');
  });
});

describe('the Returns line of a function that returns early with nothing', () => {
  it('says it returns nothing and where it returns early, without quoting an empty return as code', () => {
    const parser = snapshot('src/parser.ts');
    const code = ['export function warnOnce(seen: Set<string>, key: string): void {', '  if (seen.has(key)) return;', '  seen.add(key);', '}', ''].join('\n');
    const text = `${parser.text}\n${code}`;
    const line = text.split('\n').findIndex((l) => l.includes('if (seen.has(key)) return;')) + 1;
    const s = structureAt(snapshot('src/parser.ts', text), 'warnOnce(');
    expect(explainStructure(s)).toContain(`- **Returns** nothing; returns early at line ${line}.`);
    expect(explainStructure(s)).not.toContain('(nothing)');
  });
});

describe('codeStructure of classes and interfaces', () => {
  it("lists a class's members with their types and complexity, and where the class is used", () => {
    const s = structureAt(snapshot('src/parser.ts'), 'class EntryIndex');
    expect(s.signature).toBe('export class EntryIndex');
    expect(s.members?.map((m) => [m.kind, m.signature, m.complexity])).toEqual([
      ['property', 'byKey: Map<string, string>', undefined],
      ['constructor', 'constructor(text: string)', 2],
      ['method', 'get(key: string, fallback?: string): string | undefined', 2],
      ['getter', 'get size(): number', 1],
    ]);
    expect(s.members?.[0]?.modifiers).toEqual(['private', 'readonly']);
    expect(s.references?.files).toEqual([{ file: 'src/main.ts', count: 1, users: [{ name: 'main', lines: [10], asValue: false }] }]);
  });

  it("lists an interface's members as written and its uses", () => {
    const s = structureAt(snapshot('src/parser.ts'), 'interface Entry');
    expect(s.members?.map((m) => m.signature)).toEqual(['key: string', 'value: string']);
    expect(s.calls).toEqual([]);
    expect(s.references?.total).toBe(3);
  });
});

describe('codeStructure of a selection', () => {
  const counter = [
    'export class Counter {',
    '  count = 0;',
    '  total = 0;',
    '  add(values: number[], scale: number): number {',
    '    let sum = 0;',
    '    for (const value of values) {',
    '      sum += value * scale;',
    '      this.count++;',
    '    }',
    '    this.total = this.total + sum;',
    '    return sum;',
    '  }',
    '}',
    '',
  ].join('\n');

  it('names what the selection declares, reads from outside and writes outside, from the editor text', () => {
    // Not on disk: the editor's buffer is what the project reads.
    const s = structureAt(snapshot('src/counter.ts', counter), 'let sum', 'this.total + sum;');
    expect(s).toMatchObject({ subject: 'selection', name: 'the selection', enclosing: 'Counter.add', line: 5, endLine: 10 });
    expect(s.statements?.map((st) => st.line)).toEqual([5, 6, 10]);
    expect(s.declares).toEqual(['sum', 'value']);
    expect(s.reads).toEqual(['values', 'scale', 'this.count', 'this.total']);
    expect(s.writes).toEqual(['this.count', 'this.total']);
    expect(s.branches.counts).toEqual({ loop: 1 });
    expect(s.returns).toBeUndefined();
  });

  it('gives the type of a selected expression and the returns a selection holds', () => {
    const parser = snapshot('src/parser.ts');
    const expression = structureAt(parser, 'this.byKey.get(key) ?? fallback', 'fallback');
    expect(expression).toMatchObject({ expressionType: 'string | undefined', reads: ['this.byKey', 'key', 'fallback'], writes: [], declares: [] });
    expect(expression.branches.complexity).toBe(2);
    const withReturn = structureAt(snapshot('src/counter.ts', counter), 'this.total = this', 'return sum;');
    expect(withReturn.returns).toEqual({ points: [{ line: 11, text: 'sum' }] });
    expect(explainStructure(withReturn)).toContain('**Returns** from `Counter.add`: `sum` (line 11).');
  });
});

describe('codeStructure without the type checker', () => {
  it('falls back to the syntax when the project cannot load, and says so', () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'explain-broken-'));
    fs.writeFileSync(path.join(broken, 'tsconfig.json'), '{ "compilerOptions": { not json');
    const fsPath = path.join(broken, 'a.ts');
    const text = 'export function f(a: number) {\n  return g(a) + 1;\n}\nfunction g(x: number) { return x; }\n';
    const document: DocumentSnapshot = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text };
    const s = structureAt(document, 'f(a', undefined, new WorkspaceProject(broken));
    expect(s.typed).toBe(false);
    expect(s.signature).toBe('export function f(a: number)');
    expect(s.calls).toEqual([{ name: 'g', construct: false, count: 1, declaredAt: { file: 'a.ts', line: 4 } }]);
    expect(s.referencesUnavailable).toMatch(/^the TypeScript project did not load/);
    const text2 = explainStructure(s);
    expect(text2).toContain('**Callers:** unknown (the TypeScript project did not load');
    expect(text2).toContain('Read from the syntax alone');
  });

  it('reads a JavaScript file the tsconfig leaves out from its syntax', () => {
    const legacy = snapshot('src/legacy.js', 'export function legacy(a) {\n  return a ? 1 : 2;\n}\nexport const half = (n) => n / 2;\n');
    const s = structureAt(legacy, 'legacy(a');
    expect(s).toMatchObject({ typed: false, referencesUnavailable: 'the file is not part of the TypeScript project' });
    expect(s.branches.counts).toEqual({ '?:': 1 });
    expect(structureAt(legacy, 'half').signature).toBe('half(n)');
  });
});

describe('codeStructure bookkeeping', () => {
  it('computes a target once per document snapshot, so the agents of one run share it', () => {
    const document = snapshot('src/parser.ts');
    const target = targetAt(document, 'loadEntries(path');
    const first = codeStructure(project, document, target);
    expect(codeStructure(project, document, target)).toBe(first);
    expect(codeStructure(project, { ...document }, target)).not.toBe(first);
  });

  it('stops when the signal aborts', async () => {
    const document = snapshot('src/parser.ts');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    expect(() => codeStructure(project, document, targetAt(document, 'double ='), controller.signal)).toThrow('stop');
    const request = { task: 'explain', interactionId: 'i', text: 'explain', document, target: targetAt(document, 'double ='), parameters: {}, workspace: ws, project, history: [] } satisfies AgentRequest;
    await expect(new OfflineExplainAgent().run(request, controller.signal)).rejects.toThrow('stop');
  });
});

describe('explainStructure', () => {
  it('writes a long structure with nested, capped lists', () => {
    const text = explainStructure(structureAt(snapshot('src/parser.ts'), 'parseEntries(text'));
    expect(text.split('\n')[0]).toBe('**function `parseEntries`** in `src/parser.ts`, lines 15–28 (exported).');
    expect(text).toContain('- **Signature:** `parseEntries(text: string, strict?: boolean): Entry[]`');
    expect(text).toContain('- **Callers:** 5 references in 2 files, 4 of them calls:\n  - `src/main.ts` (3): `countKeys` (line 5), `main` (line 9), the top level (line 14; also as a value)');
    expect(text).toContain('- **Calls** 7 functions (10 call sites):\n  - `String.split`: external (TypeScript lib)');
    expect(text).toContain('- **Branches:** 1 loop, 3 `if`s and 1 `||`; **cyclomatic complexity 6**.\n  - line 17: `for (const line of text.split(\'\\n\'))`');
    expect(text).toContain('- **Throws** `SyntaxError` when `strict` (line 22).');
  });

  it('fits a small function in a few lines, folding what it does not do into one', () => {
    const text = explainStructure(structureAt(snapshot('src/parser.ts'), 'double ='));
    expect(text).toBe(
      [
        '**function `double`** in `src/parser.ts`, line 34 (exported, undocumented).',
        '- **Signature:** `double(n: number): number`',
        '- **Returns** `number`: `n * 2` (line 34).',
        '- **Callers:** 1 reference in 1 file: `src/main.ts` (1): `main` (line 11).',
        '- Calls nothing, has no branches (cyclomatic complexity 1) and throws nothing itself.',
      ].join('\n'),
    );
  });

  it('says "and N more" past each cap, and when references were searched in part of a large workspace', () => {
    const base = structureAt(snapshot('src/parser.ts'), 'double =');
    const many: CodeStructure = {
      ...base,
      calls: Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, construct: false, count: 1, declaredAt: { file: 'src/x.ts', line: i + 1 } })),
      callSites: 20,
      references: {
        total: 10,
        calls: 10,
        scope: { files: 5000, truncated: true },
        files: Array.from({ length: 10 }, (_, i) => ({ file: `src/f${i}.ts`, count: 1, users: [{ name: `u${i}`, lines: [i + 1], asValue: false }] })),
      },
    };
    const text = explainStructure(many);
    expect(text).toContain('- **Calls** 20 functions (20 call sites):');
    expect(text).toContain('  - `f11` → `src/x.ts:12`\n  - and 8 more');
    expect(text).toContain('- **Callers:** 10 references in 10 files (searched the 5000 files the workspace lists; it has more):');
    expect(text).toContain('  - `src/f7.ts` (1): `u7` (line 8)\n  - and 2 more');
  });
});
