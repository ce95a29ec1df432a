// Unit tests for how runTask records a run in a real trace store: one durable write for a quick run, a provisional record for a slow one, and a record of a cancelled run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import { AgentRegistry } from '../../server/src/agents/registry.js';
import type { Agent } from '../../server/src/agents/agent.js';
import { PlanCache, runTask } from '../../server/src/tasks/runTask.js';
import { runCommandFlow } from '../../server/src/tasks/commandFlow.js';
import type { EditorPort } from '../../server/src/editorPort.js';
import { segmentFiles } from '../support/traceFiles.js';
import type { TaskEnvironment } from '../../server/src/tasks/runTask.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { declarationAt } from '../../server/src/repo/declarations.js';
import { declarationTarget } from '../../server/src/tasks/documentTask.js';
import { noProgress } from '../../server/src/editorPort.js';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const TEXT = 'export function twice(n: number): number {\n  return n * 2;\n}\n';

/** A documenting agent that answers after `delayMs`, honouring cancellation. */
function agent(delayMs: number): Agent {
  return {
    descriptor: { name: 'slow-doc', technology: 'rule', isLLM: false },
    tasks: ['document'],
    description: 'test agent',
    run: (_request, signal) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ text: '/** Doubles a number. */' }), delayMs);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }),
  };
}

async function setUp(delayMs: number): Promise<{ env: TaskEnvironment; trace: TraceStore; writes: string[]; document: DocumentSnapshot }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runtask-record-'));
  dirs.push(root);
  const session = { id: 'session-1', startedAt: new Date().toISOString(), user: 'u', role: 'developer' as const, workspace: root, pid: process.pid };
  const trace = await TraceStore.open({ directory: path.join(root, '.assistant', 'trace'), session, segmentSize: 100 });
  const writes: string[] = [];
  const add = trace.add.bind(trace);
  const update = trace.update.bind(trace);
  trace.add = (i, options) => (writes.push('add'), add(i, options));
  trace.update = (id, change, options) => (writes.push('update'), update(id, change, options));
  const env: TaskEnvironment = {
    root,
    workspace: new Workspace(root),
    registry: new AgentRegistry([agent(delayMs)]),
    trace,
    sessionId: session.id,
    user: 'u',
    role: 'developer',
    agentTimeoutMs: 10_000,
    maxAttempts: 1,
    strategy: 'offer-all',
    oracle: DEFAULT_SETTINGS.oracle,
    pipelines: DEFAULT_SETTINGS.pipelines,
    annotations: false,
    preview: 'never',
    plans: new PlanCache(),
  };
  const fsPath = path.join(root, 'twice.ts');
  const document: DocumentSnapshot = { uri: `file://${fsPath}`, fsPath, languageId: 'typescript', version: 1, text: TEXT };
  return { env, trace, writes, document };
}

function run(env: TaskEnvironment, document: DocumentSnapshot, signal: AbortSignal, returnWhenWritten = false): ReturnType<typeof runTask> {
  const target = declarationTarget(declarationAt(document.fsPath!, TEXT, 20)!);
  return runTask(env, { task: 'document', document, target, text: 'document twice', source: 'command', returnWhenWritten }, signal, noProgress);
}

/** The text of the trace's segment files under the workspace. */
function traceText(root: string): string {
  return segmentFiles(path.join(root, '.assistant', 'trace')).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
}

describe('runTask recording', () => {
  it('writes a quick run once, with its answers', async () => {
    const { env, trace, writes, document } = await setUp(0);
    const result = await run(env, document, new AbortController().signal);
    expect(writes).toEqual(['add']);
    expect(trace.get(result.interaction.id)!.responses).toHaveLength(1);
  });

  it('returns once the record is in the file when asked to, its flush to the disk still under way', async () => {
    for (const slow of [false, true]) {
      const { env, trace, writes, document } = await setUp(slow ? 200 : 0);
      let flushed = false;
      const result = await run(env, document, new AbortController().signal, true);
      void result.durable.then(() => (flushed = true));
      // The flush ends in a callback from the thread pool, which cannot run before this continuation.
      expect(flushed).toBe(false);
      expect(writes).toEqual(slow ? ['add', 'update'] : ['add']);
      expect(traceText(env.root)).toContain('/** Doubles a number. */');
      expect(trace.get(result.interaction.id)!.responses).toHaveLength(1);
      await result.durable;
      expect(flushed).toBe(true);
    }
  });

  it('returns only once the record is durable otherwise', async () => {
    const { env, document } = await setUp(0);
    let flushed = false;
    const result = await run(env, document, new AbortController().signal);
    void result.durable.then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(true);
  });

  it('records a slow run provisionally while it works, then completes the record', async () => {
    const { env, trace, writes, document } = await setUp(400);
    const pending = run(env, document, new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(writes).toEqual(['add']);
    expect(trace.all()[0]).toMatchObject({ text: 'document twice', responses: [] });
    const result = await pending;
    expect(writes).toEqual(['add', 'update']);
    expect(trace.get(result.interaction.id)!.responses).toHaveLength(1);
  });

  it('records a cancelled run, saying so', async () => {
    const { env, trace, document } = await setUp(5_000);
    const controller = new AbortController();
    const pending = run(env, document, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeDefined();
    expect(trace.all()[0]).toMatchObject({ text: 'document twice', message: 'Cancelled before an answer was chosen.' });
  });

  describe('in the command flow', () => {
    /** Runs Document on `twice` through the command flow; `applied` is called when the edit reaches the editor. */
    function command(env: TaskEnvironment, document: DocumentSnapshot, applied: () => void): ReturnType<typeof runCommandFlow> {
      const port: EditorPort = {
        choose: async (_message, options) => options[0],
        applyEdit: async () => (applied(), { applied: true }),
        showMessage: () => undefined,
        showDocument: async () => true,
        showAnswer: async () => ({ via: 'notification' }),
      };
      const documents = { get: (uri: string) => (uri === document.uri ? document : undefined), openUris: () => [document.uri] };
      const args = { textDocument: { uri: document.uri, version: 1 }, range: { start: { line: 0, character: 20 }, end: { line: 0, character: 20 } }, symbol: 'twice' };
      return runCommandFlow({ env, documents }, 'document', args, new AbortController().signal, noProgress, port);
    }

    it('applies once the record is in the file, and answers once it is durable with the edit marked used', async () => {
      const { env, trace, document } = await setUp(0);
      let inFileWhenApplied = false;
      const result = await command(env, document, () => (inFileWhenApplied = traceText(env.root).includes('/** Doubles a number. */')));
      expect(result).toMatchObject({ applied: true, outcome: 'applied' });
      expect(inFileWhenApplied).toBe(true);
      expect(trace.get(result.interactionId)!.responses[0]).toMatchObject({ used: true });
      expect(traceText(env.root)).toContain('"used":true');
    });

    it('applies nothing when the record cannot be written', async () => {
      const { env, trace, document } = await setUp(0);
      trace.add = () => Promise.reject(new Error('no space left on the device'));
      let applied = false;
      await expect(command(env, document, () => (applied = true))).rejects.toThrow('no space left on the device');
      expect(applied).toBe(false);
    });

    it('fails with the reason when the record, written, cannot be flushed to the disk', async () => {
      const { env, trace, document } = await setUp(0);
      trace.add = (_interaction, options) => (options?.onWritten?.(), Promise.reject(new Error('the disk failed')));
      let applied = false;
      await expect(command(env, document, () => (applied = true))).rejects.toThrow('the disk failed');
      // The editor had the edit by then: the command says why its record is missing.
      expect(applied).toBe(true);
    });
  });
});
