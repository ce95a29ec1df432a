// Unit tests of a model request's context: enclosing declarations, recent positions, named symbols, open documents, the budget, privacy and cancellation, on a real fixture workspace and a real ts-morph project.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRequestContext, renderedLength } from '../../server/src/context/contextRendering.js';
import type { ContextSnippet, RequestContext, RequestContextInput } from '../../server/src/context/contextShapes.js';
import { buildRequestContext } from '../../server/src/context/requestContext.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { namesInRequest } from '../../server/src/context/requestNames.js';
import { RecentPositions } from '../../server/src/context/recentPositions.js';
import type { VisitedPosition } from '../../server/src/context/recentPositions.js';
import { declarationsNamed, withSyntaxTree } from '../../server/src/repo/declarations.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';
import { prng, testSeed } from '../support/rawLsp.js';

const VAULT_CANARY = 'CTX-CANARY-VAULT-4471';
const VAULT_EDITOR_CANARY = 'CTX-CANARY-VAULT-EDITOR-9902';
const ENV_CANARY = 'ctx-canary-env-5f3a9b7c1d';
const URL_PASSWORD_CANARY = 'ctx-canary-pw-93c1e7';

let root: string;
let workspace: Workspace;
let project: WorkspaceProject;

beforeAll(() => {
  root = copyFixture('context');
  // Written here: git would not commit a file the fixture's own .gitignore matches.
  fs.writeFileSync(
    path.join(root, 'src', 'vault.ts'),
    [
      '// Sealing with a key nobody may see.',
      "import { formatAmount } from './format.js';",
      '',
      `export const VAULT_KEY = '${VAULT_CANARY}';`,
      '',
      'export class Vault {',
      '  seal(text: string): string {',
      `    return \`\${VAULT_KEY}:\${formatAmount(text.length)}:\${text}\`;`,
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  workspace = new Workspace(root);
  project = workspace.projects.workspace;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A document as the editor holds it: the disk's text, or the given (unsaved) text. */
function snapshot(relative: string, text?: string, version = 1): DocumentSnapshot {
  const fsPath = path.join(root, relative);
  return { uri: pathToUri(fsPath), fsPath, languageId: relative.endsWith('.ts') ? 'typescript' : 'plaintext', version, text: text ?? fs.readFileSync(fsPath, 'utf8') };
}

/** The declaration named `name` in a document, as a request's target. */
function declarationTarget(document: DocumentSnapshot, name: string): RequestContextInput['target'] {
  const [found] = declarationsNamed(document.fsPath as string, document.text, name);
  if (!found) throw new Error(`no declaration ${name}`);
  return { start: found.start, end: found.end, name: found.name };
}

/** A selection from the start of `from` to the end of `to`. */
function selection(document: DocumentSnapshot, from: string, to: string): RequestContextInput['target'] {
  const start = document.text.indexOf(from);
  const end = document.text.indexOf(to, start) + to.length;
  if (start < 0 || end < start + to.length) throw new Error(`no selection ${from}…${to}`);
  return { start, end, name: 'the selection' };
}

/** A visit of the line holding `needle`. */
function visit(document: DocumentSnapshot, needle: string, at = 0): VisitedPosition {
  const offset = document.text.indexOf(needle);
  if (offset < 0) throw new Error(`no ${needle}`);
  const line = document.text.slice(0, offset).split('\n').length - 1;
  return { uri: document.uri, range: { start: { line, character: 0 }, end: { line, character: 0 } }, at };
}

function input(document: DocumentSnapshot, target: RequestContextInput['target'], extra: Partial<RequestContextInput> = {}): RequestContextInput {
  return { workspace, document, target, text: '', openDocuments: [document], recent: [], project, budgetTokens: 1_500, ...extra };
}

const live = (): AbortSignal => new AbortController().signal;

function build(request: RequestContextInput): Promise<RequestContext> {
  return buildRequestContext(request, live());
}

describe('a document being edited', () => {
  it('keeps its tree of edits through a context built on its text, so the next keystroke is parsed incrementally', async () => {
    const disk = snapshot('src/ledger.ts');
    const fsPath = disk.fsPath as string;
    const typed = `${disk.text}\n// typed\n`;
    const document = snapshot('src/ledger.ts', typed, 2);
    // The light bulb's requests: on the disk's text, then on the typed one, which gives the file a tree of edits.
    withSyntaxTree(fsPath, disk.text, () => undefined);
    // Test only: a node kept past the call, to compare identities.
    const first = withSyntaxTree(fsPath, typed, (source, edited) => ({ edited, statement: source.statements[0] }));
    expect(first.edited).toBe(true);
    const context = await build(input(document, declarationTarget(document, 'balance')));
    expect(context.enclosing).toMatchObject({ name: 'Ledger', kind: 'class' });
    expect(context.enclosing?.text).not.toContain('let total = 0;');
    // The next keystroke updates that very tree: the statements it did not touch are the same nodes.
    const next = `${typed}// more\n`;
    expect(withSyntaxTree(fsPath, next, (source, edited) => edited && source.statements[0] === first.statement)).toBe(true);
  });
});

describe('the enclosing declaration', () => {
  it('is the class around a method, with the method itself named rather than repeated', async () => {
    const ledger = snapshot('src/ledger.ts');
    const context = await build(input(ledger, declarationTarget(ledger, 'balance')));
    expect(context.enclosing).toMatchObject({ name: 'Ledger', kind: 'class', file: 'src/ledger.ts', startLine: 9, endLine: 33 });
    const text = context.enclosing?.text ?? '';
    expect(text).toMatch(/^\/\*\* Keeps the entries of one account in the order they were made\. \*\/\nexport class Ledger \{/);
    expect(text).toContain('deposit(amount: number, memo = \'deposit\'): void {');
    expect(text).toContain('/* … Ledger.balance: the code this request is about … */');
    expect(text).not.toContain('let total = 0;');
    expect(renderRequestContext(context)).toContain('### Enclosing class `Ledger` (src/ledger.ts:10-34)\n```ts\n/** Keeps the entries');
  });

  it('is the function around a selection; a short selection stays in place, a long one is named', async () => {
    const report = snapshot('src/report.ts');
    const short = await build(input(report, selection(report, 'const total', 'balance();')));
    expect(short.enclosing).toMatchObject({ name: 'monthlyReport', kind: 'function', file: 'src/report.ts', startLine: 4, endLine: 13 });
    expect(short.enclosing?.text).toContain('const total = account.ledger.balance();');
    const long = await build(input(report, selection(report, 'const total', 'formatAmount(total)}`);')));
    expect(long.enclosing?.name).toBe('monthlyReport');
    expect(long.enclosing?.text).toContain('/* … the selection: the code this request is about … */');
    expect(long.enclosing?.text).not.toContain('padLeft(account.owner');
    expect(long.enclosing?.text).toContain('return lines.join');
  });

  it('is absent for a top-level declaration taken whole', async () => {
    const report = snapshot('src/report.ts');
    const context = await build(input(report, declarationTarget(report, 'monthlyReport')));
    expect(context.enclosing).toBeUndefined();
  });

  it('is given as an outline (member bodies folded) when the whole class does not fit', async () => {
    const ledger = snapshot('src/ledger.ts');
    const context = await build(input(ledger, declarationTarget(ledger, 'balance'), { budgetTokens: 150 }));
    expect(context.enclosing?.text).toContain('withdraw(amount: number, memo = \'withdrawal\'): void { … }');
    expect(context.omitted).toContain('the enclosing class Ledger: shown as an outline for the budget');
    expect(context.tokens).toBeLessThanOrEqual(150);
  });
});

describe('RecentPositions', () => {
  const range = (line: number, endLine = line): VisitedPosition['range'] => ({ start: { line, character: 2 }, end: { line: endLine, character: 4 } });

  it('lists the most recent first, with the time and the version', () => {
    let now = 1_000;
    const recent = new RecentPositions({ now: () => now++ });
    recent.record('file:///a.ts', range(10), 3);
    recent.record('file:///b.ts', range(10));
    recent.record('file:///a.ts', range(40), null);
    expect(recent.list()).toEqual([
      { uri: 'file:///a.ts', range: range(40), at: 1_002, version: null },
      { uri: 'file:///b.ts', range: range(10), at: 1_001 },
      { uri: 'file:///a.ts', range: range(10), at: 1_000, version: 3 },
    ]);
    expect(recent.list(1).map((p) => p.uri)).toEqual(['file:///a.ts']);
  });

  it('replaces a visit within 3 lines of an earlier one in the same document, moving it to the front', () => {
    const recent = new RecentPositions();
    recent.record('file:///a.ts', range(10));
    recent.record('file:///b.ts', range(12));
    recent.record('file:///a.ts', range(13));
    recent.record('file:///a.ts', range(20, 22));
    recent.record('file:///a.ts', range(25));
    expect(recent.list().map((p) => [p.uri.slice(-4), p.range.start.line])).toEqual([
      ['a.ts', 25],
      ['a.ts', 13],
      ['b.ts', 12],
    ]);
    // A selection spanning both earlier visits replaces the two.
    recent.record('file:///a.ts', range(11, 30));
    expect(recent.list().map((p) => [p.uri.slice(-4), p.range.start.line])).toEqual([
      ['a.ts', 11],
      ['b.ts', 12],
    ]);
  });

  it('keeps at most its capacity, dropping the oldest, and forgets a document on request', () => {
    const recent = new RecentPositions({ capacity: 3 });
    for (let i = 0; i < 5; i++) recent.record(`file:///${i}.ts`, range(0));
    expect(recent.list().map((p) => p.uri)).toEqual(['file:///4.ts', 'file:///3.ts', 'file:///2.ts']);
    expect(new RecentPositions().list()).toEqual([]);
    recent.record('file:///3.ts', range(2));
    expect(recent.list().map((p) => p.uri)).toEqual(['file:///3.ts', 'file:///4.ts', 'file:///2.ts']);
    recent.forget('file:///3.ts');
    expect(recent.list().map((p) => p.uri)).toEqual(['file:///4.ts', 'file:///2.ts']);
    // A list is a copy: changing it changes nothing inside.
    const listed = recent.list();
    (listed[0] as VisitedPosition).range.start.line = 99;
    expect(recent.list()[0]?.range.start.line).toBe(0);
  });

  it('moves visits with the edits above them, collapses replaced ones, and merges those that meet', () => {
    const recent = new RecentPositions();
    recent.record('file:///a.ts', range(30), 1);
    recent.record('file:///a.ts', range(10), 1);
    recent.record('file:///b.ts', range(10), 1);
    // Three lines inserted at the top, then lines 14-25 (after the insertion) deleted.
    recent.shift('file:///a.ts', 2, [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'a\nb\nc\n' },
      { range: { start: { line: 16, character: 0 }, end: { line: 28, character: 0 } }, text: '' },
    ]);
    expect(recent.list().map((p) => [p.uri.slice(-4), p.range.start.line, p.range.start.character, p.version])).toEqual([
      ['b.ts', 10, 2, 1],
      ['a.ts', 13, 2, 2],
      ['a.ts', 21, 2, 2],
    ]);
    // A replaced range moves to the start of its replacement; text after it on the same line moves the column.
    recent.shift('file:///a.ts', 3, [
      { range: { start: { line: 13, character: 0 }, end: { line: 13, character: 10 } }, text: 'x' },
      { range: { start: { line: 21, character: 0 }, end: { line: 21, character: 1 } }, text: 'abc' },
    ]);
    expect(recent.list().filter((p) => p.uri.endsWith('a.ts')).map((p) => p.range)).toEqual([
      { start: { line: 13, character: 0 }, end: { line: 13, character: 0 } },
      { start: { line: 21, character: 4 }, end: { line: 21, character: 6 } },
    ]);
    // Deleting the lines between two visits brings them within 3 lines: the more recent one stays.
    recent.shift('file:///a.ts', 4, [{ range: { start: { line: 14, character: 0 }, end: { line: 20, character: 0 } }, text: '' }]);
    expect(recent.list().map((p) => [p.uri.slice(-4), p.range.start.line])).toEqual([
      ['b.ts', 10],
      ['a.ts', 13],
    ]);
    // A whole-text replacement cannot be followed: the ranges stay (readers clamp them), the version moves on.
    recent.shift('file:///b.ts', 2, [{ text: 'all new' }]);
    expect(recent.list()[0]).toMatchObject({ range: range(10), version: 2 });
  });
});

describe('symbols', () => {
  it('finds what the request text names in other files, with references, the target itself left out', async () => {
    const report = snapshot('src/report.ts');
    const context = await build(input(report, declarationTarget(report, 'totalOf'), { text: "use the Ledger class's balance method" }));
    const names = context.symbols.map((s) => `${s.kind} ${s.name} ${s.declaration.file}:${s.declaration.startLine + 1}`);
    expect(names.slice(0, 2)).toEqual(['class Ledger src/ledger.ts:10', 'method Ledger.balance src/ledger.ts:24']);
    const balance = context.symbols.find((s) => s.name === 'Ledger.balance');
    expect(balance?.declaration.text).toBe('/** The sum of every entry, in cents. */\nbalance(): number {\n  let total = 0;\n  for (const entry of this.entries) total += entry.amount;\n  return total;\n}');
    const references = balance?.references.map((r) => `${r.file}:${r.startLine + 1}-${r.endLine + 1} ${r.label ?? ''}`);
    // The use in Account.isOverdrawn is not repeated: the class Account (which totalOf uses) shows it whole, so
    // another use takes its place.
    expect(context.symbols.find((s) => s.name === 'Account')?.declaration.text).toContain('return this.ledger.balance() < 0;');
    expect(references).toEqual(['src/ledger.ts:19-21 Ledger.withdraw', 'src/ledger.ts:31-33 Ledger.describe', 'src/report.ts:8-10 monthlyReport']);
    expect(balance?.references[0]?.text).toBe("withdraw(amount: number, memo = 'withdrawal'): void {\n  if (amount > this.balance()) throw new RangeError('insufficient funds');\n  this.entries.push({ amount: -amount, memo });");
    const rendered = renderRequestContext(context);
    expect(rendered).toContain('#### method `Ledger.balance` (src/ledger.ts:24-29)\n```ts\n/** The sum of every entry');
    expect(rendered).toContain('Used at src/ledger.ts:19-21 in `Ledger.withdraw`:\n```ts\n');
    // totalOf's own use of balance is in the request already.
    expect(references?.some((r) => r.startsWith('src/report.ts:17'))).toBe(false);
  });

  it('resolves what the target code uses through the type checker, classes and functions before properties', async () => {
    const report = snapshot('src/report.ts');
    const context = await build(input(report, declarationTarget(report, 'monthlyReport')));
    // Account.ledger is used too, but the class shows it whole.
    expect(context.symbols.map((s) => `${s.kind} ${s.name}`)).toEqual(['class Account', 'function padLeft', 'function formatAmount', 'method Ledger.balance']);
    expect(context.symbols.find((s) => s.name === 'padLeft')?.declaration).toMatchObject({ file: 'src/format.ts', startLine: 10, endLine: 13 });
  });

  it('falls back to the lexical index for names in files the project has not loaded, redacting secrets', async () => {
    const format = snapshot('src/format.ts');
    const context = await build(input(format, declarationTarget(format, 'padLeft'), { text: 'Rewrite it like `serviceHost` does, with LEDGER_SERVICE_URL' }));
    const byName = new Map(context.symbols.map((s) => [s.name, s]));
    expect(byName.get('serviceHost')?.declaration).toMatchObject({ file: 'src/settings.ts', startLine: 3, endLine: 5, text: 'export function serviceHost(): string {\n  return new URL(LEDGER_SERVICE_URL).host;\n}' });
    const url = byName.get('LEDGER_SERVICE_URL');
    expect(url?.kind).toBe('variable');
    expect(url?.declaration.text).toMatch(/^export const LEDGER_SERVICE_URL = 'postgres:\/\/ledger:\[redacted:[a-z-]+(#\d+)?\]@db\.example\.com:5432\/ledger';$/);
    // Its one use is inside serviceHost, shown whole above; named alone, the use is its reference.
    expect(url?.references).toEqual([]);
    expect(renderRequestContext(context)).not.toContain(URL_PASSWORD_CANARY);
    const alone = await build(input(format, declarationTarget(format, 'padLeft'), { text: 'read it from LEDGER_SERVICE_URL' }));
    expect(alone.symbols.map((s) => s.name)).toEqual(['LEDGER_SERVICE_URL']);
    expect(alone.symbols[0]?.references.map((r) => `${r.file}:${r.startLine + 1}-${r.endLine + 1} ${r.label ?? ''}`)).toEqual(['src/settings.ts:4-6 serviceHost']);
  });

  it('resolves a qualified name to that member only, and interfaces by name', async () => {
    const format = snapshot('src/format.ts');
    const context = await build(input(format, declarationTarget(format, 'padLeft'), { text: 'Like `Ledger.withdraw`, check it against the Entry interface' }));
    expect(context.symbols.map((s) => `${s.kind} ${s.name} ${s.declaration.file}:${s.declaration.startLine + 1}-${s.declaration.endLine + 1}`)).toEqual([
      'method Ledger.withdraw src/ledger.ts:19-22',
      'interface Entry src/ledger.ts:4-8',
    ]);
    expect(context.symbols[1]?.declaration.text).toBe('/** One movement of money. */\nexport interface Entry {\n  amount: number;\n  memo: string;\n}');
  });

  it('falls back to the lexical index when the document is not in the TypeScript program (a JavaScript file)', async () => {
    fs.writeFileSync(path.join(root, 'src/legacy.js'), "// Old code, not in the program (no allowJs).\nexport function legacyTotal(ledger) {\n  return formatAmount(new Ledger().balance() + ledger.balance());\n}\n");
    const legacy = { ...snapshot('src/legacy.js'), languageId: 'javascript' };
    const ledger = snapshot('src/ledger.ts');
    const context = await build(input(legacy, selection(legacy, 'return formatAmount', ';'), { openDocuments: [legacy, ledger] }));
    expect(context.enclosing?.name).toBe('legacyTotal');
    expect(context.symbols.map((s) => `${s.kind} ${s.name} ${s.declaration.file}`)).toEqual(['function formatAmount src/format.ts', 'class Ledger src/ledger.ts', 'method Ledger.balance src/ledger.ts']);
    // References by name in the texts at hand (open documents, the files the project holds); the selection itself is not one.
    const references = context.symbols[0]?.references.map((r) => `${r.file}:${r.startLine + 1}-${r.endLine + 1} ${r.label ?? ''}`);
    expect(references).toContain('src/ledger.ts:31-33 Ledger.describe');
    expect(references?.some((r) => r.startsWith('src/legacy.js'))).toBe(false);
  });

  it('reads names from request text: code-shaped words, backticks, and plain words beside a kind noun', () => {
    expect(namesInRequest("use the Ledger class's balance method")).toEqual([{ simple: 'Ledger' }, { simple: 'balance' }]);
    expect(namesInRequest('Document how `Ledger.withdraw` calls formatAmount() and the helper padLeft.')).toEqual([{ simple: 'withdraw', container: 'Ledger' }, { simple: 'formatAmount' }, { simple: 'padLeft' }]);
    expect(namesInRequest('Add a total to the report and use it in the summary')).toEqual([]);
    expect(namesInRequest('call total() from the function named summary')).toEqual([{ simple: 'total' }, { simple: 'summary' }]);
    expect(namesInRequest('Explain how the method works and what the class does')).toEqual([]);
  });
});

describe('open documents', () => {
  it("takes another open document's most relevant part from the editor's unsaved text", async () => {
    const format = snapshot('src/format.ts');
    const disk = fs.readFileSync(path.join(root, 'src/settings.ts'), 'utf8');
    const edited = `${disk}\n/** Unsaved: the monthly fee, formatted. */\nexport function describeFee(): string {\n  return formatAmount(LEDGER_FEE_CENTS);\n}\n`;
    const settings = snapshot('src/settings.ts', edited, 7);
    const context = await build(input(format, declarationTarget(format, 'formatAmount'), { openDocuments: [format, settings] }));
    expect(context.openDocuments).toEqual([
      { file: 'src/settings.ts', startLine: 7, endLine: 10, label: 'describeFee', text: '/** Unsaved: the monthly fee, formatted. */\nexport function describeFee(): string {\n  return formatAmount(LEDGER_FEE_CENTS);\n}' },
    ]);
    expect(renderRequestContext(context)).toContain('### Other open documents\n\n#### src/settings.ts:8-11 in `describeFee`\n```ts\n/** Unsaved');
    // The editor's text went into the project for the type checker; once the document is closed, the disk's is back.
    const inProject = (): string | undefined => project.tsProject().getSourceFile(path.join(root, 'src/settings.ts'))?.getFullText();
    expect(inProject()).toBe(edited);
    workspace.documentClosed(settings.uri, 'typescript');
    expect(inProject()).toBe(disk);
  });

  it('leaves out an open document that shares nothing with the target, and shows only the head of a long one its file imports', async () => {
    const lines = ['// A long generated table.', ...Array.from({ length: 300 }, (_, i) => `export const row${i} = ${i};`)];
    fs.writeFileSync(path.join(root, 'src/table.ts'), `${lines.join('\n')}\n`);
    fs.writeFileSync(path.join(root, 'src/rows.ts'), "// Rows by number.\nimport * as table from './table.js';\n\nexport function rowCount(): number {\n  return Object.keys(table).length;\n}\n");
    const format = snapshot('src/format.ts');
    const rows = snapshot('src/rows.ts');
    const table = snapshot('src/table.ts');
    const unrelated = await build(input(format, declarationTarget(format, 'padLeft'), { openDocuments: [format, table], budgetTokens: 5_000 }));
    expect(unrelated.openDocuments).toEqual([]);
    const context = await build(input(rows, declarationTarget(rows, 'rowCount'), { openDocuments: [rows, table], budgetTokens: 5_000 }));
    expect(context.openDocuments).toHaveLength(1);
    expect(context.openDocuments[0]).toMatchObject({ file: 'src/table.ts', startLine: 0, endLine: 24 });
    expect(context.openDocuments[0]?.text.split('\n')).toEqual(lines.slice(0, 25));
  });
});

describe('recent positions in the context', () => {
  it('shows a few lines around each related place, the target, unrelated places and what the context already holds left out, clamped to the current text', async () => {
    const format = snapshot('src/format.ts');
    const accounts = snapshot('src/accounts.ts');
    const ledger = snapshot('src/ledger.ts');
    const report = snapshot('src/report.ts');
    const settings = snapshot('src/settings.ts');
    // The report imports the accounts and the format; the ledger declares the `balance` it calls.
    const target = declarationTarget(report, 'totalOf');
    const recent = [
      visit(report, 'accounts.reduce'), // the target itself
      visit(accounts, 'to.ledger.deposit'), // in the class the context shows whole
      { uri: ledger.uri, range: { start: { line: 500, character: 0 }, end: { line: 510, character: 0 } }, at: 0, version: 1 }, // from a longer version
      visit(settings, 'return new URL'), // in a file the report does not import, naming nothing it uses
      visit(format, 'text.length >= width'), // in a file it imports
      visit(format, "' '.repeat"), // near the earlier one: shown once
    ];
    const context = await build(input(report, target, { recent, openDocuments: [report, accounts] }));
    expect(context.symbols.map((s) => s.name)).toContain('Account');
    expect(context.recent.map((r) => `${r.file}:${r.startLine + 1}-${r.endLine + 1} ${r.label ?? ''}`)).toEqual(['src/ledger.ts:33-35 ', 'src/format.ts:11-14 padLeft']);
    // Blank lines at the edges of a window are left out.
    expect(context.recent[0]?.text).toBe('  }\n}\n');
    expect(context.recent[1]?.text).toBe("/** Pads a label on the left to a fixed width. */\nexport function padLeft(text: string, width: number): string {\n  return text.length >= width ? text : ' '.repeat(width - text.length) + text;\n}");
  });
});

describe('the budget', () => {
  const order = ['enclosing', 'symbol', 'recent', 'open', 'reference'] as const;
  const beyond: Record<(typeof order)[number], RegExp> = {
    enclosing: /^\d+ enclosing declarations? beyond the budget$/,
    symbol: /^\d+ symbols? beyond the budget$/,
    recent: /^\d+ recent positions? beyond the budget$/,
    open: /^\d+ open documents? beyond the budget$/,
    reference: /^\d+ symbol references? beyond the budget$/,
  };

  beforeAll(() => {
    // A long function to work in: its enclosing declaration alone is a few thousand characters.
    const body = Array.from({ length: 150 }, (_, i) => `  const t${i} = (accounts[${i % 3}]?.ledger.balance() ?? 0) + ${i};`);
    fs.writeFileSync(
      path.join(root, 'src/reconcile.ts'),
      ["// Reconciliation of many accounts at once.", "import type { Account } from './accounts.js';", '', '/** Adds everything up, slowly. */', 'export function reconcile(accounts: Account[]): number {', ...body, '  return t0 + t149;', '}', ''].join('\n'),
    );
  });

  /** A request with something of every kind. */
  function richInput(budgetTokens: number): RequestContextInput {
    const reconcile = snapshot('src/reconcile.ts');
    const accounts = snapshot('src/accounts.ts');
    const format = snapshot('src/format.ts');
    const settings = snapshot('src/settings.ts');
    const ledger = snapshot('src/ledger.ts');
    return input(reconcile, selection(reconcile, 'const t70', ' + 70;'), {
      text: "use the Ledger class's balance method and `serviceHost`",
      openDocuments: [reconcile, accounts, format, settings, ledger],
      recent: [visit(accounts, 'to.ledger.deposit'), visit(ledger, 'insufficient funds'), visit(settings, 'new URL'), visit(format, 'padStart'), visit(reconcile, 'const t10 ')],
      budgetTokens,
    });
  }

  function categoriesOf(context: RequestContext): Set<(typeof order)[number]> {
    const found = new Set<(typeof order)[number]>();
    if (context.enclosing) found.add('enclosing');
    if (context.symbols.length) found.add('symbol');
    if (context.recent.length) found.add('recent');
    if (context.openDocuments.length) found.add('open');
    if (context.symbols.some((s) => s.references.length)) found.add('reference');
    return found;
  }

  it('holds everything within a large budget, and nothing within one too small for a heading', async () => {
    const all = await build(richInput(20_000));
    expect(all.omitted).toEqual([]);
    expect([...categoriesOf(all)]).toEqual([...order]);
    expect(all.tokens).toBe(Math.ceil(renderRequestContext(all).length / 4));
    expect(all.tokens).toBeGreaterThan(2_000);
    // The long enclosing function is capped before any budget, so the rest keeps a share of a large one; the cut
    // keeps its head, its tail and the lines around the target.
    const enclosing = all.enclosing?.text.split('\n') ?? [];
    expect(enclosing).toHaveLength(120);
    expect(enclosing.filter((line) => /^\/\* … \d+ lines left out … \*\/$/.test(line))).toHaveLength(2);
    expect(enclosing.slice(0, 2)).toEqual(['/** Adds everything up, slowly. */', 'export function reconcile(accounts: Account[]): number {']);
    expect(enclosing.slice(-2)).toEqual(['  return t0 + t149;', '}']);
    const targetLine = enclosing.indexOf('  const t70 = (accounts[1]?.ledger.balance() ?? 0) + 70;');
    expect(enclosing.slice(targetLine - 3, targetLine + 4).every((line) => line.startsWith('  const t'))).toBe(true);
    // Cut to a small budget, it still shows the target's neighbourhood.
    const small = await build(richInput(300));
    expect(small.enclosing?.text).toContain('const t70 = ');
    expect(small.omitted).toContain('the enclosing function reconcile: cut to fit the budget');
    const none = await build(richInput(10));
    expect(renderRequestContext(none)).toBe('');
    expect(none.tokens).toBe(0);
    // References go with their symbols, so they are not counted apart.
    expect(none.omitted.map((o) => order.find((c) => beyond[c].test(o)))).toEqual(['enclosing', 'symbol', 'recent', 'open']);
  });

  it('never renders more than the budget, fills in priority order and says what it left out (seeded random budgets)', async () => {
    const seed = testSeed(20_251_122);
    const random = prng(seed);
    const full = await build(richInput(20_000));
    for (let i = 0; i < 60; i++) {
      const budget = 50 + random.int(4_951);
      const context = await build(richInput(budget));
      const rendered = renderRequestContext(context);
      const where = `budget ${budget} (ASSISTANT_SEED=${seed}, try ${i})`;
      expect(rendered.length, where).toBeLessThanOrEqual(budget * 4);
      expect(context.tokens, where).toBe(Math.ceil(rendered.length / 4));
      expect(context.tokens, where).toBeLessThanOrEqual(budget);
      if (budget >= full.tokens) expect(context, where).toEqual(full);
      else expect(context.omitted.some((o) => / beyond the budget$|: cut to fit the budget$|: shown as an outline for the budget$/.test(o)), where).toBe(true);
      // Something of a later category means nothing of an earlier one was left out whole.
      const present = categoriesOf(context);
      const latest = Math.max(-1, ...[...present].map((c) => order.indexOf(c)));
      for (const category of order.slice(0, Math.max(0, latest))) expect(context.omitted.some((o) => beyond[category].test(o)), `${where}: ${category} left out before ${order[latest]}`).toBe(false);
      // At most one piece is cut, and it is the last one in.
      expect(context.omitted.filter((o) => o.endsWith(': cut to fit the budget')).length, where).toBeLessThanOrEqual(1);
    }
  });
  it('measures the rendering without building it: the same length for any context (seeded random contexts)', () => {
    const seed = testSeed(20_261_122);
    const random = prng(seed);
    const texts = ['', 'x', 'const a = 1;', 'a `tick` and ``two``', '```ts\nfenced\n```', 'line one\nline two\n', 'é日本🙂 \u2028'];
    const files = ['src/a.ts', 'lib/b.mjs', 'README.md', 'data.json', 'noext', 'c.TSX'];
    const snippet = (): ContextSnippet => {
      const startLine = random.int(200);
      return { file: files[random.int(files.length)]!, startLine, endLine: startLine + random.int(3), text: Array.from({ length: 1 + random.int(3) }, () => texts[random.int(texts.length)]).join('\n'), ...(random.int(2) ? { label: `Label${random.int(9)}` } : {}) };
    };
    const list = (max: number): ContextSnippet[] => Array.from({ length: random.int(max + 1) }, snippet);
    for (let i = 0; i < 300; i++) {
      const context: RequestContext = {
        ...(random.int(2) ? { enclosing: { name: 'Ledger', kind: random.int(2) ? 'class' : 'function', ...snippet() } } : {}),
        symbols: Array.from({ length: random.int(4) }, () => ({ name: `S${random.int(9)}`, kind: 'function', declaration: snippet(), references: list(3) })),
        recent: list(3),
        openDocuments: list(3),
        tokens: 0,
        omitted: [],
      };
      expect(renderedLength(context), `ASSISTANT_SEED=${seed}, try ${i}`).toBe(renderRequestContext(context).length);
      // Measured again after a snippet's text changes (a snippet measured before must not keep its old length).
      const some = context.recent[0];
      if (some) {
        some.text += '\n```more```';
        expect(renderedLength(context), `ASSISTANT_SEED=${seed}, try ${i}, changed`).toBe(renderRequestContext(context).length);
      }
    }
  });

  it('cuts a one-line (minified) document by characters, within the budget', async () => {
    const minified = `export const table={${Array.from({ length: 400 }, (_, i) => `k${i}:${i}`).join(',')}};`;
    fs.writeFileSync(path.join(root, 'src/table.min.js'), minified);
    fs.writeFileSync(path.join(root, 'src/lookup.ts'), "// Looks up the minified table.\n// @ts-expect-error: no declarations for it.\nimport { table } from './table.min.js';\n\nexport function lookup(key: string): unknown {\n  return (table as Record<string, unknown>)[key];\n}\n");
    const lookup = snapshot('src/lookup.ts');
    const table = { ...snapshot('src/table.min.js'), languageId: 'javascript' };
    // The open documents' share of the budget is a quarter of it.
    const context = await build(input(lookup, declarationTarget(lookup, 'lookup'), { openDocuments: [lookup, table], budgetTokens: 800 }));
    const text = context.openDocuments[0]?.text ?? '';
    expect(text).toMatch(/^export const table=\{k0:0,k1:1,[^\n]*\n\/\* … \d+ characters cut … \*\/\n[^\n]*k399:399\};$/);
    expect(context.omitted).toEqual(['the open document src/table.min.js: cut to fit the budget']);
    expect(context.tokens).toBeLessThanOrEqual(200);
  });
});


describe('privacy', () => {
  it('never puts text of an excluded file in the context, by any path, and names each excluded file in the omissions', async () => {
    const secure = snapshot('src/secure.ts');
    const vault = snapshot('src/vault.ts', `${fs.readFileSync(path.join(root, 'src/vault.ts'), 'utf8')}// ${VAULT_EDITOR_CANARY}\n`);
    const env = snapshot('.env');
    const settings = snapshot('src/settings.ts', `${fs.readFileSync(path.join(root, 'src/settings.ts'), 'utf8')}export const copied = '${ENV_CANARY}';\n`);
    const request = input(secure, declarationTarget(secure, 'sealStatement'), {
      // `serviceHost` makes the settings file one the context draws on, so the place visited there is related.
      text: 'use the Vault class and its seal method, like formatAmount does, and `serviceHost`',
      openDocuments: [secure, vault, env, settings],
      recent: [visit(vault, 'seal(text'), visit(env, 'LEDGER_API_TOKEN'), visit(settings, 'copied')],
      budgetTokens: 20_000,
    });
    const context = await build(request);
    const rendered = renderRequestContext(context);
    for (const canary of [VAULT_CANARY, VAULT_EDITOR_CANARY, ENV_CANARY, 'VAULT_KEY', 'Sealing with a key', URL_PASSWORD_CANARY]) expect(rendered).not.toContain(canary);
    expect(JSON.stringify(context)).not.toMatch(/CTX-CANARY|ctx-canary|VAULT_KEY/);
    expect(context.omitted.slice(0, 2).sort()).toEqual(['.env: a secrets file (by its name)', 'src/vault.ts: ignored by .gitignore']);
    // The settings file is included, the .env value it repeats redacted.
    expect(context.recent.map((r) => r.file)).toEqual(['src/settings.ts']);
    expect(rendered).toMatch(/export const copied = '\[redacted:[a-z-]+(#\d+)?\]';/);
    // formatAmount is still found, without its reference in the vault.
    expect(context.symbols.find((s) => s.name === 'formatAmount')?.references.map((r) => r.file)).toContain('src/ledger.ts');
    expect(context.symbols.some((s) => s.declaration.file === 'src/vault.ts' || s.references.some((r) => r.file === 'src/vault.ts'))).toBe(false);
  });

  it('names the excluded file for each path on its own: an open document, a recent position, a symbol, a reference', async () => {
    const secure = snapshot('src/secure.ts');
    const format = snapshot('src/format.ts');
    const vault = snapshot('src/vault.ts');
    const cases: [string, RequestContextInput][] = [
      ['open document', input(format, declarationTarget(format, 'padLeft'), { openDocuments: [format, vault] })],
      ['recent position', input(format, declarationTarget(format, 'padLeft'), { recent: [visit(vault, 'seal(text')] })],
      // Found where the program reaches it (secure.ts, open, imports it): ignored files are not searched otherwise.
      ['symbol named in the request', input(format, declarationTarget(format, 'padLeft'), { text: 'seal it with the Vault class', openDocuments: [format, secure] })],
      ['symbol used by the target', input(secure, declarationTarget(secure, 'sealStatement'))],
      // secure.ts, open, brings vault.ts into the program, where it calls formatAmount.
      ['reference', input(format, declarationTarget(format, 'padLeft'), { text: 'like formatAmount does', openDocuments: [format, secure] })],
    ];
    for (const [path_, request] of cases) {
      const context = await build(request);
      if (path_ === 'reference') expect(context.symbols.map((s) => s.name)).toEqual(['formatAmount']);
      expect(context.omitted, path_).toContain('src/vault.ts: ignored by .gitignore');
      expect(JSON.stringify(context), path_).not.toMatch(/CTX-CANARY|VAULT_KEY|Sealing with a key/);
    }
  });

  it('gives nothing at all for a target in an excluded document', async () => {
    const vault = snapshot('src/vault.ts');
    const context = await build(input(vault, declarationTarget(vault, 'Vault.seal'), { text: 'use formatAmount' }));
    expect(context).toEqual({ recent: [], openDocuments: [], symbols: [], tokens: 0, omitted: ['src/vault.ts: ignored by .gitignore'] });
  });
});

describe('cancellation and speed', () => {
  it('rejects with the reason when the signal aborts, before or during the work', async () => {
    const report = snapshot('src/report.ts');
    const before = new AbortController();
    before.abort(new Error('cancelled before'));
    await expect(buildRequestContext(input(report, declarationTarget(report, 'totalOf')), before.signal)).rejects.toThrow('cancelled before');
    const during = new AbortController();
    const pending = buildRequestContext(input(report, declarationTarget(report, 'totalOf'), { text: 'use the Ledger class' }), during.signal);
    during.abort(new Error('cancelled during'));
    await expect(pending).rejects.toThrow('cancelled during');
  });
});
