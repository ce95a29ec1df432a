// Unit tests of the offline test scaffold and the Test task: todo lists, smoke calls, per-framework text, appending, and scaffolds that type-check in their project.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Project } from 'ts-morph';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { exportedTestTarget, mergeTestFile, testFileProposal, testPlaceOf, testTask } from '../../server/src/tasks/testTask.js';
import type { TestPlace } from '../../server/src/tasks/testTask.js';
import { OfflineTestScaffoldAgent, writeScaffold } from '../../server/src/agents/offline/testScaffoldAgent.js';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import type { DeclarationTarget } from '../../server/src/repo/declarations.js';

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of a fixture; with `modules`, the repository's node_modules linked in so vitest and @types/node resolve. */
function fixture(name: string, modules = false): string {
  const root = copyFixture(name);
  temporary.push(root);
  if (modules) linkModules(root);
  return root;
}

/** Tests that only read share one copy of the vitest fixture and its projects: loading vitest's types takes seconds. */
let sharedVitest: string | undefined;
function vitestFixture(): string {
  if (!sharedVitest || !fs.existsSync(sharedVitest)) {
    sharedVitest = copyFixture('tests-vitest');
    linkModules(sharedVitest);
  }
  return sharedVitest;
}
afterAll(() => {
  if (sharedVitest) fs.rmSync(sharedVitest, { recursive: true, force: true });
});

/** One workspace per fixture copy, as the server keeps one per folder (its projects and test conventions with it). */
const workspaces = new Map<string, Workspace>();
function workspaceOf(root: string): Workspace {
  const existing = workspaces.get(root) ?? new Workspace(root);
  workspaces.set(root, existing);
  return existing;
}

function documentOf(root: string, file: string): DocumentSnapshot {
  const fsPath = path.join(root, file);
  return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
}

function targetOf(document: DocumentSnapshot, needle: string): DeclarationTarget {
  const at = document.text.indexOf(needle);
  const target = exportedTestTarget(document, at, at);
  if (!target) throw new Error(`no exported target at ${needle}`);
  return target;
}

function scaffoldOf(root: string, file: string, needle: string) {
  const document = documentOf(root, file);
  const place = testPlaceOf(workspaceOf(root), document) as TestPlace;
  const scaffold = writeScaffold(workspaceOf(root).projects.workspace, document, targetOf(document, needle), place, { verify: true });
  if (!scaffold) throw new Error(`no scaffold for ${needle}`);
  return { scaffold, place, document };
}

/** Type errors of `text` as the test file at `file`, in a program over the whole project as its tsconfig describes it. */
const checkers = new Map<string, Project>();
function typeErrors(root: string, file: string, text: string): string[] {
  const project = checkers.get(root) ?? new Project({ tsConfigFilePath: path.join(root, 'tsconfig.json') });
  checkers.set(root, project);
  const source = project.createSourceFile(file, text, { overwrite: true });
  const errors = source.getPreEmitDiagnostics().map((d) => `${d.getLineNumber() ?? 0}: TS${d.getCode()} ${String(typeof d.getMessageText() === 'string' ? d.getMessageText() : 'chained')}`);
  source.forget();
  return errors;
}

describe('the scaffold for a function (vitest)', () => {
  it('lists a todo per throw, branch and fallback, and a smoke call built from the parameter types', () => {
    const root = vitestFixture();
    const { scaffold, place } = scaffoldOf(root, 'src/config.ts', 'parseConfig(');
    expect(path.relative(root, place.testPath)).toBe(path.join('test', 'config.test.ts'));
    expect(scaffold.behaviours).toEqual([
      'uses 5000 when raw.timeoutMs and defaults.timeoutMs are missing',
      'throws RangeError when timeoutMs < 0',
      'throws TypeError when raw.port !== undefined && !Number.isInteger(raw.port)',
      "uses 'localhost' when raw.host is missing",
      'uses 80 when raw.port is missing',
      "handles raw.mode === 'prod' being true and false",
    ]);
    const lines = scaffold.text.split('\n');
    expect(lines.slice(1, 3)).toEqual(["import { describe, expect, it } from 'vitest';", "import { parseConfig } from '../src/config.js';"]);
    expect(scaffold.text).toContain("describe('parseConfig', () => {");
    expect(scaffold.text).toContain("  it.todo('throws RangeError when timeoutMs < 0');");
    expect(scaffold.text).toContain(`  it.todo("uses 'localhost' when raw.host is missing");`);
    // The optional `defaults` is left out; `text: string` gets ''.
    expect(scaffold.text).toContain("    const result = parseConfig('');\n    expect(typeof result).toBe('object');");
    expect(scaffold.smokeTests).toBe(1);
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });

  it('builds object literals for required properties, picks literal members, and lists switch cases', () => {
    const root = vitestFixture();
    const { scaffold, place } = scaffoldOf(root, 'src/math/clamp.ts', 'describeRange');
    expect(path.relative(root, place.testPath)).toBe(path.join('test', 'math', 'clamp.test.ts'));
    expect(scaffold.behaviours).toEqual(["handles unit being 'cm'", "handles unit being 'in'", 'throws Error when unit matches no case']);
    expect(scaffold.text).toContain("import { describeRange } from '../../src/math/clamp.js';");
    expect(scaffold.text).toContain("describeRange({ low: 0, high: 0, label: '', tags: [] }, 'cm')");
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });

  it('covers arrow functions and writes a generic todo when no behaviour is visible', () => {
    const root = vitestFixture();
    const { scaffold, place } = scaffoldOf(root, 'src/math/clamp.ts', 'lerp');
    expect(scaffold.behaviours).toEqual(['returns the expected result for typical input']);
    expect(scaffold.text).toContain('const result = lerp(0, 0, 0);');
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });
});

describe('the scaffold for a class (vitest)', () => {
  it('has a describe per public method, constructs the class, awaits async methods and leaves private ones out', () => {
    const root = vitestFixture();
    const { scaffold, place } = scaffoldOf(root, 'src/config.ts', 'class ConfigStore');
    const describes = [...scaffold.text.matchAll(/describe\('([^']+)'/g)].map((m) => m[1]);
    expect(describes).toEqual(['ConfigStore', 'load', 'reload']);
    expect(scaffold.text).toContain("it('can be constructed', () => {\n    const instance = new ConfigStore(() => '');\n    expect(instance).toBeInstanceOf(ConfigStore);");
    expect(scaffold.behaviours).toContain('returns this.cached when it is set');
    expect(scaffold.text).toContain('await expect(instance.reload(0)).resolves.toBeUndefined();');
    expect(scaffold.text).not.toContain('forget');
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });

  it('calls static methods on the class', () => {
    const root = vitestFixture();
    const { scaffold } = scaffoldOf(root, 'src/util/strings.ts', 'class Greeter');
    expect(scaffold.text).toContain("describe('Greeter.polite', () => {");
    expect(scaffold.text).toContain('const result = Greeter.polite();');
  });
});

describe('the scaffold in other frameworks', () => {
  it('uses jest globals and appends to the existing spec file, merging the import', () => {
    const root = fixture('tests-jest');
    const { scaffold, place } = scaffoldOf(root, 'src/sum.ts', 'divide(');
    expect(path.relative(root, place.testPath)).toBe(path.join('src', 'sum.spec.ts'));
    expect(scaffold.text).not.toMatch(/from 'vitest'|@jest\/globals/);
    expect(scaffold.text).toContain("import { divide } from './sum';");
    expect(scaffold.text).toContain("it.todo('throws Error when b === 0');");
    const built = testFileProposal(place.testPath, scaffold.text, undefined);
    expect(built.created).toBe(false);
    expect(built.proposal.creates).toEqual([]);
    const merged = built.fileText;
    expect(merged).toContain("import { sum, divide } from './sum';");
    expect(merged.match(/from '.\/sum'/g)).toHaveLength(1);
    expect(merged.indexOf("describe('sum'")).toBeLessThan(merged.indexOf("describe('divide'"));
    expect(typeErrors(root, place.testPath, merged)).toEqual([]);
  });

  it('writes a class scaffold for jest that type-checks', () => {
    const root = fixture('tests-jest');
    const { scaffold, place } = scaffoldOf(root, 'src/sum.ts', 'class Counter');
    expect(scaffold.text).toContain("it.todo('throws RangeError when by < 0');");
    // `by = 1` is optional: the smoke call leaves it out.
    expect(scaffold.text).toContain('const result = instance.increment();');
    expect(scaffold.text).toContain('expect(() => instance.reset()).not.toThrow();');
    expect(typeErrors(root, place.testPath, testFileProposal(place.testPath, scaffold.text, undefined).fileText)).toEqual([]);
  });

  it('writes node:test todos as { todo: true } with node:assert, and type-checks', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-nodetest-'));
    temporary.push(root);
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }));
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] }, include: ['src'] }));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'parse.ts'), "export function parsePort(text: string): number {\n  const port = Number(text);\n  if (Number.isNaN(port)) throw new TypeError('not a number');\n  return port;\n}\n");
    linkModules(root);
    const { scaffold, place } = scaffoldOf(root, 'src/parse.ts', 'parsePort');
    expect(path.relative(root, place.testPath)).toBe(path.join('src', 'parse.test.ts'));
    expect(scaffold.text.split('\n').slice(1, 4)).toEqual(["import { describe, it } from 'node:test';", "import { strict as assert } from 'node:assert';", "import { parsePort } from './parse.js';"]);
    expect(scaffold.text).toContain("it('throws TypeError when Number.isNaN(port)', { todo: true });");
    expect(scaffold.text).toContain("assert.strictEqual(typeof result, 'number');");
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });

  it('writes mocha todos as pending tests', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-mocha-'));
    temporary.push(root);
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ devDependencies: { mocha: '^10' } }));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'flag.ts'), 'export function flag(on: boolean): string {\n  return on ? "on" : "off";\n}\n');
    const { scaffold, place } = scaffoldOf(root, 'src/flag.ts', 'flag(');
    expect(path.relative(root, place.testPath)).toBe(path.join('test', 'flag.test.ts'));
    expect(scaffold.text).toContain("it('handles on being true and false');");
    expect(scaffold.text).toContain("import { flag } from '../src/flag';");
    expect(scaffold.text).toContain("import { strict as assert } from 'node:assert';");
    expect(scaffold.text).toContain("assert.strictEqual(typeof result, 'string');");
  });

  it('leaves the smoke call out when an argument cannot be built from its type', () => {
    const root = vitestFixture();
    fs.writeFileSync(path.join(root, 'src', 'uses.ts'), "import { ConfigStore } from './config.js';\n\nexport function describeStore(store: ConfigStore): string {\n  return String(store.load().port);\n}\n");
    const { scaffold, place } = scaffoldOf(root, 'src/uses.ts', 'describeStore');
    expect(scaffold.smokeTests).toBe(0);
    expect(scaffold.text).not.toContain('expect(');
    expect(scaffold.text).toContain("import { describe, it } from 'vitest';");
    expect(typeErrors(root, place.testPath, scaffold.text)).toEqual([]);
  });
});

describe('the Test task', () => {
  it('is offered on exported functions and classes only, from syntax', () => {
    const root = vitestFixture();
    const document = documentOf(root, 'src/config.ts');
    const offers = (needle: string) => {
      const at = document.text.indexOf(needle);
      return testTask.offersAt({ document, start: at, end: at, diagnostics: [] }).map((o) => `${o.title} | ${o.kind}`);
    };
    expect(offers('parseConfig(text')).toEqual(['Assistant: Generate tests for parseConfig | source.assistant.test']);
    // Inside a method: the exported class.
    expect(offers('this.cached = parseConfig')).toEqual(['Assistant: Generate tests for ConfigStore | source.assistant.test']);
    expect(offers('host: string')).toEqual([]);
    const local = { ...document, text: 'function hidden(): number {\n  return 1;\n}\n' };
    expect(testTask.offersAt({ document: local, start: 3, end: 3, diagnostics: [] })).toEqual([]);
  });

  it('turns a fenced model answer into a new file with the annotation above the first test', () => {
    const root = vitestFixture();
    const document = documentOf(root, 'src/math/clamp.ts');
    const target = declarationTarget(targetOf(document, 'clamp('));
    const answer = ['Here are the tests:', '```ts', "import { describe, expect, it } from 'vitest';", "import { clamp } from '../../src/math/clamp.js';", '', "describe('clamp', () => {", "  it('keeps values inside', () => {", '    expect(clamp(5, 0, 10)).toBe(5);', '  });', '});', '```'].join('\n');
    const converted = testTask.convertAnswer({ text: answer }, { workspace: workspaceOf(root), document, target, parameters: {} }, { task: 'test', agent: 'm', interactionId: 'i-1', at: '2026-01-01T00:00:00.000Z' });
    if (!converted.ok || converted.kind !== 'edit') throw new Error(JSON.stringify(converted));
    expect(converted.proposal.documents).toEqual([]);
    expect(converted.proposal.creates).toHaveLength(1);
    const created = converted.proposal.creates[0]!;
    expect(created.uri).toBe(pathToUri(path.join(root, 'test', 'math', 'clamp.test.ts')));
    expect(created.text).toContain("import { clamp } from '../../src/math/clamp.js';\n\n// @assistant task=test agent=m interaction=i-1 at=2026-01-01T00:00:00.000Z\ndescribe('clamp', () => {");
    expect(created.text).not.toContain('```');
  });

  it('rejects answers that are not tests of the symbol', () => {
    const root = vitestFixture();
    const document = documentOf(root, 'src/math/clamp.ts');
    const view = { workspace: workspaceOf(root), document, target: declarationTarget(targetOf(document, 'clamp(')), parameters: {} };
    expect(testTask.convertAnswer({ text: 'I cannot help with that.' }, view, undefined)).toMatchObject({ ok: false, reason: 'the answer holds no describe, it or test call' });
    expect(testTask.convertAnswer({ text: "```ts\ndescribe('x', () => { it('y', () => {}) });\n```" }, view, undefined)).toMatchObject({ ok: false, reason: 'the tests never mention clamp' });
    expect(testTask.convertAnswer({ text: "```ts\ndescribe('clamp', () => { it('y', () => { clamp(1, 2, 3 }) });\n```" }, view, undefined)).toMatchObject({ ok: false });
  });

  it('checks that the test file type-checks, and passes the offline scaffold', async () => {
    const root = vitestFixture();
    const workspace = workspaceOf(root);
    const project = workspace.projects.workspace;
    const document = documentOf(root, 'src/math/clamp.ts');
    const target = declarationTarget(targetOf(document, 'clamp('));
    const view = { workspace: workspaceOf(root), document, target, parameters: {} };
    const context = { root, project, oracle: { runTests: false, testTimeoutMs: 60_000 } };
    const bad = testTask.convertAnswer({ text: "import { describe, expect, it } from 'vitest';\nimport { clamp } from '../../src/math/clamp.js';\n\ndescribe('clamp', () => {\n  it('x', () => {\n    expect(clamp('5', 0, 10)).toBe(5);\n  });\n});\n" }, view, undefined);
    if (!bad.ok || bad.kind !== 'edit') throw new Error('not converted');
    const rejected = await testTask.check!(bad.proposal, view, context, new AbortController().signal);
    expect(rejected.passed).toBe(false);
    expect(rejected.summary).toBe('1 type error in test/math/clamp.test.ts');
    expect(rejected.details?.[0]).toMatch(/^test\/math\/clamp\.test\.ts:6:\d+ TS2345 /);

    const answer = await new OfflineTestScaffoldAgent().run({ task: 'test', interactionId: 'i', text: 'test clamp', document, target, parameters: {}, workspace, project, history: [] }, new AbortController().signal);
    expect(answer.proposal).toBeDefined();
    const scaffold = testTask.convertAnswer(answer, view, undefined);
    if (!scaffold.ok || scaffold.kind !== 'edit') throw new Error('not converted');
    expect(await testTask.check!(scaffold.proposal, view, context, new AbortController().signal)).toEqual({ passed: true, summary: 'the scaffold type-checks (not run: oracle.runTests is off)' });
  });
});

describe('mergeTestFile', () => {
  it('adds missing names to an import of the same module, new imports after the last one, and the rest at the end', () => {
    const existing = "// Tests.\nimport { describe, it } from 'vitest';\nimport { a } from './a.js';\n\ndescribe('a', () => {\n  it('works', () => {});\n});\n";
    const addition = "import { describe, expect, it } from 'vitest';\nimport { b } from './a.js';\nimport { helper } from './helper.js';\n\ndescribe('b', () => {\n  it('works', () => expect(b).toBe(helper));\n});\n";
    const merged = applyOffsetEdits(existing, mergeTestFile(existing, addition, '// @assistant task=test agent=x interaction=1 at=t'));
    expect(merged).toBe(
      "// Tests.\nimport { describe, it, expect } from 'vitest';\nimport { a, b } from './a.js';\nimport { helper } from './helper.js';\n\ndescribe('a', () => {\n  it('works', () => {});\n});\n\n// @assistant task=test agent=x interaction=1 at=t\ndescribe('b', () => {\n  it('works', () => expect(b).toBe(helper));\n});\n",
    );
  });
});
