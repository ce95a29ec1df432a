// Unit tests of the Implement task and its offline agent: offers, class names, skeletons filled by TypeScript's fixes, and the oracle.
import fs from 'node:fs';
import path from 'node:path';
import { Project } from 'ts-morph';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { implementableAt, implementationName, implementTask, requestedClassName } from '../../server/src/tasks/implementTask.js';
import { implementSkeleton, OfflineImplementAgent } from '../../server/src/agents/offline/implementAgent.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

const root = copyFixture('implement');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const ws = new Workspace(root);
const workspace = ws.projects.workspace;

function documentOf(file: string): DocumentSnapshot {
  const fsPath = path.join(root, file);
  return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
}

function skeletonOf(file: string, needle: string, className?: string) {
  const document = documentOf(file);
  const at = document.text.indexOf(needle);
  const found = implementableAt(document, at, at);
  if (!found) throw new Error(`nothing to implement at ${needle}`);
  const skeleton = implementSkeleton(ws, document, found.declaration, className);
  if (!skeleton) throw new Error(`no skeleton for ${needle}`);
  return { skeleton, document, declaration: found.declaration };
}

/** Type errors of the new file (plus `usage` after it), in a program over the whole fixture as its tsconfig describes it. */
let checker: Project | undefined;
function typeErrors(file: string, text: string): string[] {
  checker ??= new Project({ tsConfigFilePath: path.join(root, 'tsconfig.json') });
  const source = checker.createSourceFile(file, text, { overwrite: true });
  const errors = source.getPreEmitDiagnostics().map((d) => `${d.getLineNumber() ?? 0}: TS${d.getCode()}`);
  source.forget();
  return errors;
}

describe('implementationName', () => {
  it('derives the class name from the interface or abstract class', () => {
    expect(implementationName('Store', 'interface')).toBe('StoreImpl');
    expect(implementationName('IStore', 'interface')).toBe('Store');
    expect(implementationName('IO', 'interface')).toBe('IOImpl');
    expect(implementationName('AbstractRepository', 'abstract-class')).toBe('Repository');
    expect(implementationName('BaseShape', 'abstract-class')).toBe('Shape');
    expect(implementationName('ShapeBase', 'abstract-class')).toBe('Shape');
    expect(implementationName('Shape', 'abstract-class')).toBe('ConcreteShape');
  });
});

describe('the offline skeleton', { timeout: 60_000 }, () => {
  it('implements every member of a generic interface: properties, optional members, methods, accessors', () => {
    const { skeleton } = skeletonOf('src/store.ts', 'interface Store');
    expect(skeleton.className).toBe('StoreImpl');
    expect(skeleton.filePath).toBe(path.join(root, 'src', 'StoreImpl.ts'));
    expect(skeleton.members).toEqual(['name', 'count', 'label', 'get', 'put', 'close', 'config', 'on', 'size']);
    expect(skeleton.errors).toEqual([]);
    const text = skeleton.text;
    expect(text).toContain("import type { Store } from './store.js';");
    // Types the copied signatures name are imported by TypeScript's fix, as types (verbatimModuleSyntax).
    expect(text).toContain("import type { Config, Listener } from './config.js';");
    expect(text).toContain('export class StoreImpl<T extends { id: string }> implements Store<T> {\n  name!: string;');
    expect(text).toContain('  label?: string | undefined;');
    expect(text).toContain("  get(_id: string): T | undefined {\n    throw new Error('Method not implemented.');\n  }");
    expect(text).toContain('  close?(): void {');
    expect(text).toContain('  on(_listener: Listener<T>): () => void {');
    expect(text).toContain('  get size(): number {');
    expect(typeErrors(skeleton.filePath, `${text}\nexport const made: Store<{ id: string }> = new StoreImpl<{ id: string }>();\n`)).toEqual([]);
  });

  it('extends an abstract class: abstract methods and accessors with override, and a public constructor for a protected one', () => {
    const { skeleton } = skeletonOf('src/shape.ts', 'abstract class Shape');
    expect(skeleton.className).toBe('ConcreteShape');
    expect(skeleton.members).toEqual(['constructor', 'area', 'describe', 'corners']);
    expect(skeleton.text).toContain("import { Shape, type ShapeOptions, type Unit } from './shape.js';");
    expect(skeleton.text).toContain('export class ConcreteShape extends Shape {\n  constructor(label: string, options?: ShapeOptions) {\n    super(label, options);\n  }');
    expect(skeleton.text).toContain('  protected override describe(_unit: Unit): string {');
    expect(skeleton.text).toContain('  override get corners(): number {');
    expect(skeleton.text).not.toContain('toString');
    // The subclass can be created where the abstract class could not.
    expect(typeErrors(skeleton.filePath, `${skeleton.text}\nexport const made = new ConcreteShape('square');\n`)).toEqual([]);
  });

  it('keeps the type parameters of a generic abstract class', () => {
    const { skeleton } = skeletonOf('src/shape.ts', 'AbstractRepository');
    expect(skeleton.className).toBe('Repository');
    expect(skeleton.text).toContain('export class Repository<K, V> extends AbstractRepository<K, V> {\n  override find(_key: K): V | undefined {');
    expect(typeErrors(skeleton.filePath, skeleton.text)).toEqual([]);
  });

  it('takes a requested class name, and avoids names in use', () => {
    expect(skeletonOf('src/store.ts', 'interface Named', 'Person').skeleton.filePath).toBe(path.join(root, 'src', 'Person.ts'));
    fs.writeFileSync(path.join(root, 'src', 'NamedImpl.ts'), 'export {};\n');
    try {
      expect(skeletonOf('src/store.ts', 'interface Named').skeleton.className).toBe('NamedImpl2');
    } finally {
      fs.rmSync(path.join(root, 'src', 'NamedImpl.ts'));
    }
  });
});

describe('the Implement task', { timeout: 60_000 }, () => {
  it('is offered on exported interfaces and abstract classes, from syntax', () => {
    const offers = (file: string, needle: string) => {
      const document = documentOf(file);
      const at = document.text.indexOf(needle);
      return implementTask.offersAt({ document, start: at, end: at, diagnostics: [] }).map((o) => `${o.title} | ${o.kind}`);
    };
    expect(offers('src/store.ts', 'interface Store')).toEqual(['Assistant: Implement Store in a new class | refactor.assistant.implement']);
    // Anywhere in the declaration, its doc comment included.
    expect(offers('src/store.ts', 'put(item')).toEqual(['Assistant: Implement Store in a new class | refactor.assistant.implement']);
    expect(offers('src/store.ts', 'Keeps items')).toEqual(['Assistant: Implement Store in a new class | refactor.assistant.implement']);
    expect(offers('src/shape.ts', 'abstract area')).toEqual(['Assistant: Implement Shape in a new class | refactor.assistant.implement']);
    // Not exported: a new file could not import it. Not abstract: nothing to implement.
    expect(offers('src/store.ts', 'interface Hidden')).toEqual([]);
    expect(offers('src/store.ts', 'export const hidden')).toEqual([]);
  });

  it('reads a class name from a request', () => {
    const document = documentOf('src/store.ts');
    const at = document.text.indexOf('interface Store');
    expect(implementTask.askTarget!(document, at, at, 'implement Store as MemoryStore')?.parameters).toEqual({ className: 'MemoryStore' });
  });

  it('turns a model answer into a new file named after its class, with the annotation above the class', () => {
    const document = documentOf('src/store.ts');
    const at = document.text.indexOf('interface Named');
    const target = declarationTarget(implementableAt(document, at, at)!.declaration);
    const answer = "Here it is:\n```typescript\nimport type { Named } from './store.js';\n\nexport class Person implements Named {\n  constructor(public name: string) {}\n}\n```";
    const converted = implementTask.convertAnswer({ text: answer }, { workspace: ws, document, target, parameters: {} }, { task: 'implement', agent: 'm', interactionId: 'i-2', at: 't' });
    if (!converted.ok || converted.kind !== 'edit') throw new Error(JSON.stringify(converted));
    expect(converted.proposal.creates).toEqual([{ uri: pathToUri(path.join(root, 'src', 'Person.ts')), text: "import type { Named } from './store.js';\n\n// @assistant task=implement agent=m interaction=i-2 at=t\nexport class Person implements Named {\n  constructor(public name: string) {}\n}\n" }]);
    expect(implementTask.convertAnswer({ text: 'export class Other {}' }, { workspace: ws, document, target, parameters: {} }, undefined)).toEqual({ ok: false, reason: 'the answer holds no class that implements or extends Named' });
    fs.writeFileSync(path.join(root, 'src', 'Person.ts'), 'export {};\n');
    try {
      expect(implementTask.convertAnswer({ text: answer }, { workspace: ws, document, target, parameters: {} }, undefined)).toEqual({ ok: false, reason: 'Person.ts already exists' });
    } finally {
      fs.rmSync(path.join(root, 'src', 'Person.ts'));
    }
  });

  it('passes the offline skeleton, and rejects a model class that leaves members unwritten or does not type-check', async () => {
    const document = documentOf('src/store.ts');
    const at = document.text.indexOf('interface Store');
    const target = declarationTarget(implementableAt(document, at, at)!.declaration);
    const view = { workspace: ws, document, target, parameters: {} };
    const context = { root, project: workspace, oracle: { runTests: false, testTimeoutMs: 1000 } };
    const signal = new AbortController().signal;
    const answer = await new OfflineImplementAgent().run({ task: 'implement', interactionId: 'i', text: 'implement Store', document, target, parameters: {}, workspace: ws, project: workspace, history: [] }, signal);
    const offline = implementTask.convertAnswer(answer, view, undefined);
    if (!offline.ok || offline.kind !== 'edit') throw new Error('not converted');
    expect(await implementTask.check!(offline.proposal, view, context, signal)).toEqual({ passed: true, summary: 'src/StoreImpl.ts type-checks; 9 members, to be written' });

    // The same text from a model is a skeleton, not an implementation.
    const copied = implementTask.convertAnswer({ text: answer.text }, view, undefined);
    if (!copied.ok || copied.kind !== 'edit') throw new Error('not converted');
    const unwritten = await implementTask.check!(copied.proposal, view, context, signal);
    expect(unwritten).toMatchObject({ passed: false, summary: '6 members are not written yet' });
    expect(unwritten.details).toContain('get still throws "not implemented": write its body');

    const broken = implementTask.convertAnswer({ text: "import type { Store } from './store.js';\nexport class StoreImpl<T extends { id: string }> implements Store<T> {\n  name = 'x';\n}\n" }, view, undefined);
    if (!broken.ok || broken.kind !== 'edit') throw new Error('not converted');
    const rejected = await implementTask.check!(broken.proposal, view, context, signal);
    expect(rejected.passed).toBe(false);
    expect(rejected.details?.[0]).toMatch(/^src\/StoreImpl\.ts:2:\d+ TS2420 /);
  });
});

describe('requestedClassName', () => {
  it.each([
    ['create a class InMemoryRepo that implements Repo', 'InMemoryRepo'],
    ['make a Square that extends Shape', 'Square'],
    ['subclass Shape as Circle', 'Circle'],
    ['implement Repo in a class named FileRepo', 'FileRepo'],
    ['a `MemoryStore` implementing Store', 'MemoryStore'],
    ['implement the Repo interface', undefined],
  ])('reads "%s" as %s', (text, expected) => {
    expect(requestedClassName(text)).toBe(expected);
  });
});
