// End-to-end "what reaches a model" over --stdio: canaries in ignored files and .env, and secrets in a source file, never reach the scripted model or the trace.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { TASK_IDS } from '../../protocol/src/index.js';
import type { AskResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptedModel } from '../support/scriptedModel.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** Strings planted where no model may see them: a .gitignore'd folder, an .assistantignore'd folder, a secrets file, the .env. */
const CANARIES = ['CANARY_GITIGNORE_8c2e47', 'CANARY_ASSISTANTIGNORE_3d9a1f', 'CANARY_SECRETFILE_77d0c3', 'CANARY_DOTENV_5b7e21', 'CANARY_DOTENV_PW_19af0c', 'CANARY_LOCAL_4a0b9d'];

/** The realistic (fake) secrets of src/billing.ts. */
const SECRETS = [
  'sk_live_51NzQ8rKx3VbT9mLpW2eYc7HdA4uJ6sGf0iOq1ZtRkXnB5vMhE8wCyPjD',
  'sk-proj-Qx7vN2pL9mK4rT8wZ1bY6cH3jF5dS0aG-E_uR7iO2nM9kL4pW8qX1zV6bC3yT5hJ',
  'AKIA4Q7ZK2MX9RTB3NWE',
  'k9Xq2Lm7Vb4Tz8Rw1Yc6Hn3Jd5Fs0Ga/EuPiOl+K',
  'ghp_R8mK2xQ7vN4pL9wT1bZ6cY3hJ5dF0sGaEuPi',
  'Pa55w0rd-Billing-42',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
  'whsec_Zt4Qm8Xr2Lv7Nb9Kp3Wc6Yh1Jd5Fs0Ga',
  'hunter2-Billing!',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJiaWxsaW5nLXNlcnZpY2UiLCJpYXQiOjE3MDAwMDAwMDB9.Xq2Lm7Vb4Tz8Rw1Yc6Hn3Jd5Fs0GaEuPiOlK9mN2pQ',
  'glpat-Xr8Kq2Lm7Vb4Tz9Rw1Yc',
];
const AUDIT_TOKEN = 'glpat-Xr8Kq2Lm7Vb4Tz9Rw1Yc';

/** The fixture plus what git cannot hold: the files its own .gitignore matches, written into the temporary copy. */
function workspace(): string {
  const root = copyFixture('privacy');
  fs.mkdirSync(path.join(root, 'private'));
  fs.writeFileSync(
    path.join(root, 'private', 'legacyKeys.ts'),
    [
      '// Legacy keys, kept out of git and models by .gitignore: CANARY_GITIGNORE_8c2e47.',
      '',
      '/** The salt the legacy signer mixes in. */',
      "export const LEGACY_SIGNING_SALT = 'CANARY_GITIGNORE_8c2e47' as const;",
      '',
      '/** The legacy retry policy: how long to wait before the next attempt at charging. */',
      'export function legacyRetryPolicy(attempts: number): number {',
      '  return Math.min(30_000, 250 * 2 ** attempts);',
      '}',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(root, 'src', 'retry.local.ts'), '// CANARY_LOCAL_4a0b9d\n/** Local retry policy for charging. */\nexport function localRetryPolicy(): number {\n  return 1;\n}\n');
  return root;
}

/** The number of a task in the classifier's list. */
const numberOf = (task: (typeof TASK_IDS)[number]): string => String(TASK_IDS.indexOf(task) + 1);

/** The scripted model: classifies free text as a question, and answers each task the way a model would, echoing markers it was sent. */
function script(model: ScriptedModel): void {
  let fixes = 0;
  model.setDefault({
    kind: 'dynamic',
    respond: (request: RecordedRequest) => {
      const messages = request.body.messages as { role: string; content: string }[];
      const system = messages[0]?.content ?? '';
      if (JSON.stringify(messages).includes('None of the above')) return { kind: 'text', content: numberOf(/"""\s*explain/i.test(messages.at(-1)?.content ?? '') ? 'explain' : 'question') };
      if (system.includes('technical writer')) return { kind: 'text', content: '/**\n * Creates the billing client for a customer region.\n * @param customerRegion - Where the customer is billed.\n * @returns The configured client.\n */' };
      if (system.includes('You explain code')) return { kind: 'text', content: 'It signs the body with the service token `[redacted:jwt]` and throws a `RangeError` on an empty body.' };
      if (system.includes('compiler diagnostic')) {
        fixes++;
        const total = fixes === 1 ? 'totl' : 'total';
        return {
          kind: 'text',
          content: [
            '```ts',
            'export function invoiceTotal(lines: readonly { cents: number }[]): { total: number; auditToken: string } {',
            "  const auditToken = '[redacted:gitlab-token]';",
            '  const total = lines.reduce((sum, line) => sum + line.cents, 0);',
            `  return { total: ${total}, auditToken };`,
            '}',
            '```',
          ].join('\n'),
        };
      }
      return { kind: 'text', content: 'Customers are charged through `createBillingClient` in src/billing.ts:28, and requests are signed by `signingHeaders` in src/billing.ts:41.' };
    },
  });
}

async function start(root: string, model: ScriptedModel): Promise<TestEditor> {
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-privacy' },
    // The model agent alone, so every answer the trace holds came through the model path.
    initializationOptions: { assistant: { disabledAgents: ['doc-offline', 'explain-offline', 'fix-offline'], annotations: { enabled: false }, orchestrator: { agentTimeoutMs: 20_000 } } },
  });
  editors.push(editor);
  return editor;
}

async function action(editor: TestEditor, uri: string, needle: string, title: RegExp, diagnostics: Diagnostic[] = []): Promise<CodeAction> {
  const at = editor.position(uri, needle);
  const range = diagnostics[0]?.range ?? { start: at, end: at };
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics } });
  const found = actions.find((a) => title.test(a.title));
  if (!found) throw new Error(`no action ${title} at ${needle}: ${actions.map((a) => a.title).join(', ')}`);
  return found;
}

function run(editor: TestEditor, chosen: CodeAction): Promise<TaskCommandResult> {
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: chosen.command!.command, arguments: chosen.command!.arguments });
}

/** Every request body the model received, as sent on the wire. */
function bodies(model: ScriptedModel): string[] {
  return model.requests.map((r) => r.rawBody);
}

/** The trace files under the workspace, parsed, with the edit records (kept exactly, for apply and revert) set apart. */
function traceOnDisk(root: string): { text: string; withoutEdits: string } {
  const files = segmentFiles(path.join(root, '.assistant', 'trace'));
  const texts = files.map((file) => fs.readFileSync(file, 'utf8'));
  const stripped = files.map((file) => {
    const segment = readSegment(file);
    for (const interaction of segment.interactions) {
      for (const response of interaction.responses) {
        delete response.edit;
        delete response.insertedAt;
      }
    }
    return JSON.stringify(segment);
  });
  return { text: texts.join('\n'), withoutEdits: stripped.join('\n') };
}

describe('what reaches a model', () => {
  it('sends no canary and no raw secret through document, explain, question and fix, redacts what it sends, and keeps the trace clean', async () => {
    const model = await startScriptedModel();
    models.push(model);
    script(model);
    const root = workspace();
    const editor = await start(root, model);
    const doc = await editor.open('src/billing.ts');
    const original = doc.text;

    // Document: the declaration holds a webhook secret and a password.
    const documented = await run(editor, await action(editor, doc.uri, 'createBillingClient(customerRegion', /^Assistant: Document/));
    expect(documented).toMatchObject({ applied: true });
    const documentRequest = model.requests.at(-1)!.rawBody;
    expect(documentRequest).toContain("const webhookSecret = '[redacted:stripe-key]'");
    expect(documentRequest).toContain("password: '[redacted:password]'");

    // Document a function returning a private key.
    const keyDoc = await editor.open('src/signingKey.ts');
    expect(await run(editor, await action(editor, keyDoc.uri, 'signingKeyPem(', /^Assistant: Document/))).toMatchObject({ applied: true });
    expect(model.requests.at(-1)!.rawBody).toContain('return `[redacted:private-key]`;');

    // Explain: the code holds a JWT; the facts would quote the ignored file's salt through its literal type.
    const explained = await run(editor, await action(editor, doc.uri, 'signingHeaders(body', /^Assistant: Explain/));
    expect(explained).toMatchObject({ outcome: 'shown' });
    const explainRequest = model.requests.at(-1)!.rawBody;
    expect(explainRequest).toContain("const serviceJwt = '[redacted:jwt]'");
    // The checker infers the salt's literal type from the ignored file: the value is known to be kept back.
    expect((JSON.parse(explainRequest) as { messages: { content: string }[] }).messages[1]!.content).toContain('salt: "[redacted:ignored-file]"');

    // Workspace questions through assistant/ask: retrieval leaves the ignored files out and redacts what it sends.
    const asked = await editor.request<AskResult>('assistant/ask', { text: 'where do we sign requests and charge customers?' });
    expect(asked.task).toBe('question');
    expect(asked.responses.map((r) => r.agent.technology).sort()).toEqual(['llm', 'rule']);
    const questionRequest = model.requests.at(-1)!.rawBody;
    expect(questionRequest).toContain('src/billing.ts');
    expect(questionRequest).toMatch(/\[redacted:[a-z-]+\]/);
    const legacy = await editor.request<AskResult>('assistant/ask', { text: 'where is the legacy retry policy for charging implemented?' });
    expect(legacy.task).toBe('question');
    expect(model.requests.at(-1)!.rawBody).not.toMatch(/legacyRetryPolicy|localRetryPolicy|private\/|retry\.local/);

    // Fix: the function and the file's imports go with the diagnostic, not the rest of the file and its secrets; the
    // model echoes the audit token's marker, fails once, then fixes.
    const typo = editor.position(doc.uri, 'totl');
    const diagnostic: Diagnostic = { range: { start: typo, end: { line: typo.line, character: typo.character + 4 } }, severity: 1, code: 2552, source: 'ts', message: "Cannot find name 'totl'. Did you mean 'total'?" };
    const fixed = await run(editor, await action(editor, doc.uri, 'totl', /^Assistant: Fix/, [diagnostic]));
    expect(fixed).toMatchObject({ applied: true, outcome: 'applied' });
    const fixRequests = model.requests.filter((r) => (r.body.messages[0]?.content as string).includes('compiler diagnostic')).map((r) => r.rawBody);
    expect(fixRequests).toHaveLength(2);
    expect(fixRequests[0]).toContain("const auditToken = '[redacted:gitlab-token]'");
    for (const marker of ['[redacted:openai-key]', '[redacted:aws-access-key]', '[redacted:aws-secret-key]', '[redacted:github-token]']) {
      expect(fixRequests[0], marker).not.toContain(marker);
    }
    // The rejected answer went back to the model as the user's own code again: redacted once more.
    expect(fixRequests[1]).toContain("const auditToken = '[redacted:gitlab-token]'");
    // The marker the model echoed became the user's token again in the applied code.
    const after = editor.buffer(doc.uri).text;
    expect(after).toContain(`const auditToken = '${AUDIT_TOKEN}';`);
    expect(after).toContain('return { total: total, auditToken };');
    expect(after).not.toContain('[redacted:');
    expect(after.replace(/\/\*\*\n \* Creates the billing client[\s\S]*?\*\/\n/, '').replace(/^\/\/ @assistant .*\n/m, '').replace('total: total', 'total: totl')).toBe(original);

    // Nothing planted or secret in any request the model received.
    // Two for Document, Explain, two questions, two Fix attempts (each request says its task plainly: no classification).
    expect(model.requests.length).toBeGreaterThanOrEqual(7);
    for (const body of bodies(model)) {
      for (const canary of CANARIES) expect(body, canary).not.toContain(canary);
      for (const secret of SECRETS) expect(body, secret).not.toContain(secret);
    }

    // The trace holds markers where the secrets were: in requests, fragments and answers (the explanation was
    // restored for the user, and redacted again on its way to disk).
    const trace = traceOnDisk(root);
    for (const canary of CANARIES) expect(trace.text, canary).not.toContain(canary);
    for (const secret of SECRETS) expect(trace.withoutEdits, secret).not.toContain(secret);
    const explanation = (await editor.request<TraceResult>('assistant/trace', { id: explained.interactionId })).interactions[0]!;
    expect(explanation.responses[0]!.text).toContain('[redacted:jwt]');
    expect(explanation.context.fragment!.text).toContain("const serviceJwt = '[redacted:jwt]'");
    // The fix's edit and what it inserted are kept with placeholders too: the editor got the real values.
    for (const secret of SECRETS) expect(trace.text, secret).not.toContain(secret);
    const fixRecord = (await editor.request<TraceResult>('assistant/trace', { id: fixed.interactionId })).interactions[0]!;
    const applied = fixRecord.responses.find((r) => r.used)!;
    expect(applied.insertedAt![0]!.text).toMatch(/const auditToken = '\[redacted:[a-z-]+(#\d+)?\]';/);
    expect(JSON.stringify(applied.edit)).toMatch(/const auditToken = '\[redacted:[a-z-]+(#\d+)?\]';/);
  });

  it('refuses to send a document that is ignored or a secrets file, saying why, and records no fragment of it', async () => {
    const model = await startScriptedModel();
    models.push(model);
    script(model);
    const root = workspace();
    const editor = await start(root, model);

    const ignored = await editor.open('private/legacyKeys.ts');
    const onIgnored = await run(editor, await action(editor, ignored.uri, 'legacyRetryPolicy(attempts', /^Assistant: (Document|Complete the documentation)/));
    expect(onIgnored.applied).toBe(false);
    const vendor = await editor.open('src/internal/vendorKeys.ts');
    const onVendor = await run(editor, await action(editor, vendor.uri, 'vendorChargeUrl(region', /^Assistant: Explain/));
    const secretsFile = await editor.open('src/credentials.ts');
    const onSecrets = await editor.request<AskResult>('assistant/ask', { text: 'explain serviceAccount', textDocument: { uri: secretsFile.uri } });
    expect(model.requests.filter((r) => !JSON.stringify(r.body.messages).includes('None of the above'))).toHaveLength(0);

    const reasons = async (interactionId: string): Promise<string[]> => (await editor.request<TraceResult>('assistant/trace', { id: interactionId })).interactions[0]!.responses.map((r) => r.error ?? '');
    expect(await reasons(onIgnored.interactionId)).toEqual(['not sent to scripted-privacy: private/legacyKeys.ts is matched by .gitignore (private/), so it is never sent to a model']);
    expect(await reasons(onVendor.interactionId)).toEqual(['not sent to scripted-privacy: src/internal/vendorKeys.ts is matched by .assistantignore (src/internal/), so it is never sent to a model']);
    expect(onSecrets.task).toBe('explain');
    expect(onSecrets.responses.map((r) => r.error)).toEqual(['not sent to scripted-privacy: src/credentials.ts looks like a file of secrets (by its name), so it is never sent to a model']);

    for (const body of bodies(model)) for (const canary of CANARIES) expect(body, canary).not.toContain(canary);
    const trace = traceOnDisk(root);
    for (const canary of CANARIES) expect(trace.text, canary).not.toContain(canary);
    expect(trace.text).toContain('[not recorded: private/legacyKeys.ts is matched by .gitignore (private/)]');
  });
});
