// Secrets under adversarial input, end to end over --stdio: private keys whose header falls in a short snippet, secrets the trace must not keep raw.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { AgentsResult, RevertResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture, until } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { SECRET_FORMAT_COUNT, base64Lines, lookAlikes, plantedSecrets, seeded } from '../support/secretCorpus.js';
import { segmentFiles } from '../support/traceFiles.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function start(root: string, model: ScriptedModel, assistant: Record<string, unknown> = {}): Promise<TestEditor> {
  const { editor } = await TestEditor.start({
    root,
    env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-secrets' },
    initializationOptions: { assistant: { annotations: { enabled: false }, orchestrator: { agentTimeoutMs: 20_000 }, ...assistant } },
  });
  editors.push(editor);
  return editor;
}

async function runAction(editor: TestEditor, uri: string, needle: string, title: RegExp): Promise<TaskCommandResult> {
  const at = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
  const chosen = actions.find((a) => title.test(a.title));
  if (!chosen) throw new Error(`no action ${title} at ${needle}: ${actions.map((a) => a.title).join(', ')}`);
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: chosen.command!.command, arguments: chosen.command!.arguments });
}

describe('the generated corpus', () => {
  it('sends no secret of a hundred in over seventy formats raw, and the look-alikes beside them intact', async () => {
    const model = await startScriptedModel();
    models.push(model);
    model.setDefault({ kind: 'text', content: 'No change: it is as fast and clear as it gets.' });
    const root = copyFixture('privacy');
    const secrets = plantedSecrets(11, 100);
    const alikes = lookAlikes(12, 110);
    expect(SECRET_FORMAT_COUNT).toBeGreaterThanOrEqual(70);
    // Secrets and look-alikes side by side, in files small enough to go to the model whole, as raw lines inside a
    // block comment (each at the start of its line, as in the file it comes from).
    const entries = secrets.flatMap((secret, i) => [secret.text, ...(alikes[i] ? [alikes[i].text] : [])]).concat(alikes.slice(secrets.length).map((a) => a.text));
    const files: string[][] = [[]];
    let size = 0;
    for (const entry of entries) {
      if (size + entry.length > 8_000) {
        files.push([]);
        size = 0;
      }
      files.at(-1)!.push(entry);
      size += entry.length + 2;
    }
    const editor = await start(root, model);
    for (const [i, lines] of files.entries()) {
      const name = `src/settings${i}.ts`;
      const text = ['/** Adds the two settings counts. */', `export function countSettings${i}(a: number, b: number): number {`, '  const total = a + b;', '  const checked = Math.max(0, total);', '  return checked;', '}', '', '/*', ...lines.flatMap((line) => [line, '']), `END OF SETTINGS ${i}`, '*/', ''].join('\n');
      fs.writeFileSync(path.join(root, name), text);
      const doc = await editor.open(name);
      await runAction(editor, doc.uri, `countSettings${i}(a`, /^Assistant: Optimize/);
      expect(model.requests.at(-1)!.rawBody, name).toContain(`END OF SETTINGS ${i}`);
    }
    const sent = model.requests.map((r) => (r.body.messages as { content: string }[]).map((m) => m.content).join('\n')).join('\n');
    const raw = secrets.filter((secret) => sent.includes(secret.secret));
    const intact = alikes.filter((alike) => sent.includes(alike.value));
    const formats = new Set(secrets.map((secret) => secret.format)).size;
    console.log(`secret corpus over --stdio: ${secrets.length - raw.length}/${secrets.length} secrets never sent raw (${formats} formats); ${intact.length}/${alikes.length} look-alikes intact`);
    expect(raw.map((secret) => secret.format)).toEqual([]);
    expect(intact.length / alikes.length).toBeGreaterThanOrEqual(0.97);
  });
});

describe('private keys', () => {
  it('sends no line of a key whose header falls in a short "Used at" snippet of the same prompt', async () => {
    const model = await startScriptedModel();
    models.push(model);
    model.setDefault({ kind: 'text', content: '```ts\nexport function keyFingerprint(pem: string): string {\n  return normalizePem(pem).slice(0, 8);\n}\n```' });
    const root = copyFixture('privacy');
    const random = seeded(7);
    const keys = {
      rsa: base64Lines(random, 25, 64, 'MIIEpAIBAAKCAQEA'),
      openssh: base64Lines(random, 25, 70, 'b3BlbnNzaC1rZXktdjEAAAAA'),
      pgp: base64Lines(random, 25, 64, 'lQOYBF'),
      json: base64Lines(random, 25, 64, 'MIIEvQIBADANBgkqhkiG9w0BAQEF'),
    };
    // The target calls normalizePem, declared in another file; its references here put each key's BEGIN line in a
    // three-line snippet, while the file section of the same prompt carries the whole key.
    fs.writeFileSync(path.join(root, 'src', 'pem.ts'), '/** A PEM without surrounding white space. */\nexport function normalizePem(pem: string): string {\n  return pem.trim();\n}\n');
    fs.writeFileSync(
      path.join(root, 'src', 'keys.ts'),
      [
        "import { normalizePem } from './pem.js';",
        '',
        '/** A short fingerprint of a key. */',
        'export function keyFingerprint(pem: string): string {',
        '  let hash = 0;',
        '  for (const c of normalizePem(pem)) hash = (hash * 31 + c.charCodeAt(0)) | 0;',
        '  return hash.toString(16);',
        '}',
        '',
        'export const RSA = normalizePem(`-----BEGIN RSA PRIVATE KEY-----',
        ...keys.rsa,
        '-----END RSA PRIVATE KEY-----`);',
        '',
        'export const SSH = normalizePem(`-----BEGIN OPENSSH PRIVATE KEY-----',
        ...keys.openssh,
        '-----END OPENSSH PRIVATE KEY-----`);',
        '',
        'export const PGP = normalizePem(`-----BEGIN PGP PRIVATE KEY BLOCK-----',
        '',
        ...keys.pgp,
        '=Ab3x',
        '-----END PGP PRIVATE KEY BLOCK-----`);',
        '',
        `export const SERVICE = normalizePem(JSON.parse('{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\\\\n${keys.json.join('\\\\n')}\\\\n-----END PRIVATE KEY-----\\\\n"}').private_key);`,
        '',
      ].join('\n'),
    );
    const editor = await start(root, model);
    const doc = await editor.open('src/keys.ts');
    expect(await runAction(editor, doc.uri, 'keyFingerprint(pem', /^Assistant: Optimize/)).toMatchObject({ applied: true });

    const prompt = model.requests.map((r) => r.rawBody).join('\n');
    // The snippet is there (so the case is the one that leaked), and no line of any key is.
    expect(prompt).toContain('Used at src/keys.ts:');
    const leaked = Object.fromEntries(Object.entries(keys).map(([kind, lines]) => [kind, lines.filter((line) => prompt.includes(line)).length]));
    expect(leaked).toEqual({ rsa: 0, openssh: 0, pgp: 0, json: 0 });
  });
});

describe('the trace', () => {
  it('keeps placeholders in proposals, insertions and answers, while the editor gets the real values and a revert restores them', async () => {
    const model = await startScriptedModel();
    models.push(model);
    model.setDefault({
      kind: 'dynamic',
      respond: (request) => {
        const messages = request.body.messages as { role: string; content: string }[];
        const prompt = messages.map((m) => m.content).join('\n');
        const marker = /\[redacted:password(?:#\d+)?\]/.exec(prompt)?.[0] ?? 'none';
        if (messages[0]!.content.includes('You explain code')) return { kind: 'text', content: `It connects as \`qa\` with the password \`${marker}\`, retrying once.` };
        return { kind: 'text', content: ['```ts', 'export function connectionUrl(host: string): string {', `  const dbPassword = '${marker}';`, '  return `postgres://qa:${encodeURIComponent(dbPassword)}@${host}/app`;', '}', '```'].join('\n') };
      },
    });
    const root = copyFixture('privacy');
    // Seven characters: too short to be remembered for prompts, so only the trace's own redaction can hide it.
    const password = 'k3y$Zq9';
    const original = ['/** The database URL for a host. */', 'export function connectionUrl(host: string): string {', `  const dbPassword = '${password}';`, '  const user = "qa";', '  const encoded = encodeURIComponent(dbPassword);', '  return `postgres://${user}:${encoded}@${host}/app`;', '}', ''].join('\n');
    fs.writeFileSync(path.join(root, 'src', 'database.ts'), original);
    const editor = await start(root, model, { disabledAgents: ['doc-offline', 'explain-offline', 'fix-offline'] });
    const doc = await editor.open('src/database.ts');

    const optimized = await runAction(editor, doc.uri, 'connectionUrl(host', /^Assistant: Optimize/);
    expect(optimized).toMatchObject({ applied: true });
    expect(editor.buffer(doc.uri).text).toContain(`const dbPassword = '${password}';`);
    const explained = await runAction(editor, doc.uri, 'connectionUrl(host', /^Assistant: Explain/);
    expect(explained).toMatchObject({ outcome: 'shown' });
    for (const body of model.requests.map((r) => r.rawBody)) expect(body).not.toContain(password);

    const traceText = segmentFiles(path.join(root, '.assistant', 'trace'))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    expect(traceText).not.toContain(password);
    const answer = (await editor.request<TraceResult>('assistant/trace', { id: explained.interactionId })).interactions[0]!.responses[0]!;
    expect(answer.text).toMatch(/with the password `\[redacted:[a-z-]+(#\d+)?\]`/);
    const proposal = (await editor.request<TraceResult>('assistant/trace', { id: optimized.interactionId })).interactions[0]!.responses.find((r) => r.used)!;
    expect(proposal.insertedAt![0]!.text).toMatch(/const dbPassword = '\[redacted:[a-z-]+(#\d+)?\]';/);
    expect(proposal.insertedAt![0]!.replaced).toMatch(/const dbPassword = '\[redacted:[a-z-]+(#\d+)?\]';/);

    // The session that made the edit still knows the values: the revert puts the user's code back exactly.
    const reverted = await editor.request<RevertResult>('assistant/revert', { interactionId: optimized.interactionId });
    expect(reverted).toMatchObject({ reverted: true });
    expect(editor.buffer(doc.uri).text).toBe(original);
  });
});

describe('trace.directory', () => {
  /** Asks the document task offline, so the trace gets one record wherever it lives. */
  async function recordOne(editor: TestEditor): Promise<void> {
    const doc = await editor.open('src/billing.ts');
    await runAction(editor, doc.uri, 'createBillingClient(customerRegion', /^Assistant: (Document|Complete the documentation)/);
  }

  it('refuses a folder outside the workspace and the data folder, with a message, and keeps the trace in the workspace', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-trace-escape-'));
    const root = path.join(parent, 'workspace');
    fs.cpSync(copyFixture('privacy'), root, { recursive: true });
    const absolute = path.join(parent, 'absolute-trace');
    for (const directory of ['../escaped-trace', absolute]) {
      const editor = await start(root, model, { trace: { directory } });
      await until(() => editor.messages.some((m) => m.message.includes('trace.directory')), 10_000, 'the refusal message');
      expect(editor.messages.find((m) => m.message.includes('trace.directory'))!.message).toContain(`is outside the workspace ${root} and the user's data folder`);
      const { problems } = await editor.request<AgentsResult>('assistant/agents', {});
      expect(problems.join('\n')).toContain('trace.directory');
      await recordOne(editor);
      await editor.dispose();
    }
    expect(fs.readdirSync(parent).sort()).toEqual(['workspace']);
    expect(segmentFiles(path.join(root, '.assistant', 'trace')).length).toBeGreaterThan(0);
  });

  it("takes a folder inside the user's data folder", async () => {
    const model = await startScriptedModel();
    models.push(model);
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-data-'));
    const root = copyFixture('privacy');
    const directory = path.join(data, 'assistant-ls', 'traces', 'billing');
    const { editor } = await TestEditor.start({
      root,
      env: { XDG_DATA_HOME: data },
      initializationOptions: { assistant: { annotations: { enabled: false }, trace: { directory } } },
    });
    editors.push(editor);
    await recordOne(editor);
    expect(segmentFiles(directory).length).toBeGreaterThan(0);
    expect(editor.messages.filter((m) => m.message.includes('trace.directory'))).toEqual([]);
  });
});
