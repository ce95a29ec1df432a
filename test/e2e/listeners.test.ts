// End-to-end check commands over --stdio: a failing test and a type error published as diagnostics with "Fix with assistant" (which runs the issue pipeline), and the lint queue worked through by "fix all".
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClientCapabilities, CodeAction, Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { FixAllResult, ListenerRunResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { FULL_CAPABILITIES, TestEditor, handleFiles, until } from '../support/lspClient.js';
import { scriptedSuite } from '../support/scriptedSuite.js';

const suite = scriptedSuite();

async function start(fixture: string, options: { runTests?: boolean; withModel?: boolean } = {}): Promise<{ editor: TestEditor; root: string; published: Map<string, Diagnostic[]> }> {
  const root = suite.workspace(fixture);
  const { editor } = await TestEditor.start({
    root,
    env: options.withModel === false ? {} : { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: suite.model.baseURL, ASSISTANT_MODEL: 'scripted-engineer' },
    // Progress at once (progress.showAfterMs 0): the fix-all test reads the reports of work that may end within 100 ms.
    initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 120_000 }, oracle: { runTests: options.runTests ?? false, testTimeoutMs: 60_000 }, annotations: { enabled: false }, progress: { showAfterMs: 0 } } },
  });
  suite.track(editor);
  handleFiles(editor);
  const published = new Map<string, Diagnostic[]>();
  editor.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => void published.set(params.uri, params.diagnostics));
  return { editor, root, published };
}

function command(editor: TestEditor, name: string, args: unknown[] = []): Promise<unknown> {
  return editor.request('workspace/executeCommand', { command: name, arguments: args });
}

function actions(editor: TestEditor, uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
  return editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
}

describe('check commands', { timeout: 240_000 }, () => {
  it('publishes a failing test at its assertion, and its "Fix with assistant" runs the issue pipeline to a patch whose tests pass', async () => {
    const { editor, root, published } = await start('pipelines', { runTests: true });
    const test = await editor.open('src/cart.test.ts');
    const run = (await command(editor, 'assistant.runTests')) as ListenerRunResult;
    expect(run).toMatchObject({ listener: 'tests', ran: true, problems: 1 });
    expect(run.message).toMatch(/1 passed, 1 failed/);
    const diagnostics = published.get(test.uri) ?? [];
    expect(diagnostics).toHaveLength(1);
    const failure = diagnostics[0]!;
    expect(failure.range.start.line).toBe(editor.position(test.uri, 'expect(cart.total()).toBe(3);').line);
    expect(failure.message).toMatch(/counts every unit of a line/);
    expect(failure.message).toMatch(/expected[\s\S]*3[\s\S]*1\.5|1\.5[\s\S]*3/);

    const fix = (await actions(editor, test.uri, failure)).find((a) => a.title.startsWith('Assistant: Fix with assistant'));
    expect(fix, 'a "Fix with assistant" action').toBeDefined();
    expect(fix!.command!.command).toBe('assistant.issue');
    suite.model.enqueue(
      { kind: 'text', content: JSON.stringify({ locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'price times quantity' }] }) },
      { kind: 'text', content: '```diff\n--- a/src/pricing.ts\n+++ b/src/pricing.ts\n@@ -11,3 +11,3 @@\n export function lineTotal(item: LineItem): number {\n-  return item.price;\n+  return item.price * item.quantity;\n }\n```' },
      { kind: 'text', content: '{"verdict": "approve", "explanation": "The line total now counts every unit."}' },
    );
    const result = (await editor.request('workspace/executeCommand', { command: fix!.command!.command, arguments: fix!.command!.arguments })) as TaskCommandResult;
    expect(result).toMatchObject({ applied: true });
    const issue = suite.model.requests[0]!.body.messages.find((m: { role: string }) => m.role === 'user').content as string;
    expect(issue).toMatch(/Failing test at src\/cart\.test\.ts:15/);
    expect(fs.readFileSync(path.join(root, 'src/pricing.ts'), 'utf8')).toContain('return item.price * item.quantity;');
    const trace = await editor.request<TraceResult>('assistant/trace', { id: result.interactionId });
    expect(trace.interactions[0]!.responses[0]!.verdict, JSON.stringify(trace.interactions[0]!.responses[0]!.verdict)).toMatchObject({ passed: true, testsPassed: true });
  });

  it('type-checks the project with the unsaved text and publishes the error with a fix action', async () => {
    const { editor, published } = await start('pipelines');
    const cart = await editor.open('src/cart.ts');
    const original = cart.text;
    await editor.setText(cart.uri, original.replace('  /** Adds a line to the cart. */', "  readonly label: number = 'cart';\n\n  /** Adds a line to the cart. */"));
    const run = (await command(editor, 'assistant.checkTypes')) as ListenerRunResult;
    expect(run).toMatchObject({ listener: 'typecheck', ran: true, problems: 1 });
    const [error] = published.get(cart.uri) ?? [];
    expect(error).toMatchObject({ source: 'typescript', code: 2322, range: { start: { line: editor.position(cart.uri, 'readonly label').line } } });
    const titles = (await actions(editor, cart.uri, error!)).map((a) => a.title);
    expect(titles.some((t) => t.startsWith('Assistant: Fix with assistant'))).toBe(true);
    // Fixed in the buffer and checked again: the diagnostic goes away.
    await editor.setText(cart.uri, original);
    await command(editor, 'assistant.checkTypes');
    expect(published.get(cart.uri), JSON.stringify(published.get(cart.uri))).toEqual([]);
  });

  it('publishes fresh type errors of a file the type-check reported on once its text changes, without another run', async () => {
    const { editor, published } = await start('pipelines', { withModel: false });
    const cart = await editor.open('src/cart.ts');
    const original = cart.text;
    await editor.setText(cart.uri, original.replace('  /** Adds a line to the cart. */', "  readonly label: number = 'cart';\n\n  /** Adds a line to the cart. */"));
    await command(editor, 'assistant.checkTypes');
    expect((published.get(cart.uri) ?? []).map((d) => d.code)).toEqual([2322]);
    // The user deletes the bad line (and saves): the error must not stay on the corrected code.
    await editor.setText(cart.uri, original);
    await until(() => published.get(cart.uri)?.length === 0, 20_000, 'the fresh diagnostics of cart.ts');
    // Broken again, and the error comes back on its new line.
    await editor.setText(cart.uri, original.replace('  /** Adds a line to the cart. */', "  /** Adds a line to the cart. */\n  readonly count: number = 'one';"));
    await until(() => published.get(cart.uri)?.length === 1, 20_000, 'the new error of cart.ts');
    expect(published.get(cart.uri)![0]).toMatchObject({ code: 2322, source: 'typescript', range: { start: { line: editor.position(cart.uri, 'readonly count').line } } });
  });

  it("publishes the compiler's errors of open documents to a client that runs no other TypeScript server (diagnostics.publish auto)", async () => {
    const root = suite.workspace('pipelines');
    const open = async (capabilities: ClientCapabilities): Promise<Map<string, Diagnostic[]>> => {
      const { editor } = await TestEditor.start({ root, capabilities });
      suite.track(editor);
      const published = new Map<string, Diagnostic[]>();
      editor.connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => void published.set(params.uri, params.diagnostics));
      const cart = await editor.open('src/cart.ts');
      await editor.setText(cart.uri, cart.text.replace('  /** Adds a line to the cart. */', "  readonly label: number = 'cart';\n\n  /** Adds a line to the cart. */"));
      // Fix is offered once the server's own check ran, which is when it would publish.
      await editor.quickfixesOnceChecked(cart.uri, 'label');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return published;
    };
    const emacs = await open({ ...FULL_CAPABILITIES, experimental: { assistant: { showAnswer: true, typeErrors: true } } });
    expect([...emacs.values()].flat().map((d) => [d.code, d.source, d.message])).toEqual([[2322, 'typescript', "Type 'string' is not assignable to type 'number'."]]);
    // VS Code and Neovim run typescript-language-server beside it: nothing is published twice.
    expect([...(await open(FULL_CAPABILITIES)).values()].flat()).toEqual([]);
  });

  it('asks before running tests when oracle.runTests is off, and runs nothing on "no"', async () => {
    const { editor } = await start('pipelines', { withModel: false });
    editor.onQuestion = () => ({ title: 'Cancel' });
    const run = (await command(editor, 'assistant.runTests')) as ListenerRunResult;
    expect(run).toMatchObject({ ran: false });
    expect(editor.questions.at(-1)!.message).toMatch(/run the project's own code/);
  });

  it('lints with the project’s ESLint and fixes the queue one item at a time, each with its outcome', async () => {
    const { editor, root, published } = await start('listeners', { withModel: false });
    const lint = (await command(editor, 'assistant.lint')) as ListenerRunResult;
    expect(lint).toMatchObject({ listener: 'lint', ran: true });
    const rules = lint.items!.map((i) => i.rule);
    expect(rules).toEqual(expect.arrayContaining(['prefer-const', 'no-unused-vars']));
    const greeting = editor.uri('src/greeting.js');
    expect((published.get(greeting) ?? []).map((d) => d.code)).toEqual(expect.arrayContaining(['prefer-const', 'no-unused-vars']));

    const fixed = (await editor.request('workspace/executeCommand', { command: 'assistant.fixAll', arguments: [{}], workDoneToken: 'fix-all' })) as FixAllResult;
    const outcome = (rule: string): string | undefined => fixed.items.find((i) => lint.items!.find((l) => l.id === i.id)?.rule === rule)?.outcome;
    expect(outcome("prefer-const"), JSON.stringify(fixed)).toBe("fixed");
    expect(outcome('no-unused-vars')).toBe('skipped');
    expect(fixed.fixed).toBeGreaterThanOrEqual(1);
    expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain('const greeting = `Hello, ${name}`;');
    expect(editor.progress.filter((p) => p.token === 'fix-all').some((p) => /fixing 1 of/.test(JSON.stringify(p.value)))).toBe(true);
    // What remains is published again; the fix is in the trace like any answer.
    expect((published.get(greeting) ?? []).map((d) => d.code)).not.toContain('prefer-const');
    const trace = await editor.request<TraceResult>('assistant/trace', { agent: 'fix-offline' });
    expect(trace.interactions.some((i) => i.responses.some((r) => r.agent.name === 'fix-offline' && r.used))).toBe(true);
  });
});
