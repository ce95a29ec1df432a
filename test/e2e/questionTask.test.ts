// End-to-end workspace questions over --stdio: assistant/ask classifies them, the offline agent ranks locations, a model answers from them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_IDS } from '../../protocol/src/index.js';
import type { AskResult, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptedModel } from '../support/scriptedModel.js';

const editors: TestEditor[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

/** The question fixture plus its git-ignored folder, which the repository cannot commit. */
function workspace(): string {
  const root = copyFixture('question');
  fs.mkdirSync(path.join(root, 'generated'));
  fs.writeFileSync(path.join(root, 'generated', 'retryLogic.ts'), '// CANARY_GENERATED_77e2\n/** The retry logic, generated. */\nexport function retryLogicImplemented(): string {\n  return "retry logic";\n}\n');
  return root;
}

async function start(root: string, env?: Record<string, string>): Promise<TestEditor> {
  const { editor } = await TestEditor.start({ root, ...(env ? { env } : {}), initializationOptions: { assistant: { orchestrator: { agentTimeoutMs: 20_000 } } } });
  editors.push(editor);
  return editor;
}

function lineOf(root: string, file: string, needle: string): number {
  return fs.readFileSync(path.join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;
}

/** The numbered location lines of an offline answer. */
function locationLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\d+\. /.test(l));
}

describe('workspace questions without a model', () => {
  it('answers "where is the retry logic implemented?" with locations, the retry file first, and applies nothing', async () => {
    const root = workspace();
    const editor = await start(root);
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'where is the retry logic implemented?' });
    expect(answer.task).toBe('question');
    expect(answer.responses).toHaveLength(1);
    const response = answer.responses[0]!;
    expect(response).toMatchObject({ status: 'ok', agent: { name: 'question-offline', technology: 'rule', isLLM: false } });
    expect(response.edit).toBeUndefined();
    const lines = locationLines(response.text);
    expect(lines[0]).toMatch(/^1\. src\/retry\.ts:\d+ — \w+ \w+/);
    expect(response.text).toContain(`src/retry.ts:${lineOf(root, 'src/retry.ts', 'export async function withRetry')} — function withRetry`);
    expect(response.text).toContain('```ts');
    // Ignored folders, .env and secret-looking files never show.
    expect(response.text).not.toMatch(/CANARY|generated\/|legacy\/|\.env|secrets\.ts/);
    expect(editor.applied).toHaveLength(0);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]).toMatchObject({ task: 'question', source: 'text', classification: { by: 'intent-offline' } });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ text: response.text, used: false });

    // The client showed the answer itself and says so: the trace records it as used, once, and applies nothing.
    const shown = { interactionId: answer.interactionId, responseId: response.id };
    expect(await editor.request('assistant/apply', shown)).toEqual({ applied: false, outcome: 'shown' });
    expect(await editor.request('assistant/apply', shown)).toEqual({ applied: false, outcome: 'shown' });
    const after = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(after.interactions[0]!.responses[0]).toMatchObject({ used: true, outcome: 'shown' });
    expect(editor.applied).toHaveLength(0);
  });

  it('answers right after initialize on an empty cache folder, and says what it searched when nothing matches', async () => {
    const root = workspace();
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'question-cold-'));
    try {
      // No saved index and no open document: the first request after initialize waits for the walk, not for nothing.
      const editor = await start(root, { XDG_CACHE_HOME: cacheHome });
      const answer = await editor.request<AskResult>('assistant/ask', { text: 'where is withRetry implemented?' });
      expect(answer.responses[0]).toMatchObject({ status: 'ok', agent: { name: 'question-offline' } });
      expect(locationLines(answer.responses[0]!.text)[0]).toContain(`src/retry.ts:${lineOf(root, 'src/retry.ts', 'export async function withRetry')} — function withRetry`);

      // A name declared only in a file named like a secrets file, which is never indexed: the user reads why.
      fs.writeFileSync(path.join(root, 'src', 'credentials.ts'), '// CANARY_CREDENTIALS_5d1c\nexport function zeroizeVaultPepper(): void {}\n');
      const hidden = await editor.request<AskResult>('assistant/ask', { text: 'where is zeroizeVaultPepper implemented?' });
      expect(hidden.task).toBe('question');
      expect(hidden.responses[0]).toMatchObject({ status: 'empty' });
      expect(hidden.responses[0]!.error).toMatch(/^no declaration or comment in the \d+ indexed files matches \(ignored files and files named like secrets/);
      expect(hidden.message).toContain(hidden.responses[0]!.error);
      expect(JSON.stringify(hidden)).not.toContain('CANARY');
    } finally {
      fs.rmSync(cacheHome, { recursive: true, force: true });
    }
  });

  it('searches the unsaved text of the document the question is asked from', async () => {
    const root = workspace();
    const editor = await start(root);
    const doc = await editor.open('src/logger.ts');
    await editor.setText(doc.uri, `${doc.text}\n/** Ships log lines to the telemetry collector. */\nexport function telemetryShipper(lines: string[]): void {\n  void lines;\n}\n`);
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'where do we ship logs to telemetry?', textDocument: { uri: doc.uri } });
    expect(answer.task).toBe('question');
    expect(locationLines(answer.responses[0]!.text)[0]).toMatch(/^1\. src\/logger\.ts:\d+ — function telemetryShipper$/);
    expect(fs.readFileSync(path.join(root, 'src', 'logger.ts'), 'utf8')).not.toContain('telemetryShipper');
    expect(editor.applied).toHaveLength(0);
  });
});

describe('the saved index', () => {
  it('is written to the user cache folder when the server shuts down, never to the workspace, and the next server answers from it', async () => {
    const root = workspace();
    const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'question-cache-home-'));
    try {
      const question = { text: 'where is the retry logic implemented?' };
      const first = await start(root, { XDG_CACHE_HOME: cacheHome });
      const before = await first.request<AskResult>('assistant/ask', question);
      expect(await first.shutdownAndExit()).toBe(0);
      const folder = path.join(cacheHome, 'assistant-ls', 'lexical-index');
      const saved = fs.readdirSync(folder);
      expect(saved).toHaveLength(1);
      expect(saved[0]).toBe(`${path.basename(root)}-${saved[0]!.slice(-16)}`);
      expect(saved[0]).toMatch(/-[0-9a-f]{16}$/);
      const file = path.join(folder, saved[0]!);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toContain('"src/retry.ts"\t');
      // Ignored folders and secrets are not indexed, so not saved either.
      expect(text).not.toMatch(/CANARY|generated\/|\.env/);
      expect(fs.existsSync(path.join(root, '.assistant', 'cache'))).toBe(false);

      // A server reading the saved index marks it used (the cache folder keeps the indexes used last).
      fs.utimesSync(file, new Date(1_000_000), new Date(1_000_000));
      const second = await start(root, { XDG_CACHE_HOME: cacheHome });
      const after = await second.request<AskResult>('assistant/ask', question);
      expect(after.responses[0]!.text).toBe(before.responses[0]!.text);
      expect(fs.statSync(file).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      fs.rmSync(cacheHome, { recursive: true, force: true });
    }
  });
});

describe('workspace questions with a model', () => {
  it('sends the top snippet and the question to the model, whose answer is a second candidate', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const root = workspace();
    const retryLine = lineOf(root, 'src/retry.ts', 'export async function withRetry');
    const modelAnswer = `The retry logic is \`withRetry\` in src/retry.ts:${retryLine}; it waits \`backoffDelay\` between attempts.`;
    const classifierNumber = String(TASK_IDS.indexOf('question') + 1);
    // The model classifies first (the numbered list), then answers the question.
    model.setDefault({
      kind: 'dynamic',
      respond: (request: RecordedRequest) => ({ kind: 'text', content: JSON.stringify(request.body.messages).includes('None of the above') ? classifierNumber : modelAnswer }),
    });
    const editor = await start(root, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-question' });

    const answer = await editor.request<AskResult>('assistant/ask', { text: 'where is the retry logic implemented?' });
    expect(answer.task).toBe('question');
    expect(answer.responses.map((r) => r.agent.technology)).toEqual(['rule', 'llm']);
    const [offline, llm] = answer.responses;
    expect(llm).toMatchObject({ status: 'ok', text: modelAnswer, agent: { isLLM: true, model: 'scripted-question' } });
    expect(llm!.edit).toBeUndefined();

    const asked = model.requests.filter((r) => !JSON.stringify(r.body.messages).includes('None of the above'));
    expect(asked).toHaveLength(1);
    const user = (asked[0]!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'user')!.content;
    expect(user).toContain('where is the retry logic implemented?');
    // The offline agent's top location and the first line of its snippet are in the model's prompt.
    const top = /^1\. (src\/retry\.ts):(\d+) — \w+ (\w+)$/m.exec(offline!.text)!;
    expect(user).toContain(`${top[1]}:${top[2]}-`);
    const firstSnippetLine = offline!.text.split('\n').find((l) => l.startsWith('   ') && !l.includes('```'))!.trim();
    expect(user).toContain(firstSnippetLine);
    expect(user).not.toContain('CANARY');
    expect(editor.applied).toHaveLength(0);

    const trace = await editor.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.responses.map((r) => r.agent.technology)).toEqual(['rule', 'llm']);
  });

  it('keeps the whole lines of an answer cut off at the token limit, says it was cut, and points at what they cite', async () => {
    const model = await startScriptedModel();
    models.push(model);
    const root = workspace();
    const retryLine = lineOf(root, 'src/retry.ts', 'export async function withRetry');
    // What a small local model does: a good start, a code block, and its token limit in the middle of a line.
    const cut = `The retry logic is \`withRetry\` in src/retry.ts:${retryLine}.\n\n\`\`\`ts\nawait withRetry(() => load(), 3);\nconst delay = backoffDel`;
    const classifierNumber = String(TASK_IDS.indexOf('question') + 1);
    model.setDefault({
      kind: 'dynamic',
      respond: (request: RecordedRequest) => (JSON.stringify(request.body.messages).includes('None of the above') ? { kind: 'text', content: classifierNumber } : { kind: 'text', content: cut, finishReason: 'length' }),
    });
    const editor = await start(root, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-question' });

    const answer = await editor.request<AskResult>('assistant/ask', { text: 'where is the retry logic implemented?' });
    const llm = answer.responses.find((r) => r.agent.isLLM)!;
    expect(llm).toMatchObject({ status: 'ok' });
    expect(llm.text).toBe(`The retry logic is \`withRetry\` in src/retry.ts:${retryLine}.\n\n\`\`\`ts\nawait withRetry(() => load(), 3);\n\`\`\`\n\n… (the answer was cut off at the model’s token limit)`);
    expect(llm.locations?.[0]).toMatchObject({ uri: expect.stringMatching(/src\/retry\.ts$/), label: 'function withRetry' });
    // Nothing of the cut line, and no second try of a prompt that would be cut the same way.
    expect(llm.text).not.toContain('backoffDel');
    expect(model.requests.filter((r) => !JSON.stringify(r.body.messages).includes('None of the above'))).toHaveLength(1);
  });
});
