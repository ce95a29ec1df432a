// End-to-end over --stdio: one listing of the workspace's files for every feature (an ignored file, built output and a symlink out of the workspace found by none), and file events keeping it current.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { AskResult, ListenerRunResult } from '../../protocol/src/index.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { TestEditor, FULL_CAPABILITIES, linkModules } from '../support/lspClient.js';
import { evalCli } from '../support/evalSupport.js';
import { scriptedSuite } from '../support/scriptedSuite.js';

const suite = scriptedSuite();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function tempFolder(prefix: string): string {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), `assistant-ls-${prefix}-`));
  folders.push(made);
  return made;
}

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

/** The names of the code no feature may find, and where it is: a git-ignored folder, built output, a symlink out of the workspace. */
const HIDDEN = ['hiddenLedgerTotal', 'builtLedgerTotal', 'outsideLedgerTotal'];
const HIDDEN_PATHS = /private\/|dist\/|src\/linkedLedger\.ts|hidden-canary|outside-canary|unusedBuilt/;

/**
 * A workspace whose tsconfig includes everything and whose ESLint lints every .js file, so only the listing keeps
 * the hidden files out: `private/` is git-ignored, `dist/` is built output, `src/linkedLedger.ts` leads outside.
 */
function ledgerWorkspace(): string {
  const root = tempFolder('listing');
  const outside = tempFolder('listing-outside');
  write(outside, { 'outsideLedger.ts': "// outside-canary-51d2\nexport function outsideLedgerTotal(entries: number[]): number {\n  return entries.length;\n}\nexport const outsideLedgerLabel: number = 'outside';\n" });
  write(root, {
    'package.json': '{ "name": "ledger", "type": "module" }\n',
    'tsconfig.json': '{ "compilerOptions": { "strict": true, "module": "NodeNext", "moduleResolution": "NodeNext", "target": "ES2022", "allowJs": true, "noEmit": true }, "include": ["**/*"] }\n',
    'eslint.config.js': "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error' } }];\n",
    '.gitignore': 'private/\n',
    'src/ledger.ts': "export function visibleLedgerTotal(entries: number[]): number {\n  const total = entries.reduce((sum, entry) => sum + entry, 0);\n  return total;\n}\nexport const visibleLedgerLabel: number = 'ledger';\n",
    'src/tally.js': 'export function visibleTally(entries) {\n  const unusedVisible = 1;\n  return entries.length;\n}\n',
    'private/hiddenLedger.ts': "// hidden-canary-83a0\nexport function hiddenLedgerTotal(entries: number[]): number {\n  return entries.length;\n}\nexport const hiddenLedgerLabel: number = 'hidden';\n",
    'private/hidden.js': 'export function hiddenTally(entries) {\n  const unusedHidden = 1;\n  return entries.length;\n}\n',
    'dist/builtLedger.js': 'export function builtLedgerTotal(entries) {\n  const unusedBuilt = 1;\n  return entries.length;\n}\n',
  });
  fs.symlinkSync(path.join(outside, 'outsideLedger.ts'), path.join(root, 'src', 'linkedLedger.ts'));
  linkModules(root);
  return root;
}

describe('one listing of the workspace', { timeout: 240_000 }, () => {
  it('hides the same files from symbol search, questions, repository tools, type-check and lint listings, and eval cases', async () => {
    const root = ledgerWorkspace();
    const { editor } = await TestEditor.start({
      root,
      env: {},
      initializationOptions: {
        assistant: { useEnvironment: false, agents: [{ name: 'engineer', baseURL: suite.model.baseURL, apiKey: 'k', model: 'scripted-engineer', tasks: ['issue'] }], annotations: { enabled: false }, pipelines: { toolRounds: 1, patchAttempts: 1, maxSelfFixes: 0 } },
      },
    });
    suite.track(editor);
    const published = new Map<string, Diagnostic[]>();
    editor.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => void published.set(params.uri, params.diagnostics));

    // Symbol search: a name in the request is looked for in the listed files.
    const found = await editor.request<AskResult>('assistant/ask', { text: 'explain visibleLedgerTotal', task: 'explain' });
    expect(found.responses.length, found.message).toBeGreaterThan(0);
    for (const name of HIDDEN) {
      const missing = await editor.request<AskResult>('assistant/ask', { text: `explain ${name}`, task: 'explain' });
      expect(missing.responses, name).toEqual([]);
      expect(missing.message).toMatch(/^Which code is this about\?/);
    }

    // The question task's ranked locations.
    const question = await editor.request<AskResult>('assistant/ask', { text: 'where is the ledger total computed?', task: 'question' });
    const locations = question.responses.find((r) => r.agent.name === 'question-offline')!.text;
    expect(locations).toContain('src/ledger.ts');
    expect(locations).not.toMatch(HIDDEN_PATHS);

    // The repository tools a model calls.
    suite.model.setDefault({ kind: 'error', status: 400, message: 'no more answers in this test' });
    suite.model.enqueue({
      kind: 'toolCalls',
      calls: [
        ...HIDDEN.map((name) => ({ name: 'search_method', arguments: { name } })),
        { name: 'search_code', arguments: { code: 'LedgerTotal' } },
        { name: 'get_relevant_code', arguments: { query: 'ledger total of entries' } },
      ],
    });
    await editor.request<AskResult>('assistant/ask', { text: 'The ledger total is wrong for empty ledgers.', task: 'issue' });
    const withTools = suite.model.requests.find((r) => (r.body.messages as { role: string }[]).some((m) => m.role === 'tool'));
    const toolResults = (withTools!.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults).toHaveLength(HIDDEN.length + 2);
    expect(toolResults.join('\n')).toContain('visibleLedgerTotal');
    expect(toolResults.join('\n')).not.toMatch(HIDDEN_PATHS);
    for (const [i, name] of HIDDEN.entries()) expect(toolResults[i]).toMatch(new RegExp(`^No function or method named ${name}`));

    // The type-check and lint listings.
    const typecheck = (await editor.request('workspace/executeCommand', { command: 'assistant.checkTypes', arguments: [] })) as ListenerRunResult;
    expect(typecheck).toMatchObject({ listener: 'typecheck', ran: true });
    expect((published.get(editor.uri('src/ledger.ts')) ?? []).map((d) => d.code)).toContain(2322);
    const lint = (await editor.request('workspace/executeCommand', { command: 'assistant.lint', arguments: [] })) as ListenerRunResult;
    expect(lint).toMatchObject({ listener: 'lint', ran: true });
    expect(lint.items!.map((i) => i.uri)).toContain(editor.uri('src/tally.js'));
    const withProblems = [...published].filter(([, diagnostics]) => diagnostics.length > 0).map(([uri]) => uri);
    expect(withProblems.sort()).toEqual([editor.uri('src/ledger.ts'), editor.uri('src/tally.js')].sort());

    // The evaluation's cases.
    const out = tempFolder('listing-eval');
    const json = path.join(out, 'doc.json');
    const result = await evalCli([root, '--scenarios', 'doc', '--json', json], {});
    expect(result.code, result.stderr).toBe(0);
    const records = fs.readFileSync(`${json.replace(/\.json$/, '')}.records.jsonl`, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as EvalRecord);
    expect(records.map((r) => r.file)).toContain('src/ledger.ts');
    for (const record of records) expect(record.file).not.toMatch(HIDDEN_PATHS);
  });

  it('registers file watchers where the client can, and sees a file the editor reports at once', async () => {
    const root = ledgerWorkspace();
    const capabilities = { ...FULL_CAPABILITIES, workspace: { ...FULL_CAPABILITIES.workspace, didChangeWatchedFiles: { dynamicRegistration: true } } };
    const { editor } = await TestEditor.start({ root, env: {}, capabilities });
    suite.track(editor);
    await expect.poll(() => editor.registrations.map((r) => r.method)).toContain('workspace/didChangeWatchedFiles');
    const watchers = (editor.registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles')!.registerOptions as { watchers: { globPattern: string }[] }).watchers;
    expect(watchers.map((w) => w.globPattern)).toEqual(expect.arrayContaining(['**/*', '**/{.gitignore,.assistantignore}']));

    expect((await editor.request<AskResult>('assistant/ask', { text: 'explain visibleLedgerTotal', task: 'explain' })).responses.length).toBeGreaterThan(0);
    write(root, { 'src/audit.ts': '/** Audits a ledger. */\nexport function auditLedgerEntries(entries: number[]): boolean {\n  return entries.every((entry) => Number.isFinite(entry));\n}\n' });
    // The listing trusts the editor's events: until the editor reports the file, it is not there.
    expect((await editor.request<AskResult>('assistant/ask', { text: 'explain auditLedgerEntries', task: 'explain' })).responses).toEqual([]);
    await editor.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: editor.uri('src/audit.ts'), type: 1 }] });
    expect((await editor.request<AskResult>('assistant/ask', { text: 'explain auditLedgerEntries', task: 'explain' })).responses.length).toBeGreaterThan(0);

    // A change to an ignore file reported by the editor hides what it now matches.
    fs.appendFileSync(path.join(root, '.gitignore'), 'src/audit.ts\n');
    await editor.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: editor.uri('.gitignore'), type: 2 }] });
    expect((await editor.request<AskResult>('assistant/ask', { text: 'explain auditLedgerEntries', task: 'explain' })).responses).toEqual([]);
  });
});
