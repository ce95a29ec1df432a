// End-to-end over --stdio: an open document reached through a symlink out of the workspace is never sent (as another open document, a recent place or context), and tasks refuse to run on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';

const suite = scriptedSuite();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

describe('a document reached through a symlink out of the workspace', { timeout: 120_000 }, () => {
  it('is not sent as another open document, not used as context, and tasks refuse to run on it', async () => {
    const root = suite.workspace('context', { link: false });
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-outside-document-'));
    folders.push(outside);
    const canary = 'outside-open-canary-2f9e';
    fs.writeFileSync(path.join(outside, 'shared.ts'), `// ${canary}\n/** How a ledger's balance is shown elsewhere. */\nexport function sharedBalance(cents: number): string {\n  return '${canary}' + cents;\n}\n`);
    fs.symlinkSync(path.join(outside, 'shared.ts'), path.join(root, 'src', 'shared.ts'));
    const { editor } = await TestEditor.start({
      root,
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-writer' },
      initializationOptions: { assistant: { disabledAgents: ['doc-offline'], annotations: { enabled: false } } },
    });
    suite.track(editor);
    const ledger = await editor.open('src/ledger.ts');
    const shared = await editor.open('src/shared.ts');
    const at = (uri: string, needle: string) => ({ start: editor.position(uri, needle), end: editor.position(uri, needle) });
    // The user worked in the linked file just before asking.
    await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: shared.uri }, range: at(shared.uri, 'sharedBalance('), context: { diagnostics: [] } });

    suite.model.enqueue({ kind: 'text', content: "/** The sum of every entry, in cents (see sharedBalance for how it is shown). */" });
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document the balance method, shown by sharedBalance', task: 'document', textDocument: { uri: ledger.uri }, range: at(ledger.uri, 'balance(): number') });
    expect(answer.responses[0]?.status).toBe('ok');
    const sent = suite.model.requests.map((r) => r.rawBody).join('\n');
    expect(sent).toContain('## Context');
    expect(sent).not.toContain(canary);
    expect(sent).not.toContain('sharedBalance(cents');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.context.enrichment!.omitted.join('\n')).toContain('src/shared.ts: leads outside the workspace');

    // A task on it refuses before any agent runs, through ask and through a code action alike.
    const requestsBefore = suite.model.requests.length;
    const asked = await editor.request<AskResult>('assistant/ask', { text: 'document sharedBalance', task: 'document', textDocument: { uri: shared.uri }, range: at(shared.uri, 'sharedBalance(') });
    expect(asked.responses).toEqual([]);
    expect(asked.message).toMatch(/^src\/shared\.ts leads outside the workspace \(it is really .*assistant-ls-outside-document-.*shared\.ts\): the assistant works only on the workspace's own files\.$/);
    const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: shared.uri }, range: at(shared.uri, 'sharedBalance('), context: { diagnostics: [] } });
    const explain = actions.find((a) => /^Assistant: Explain/.test(a.title))!;
    const run = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: explain.command!.command, arguments: explain.command!.arguments });
    expect(run).toMatchObject({ applied: false, message: expect.stringMatching(/leads outside the workspace/) });
    expect(suite.model.requests.length).toBe(requestsBefore);
    const refused = await editor.request<TraceResult>('assistant/trace', { id: asked.interactionId });
    expect(JSON.stringify(refused)).not.toContain(canary);
  });
});
