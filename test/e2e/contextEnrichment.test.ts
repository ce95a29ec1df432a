// End-to-end context enrichment over --stdio: a model prompt carries the enclosing class, the symbols the request names, the other open documents' unsaved text and the places visited last, within the budget, and nothing from ignored files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AskResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';

const suite = scriptedSuite();

describe('context enrichment', { timeout: 120_000 }, () => {
  it('sends the enclosing class, named symbols, open documents and recent places with a model request, and no ignored file', async () => {
    const root = suite.workspace('context', { link: false });
    const vaultCanary = 'ctx-canary-vault-e2e-7d1c';
    fs.writeFileSync(path.join(root, 'src', 'vault.ts'), `// Ignored by git.\nexport function seal(text: string): string {\n  return '${vaultCanary}' + text;\n}\n`);
    const { editor } = await TestEditor.start({
      root,
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-writer' },
      initializationOptions: { assistant: { disabledAgents: ['doc-offline'], annotations: { enabled: false } } },
    });
    suite.track(editor);
    const ledger = await editor.open('src/ledger.ts');
    const accounts = await editor.open('src/accounts.ts');
    await editor.open('src/vault.ts');
    // Unsaved text in another open document: the prompt must show the editor's text, not the disk's.
    await editor.setText(accounts.uri, accounts.text.replace('isOverdrawn(): boolean {', 'isOverdrawn(): boolean {\n    // unsaved-edit-marker\n'));
    // The user looked at the transfer method and at the vault before asking.
    const at = (uri: string, needle: string) => ({ start: editor.position(uri, needle), end: editor.position(uri, needle) });
    await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: accounts.uri }, range: at(accounts.uri, 'transfer(to'), context: { diagnostics: [] } });
    await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: editor.uri('src/vault.ts') }, range: at(editor.uri('src/vault.ts'), 'seal('), context: { diagnostics: [] } });

    suite.model.enqueue({ kind: 'text', content: '/** The sum of every entry, in cents; negative when overdrawn (see Account.isOverdrawn). */' });
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document the balance method, used by Account.isOverdrawn', task: 'document', textDocument: { uri: ledger.uri }, range: at(ledger.uri, 'balance(): number') });
    expect(answer.responses[0]?.status).toBe('ok');
    const prompt = (suite.model.requests[0]!.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').map((m) => m.content).join('\n');
    expect(prompt).toContain('## Context');
    expect(prompt).toMatch(/### Enclosing class `Ledger`/);
    expect(prompt).toContain('isOverdrawn');
    expect(prompt).toContain('unsaved-edit-marker');
    expect(prompt).toMatch(/### Symbols the request names or the code uses[\s\S]*`Account\.isOverdrawn`/);
    expect(prompt).toMatch(/### Recently visited[\s\S]*src\/accounts\.ts:\d+-\d+ in `Account\.transfer`/);
    expect(prompt).toMatch(/### Other open documents[\s\S]*src\/accounts\.ts/);
    expect(prompt).not.toContain(vaultCanary);
    expect(prompt).not.toContain('ctx-canary-env-5f3a9b7c1d');

    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    const enrichment = trace.interactions[0]!.context.enrichment!;
    expect(enrichment.tokens).toBeGreaterThan(0);
    expect(enrichment.tokens).toBeLessThanOrEqual(1_500);
    expect(enrichment.omitted.join('\n')).toContain('src/vault.ts: ignored by .gitignore');
  });
});
