// A seeded cancellation storm against the built server: every kind of request, half cancelled at random moments; every id answered once, no cancelled edit applied or traced as used, a stalled model request closed before its cancelled answer.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_IDS } from '../../protocol/src/index.js';
import type { Interaction, TraceResult } from '../../protocol/src/index.js';
import { RESOLVE_CAPABILITIES, copyFixture } from '../support/lspClient.js';
import { LONG_TESTS, RawServer, prng, testSeed } from '../support/rawLsp.js';
import type { Id, ResponseMessage } from '../support/rawLsp.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptedModel } from '../support/scriptedModel.js';

/**
 * Turns of this process's event loop after a cancelled answer arrives within which the model request's close, which
 * the server made before answering, must be seen: the socket's end is read in the same poll as the answer or the next,
 * and its 'close' is emitted a tick or two later. A count of turns, unlike a time, does not grow with the machine's load.
 */
const CLOSE_WITHIN_TURNS = 5;
/** Requests in flight at once, as a busy editor would have. */
const IN_FLIGHT = 24;
const FUNCTIONS_PER_FILE = 250;

const servers: RawServer[] = [];
const models: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.dispose()));
  await Promise.all(models.splice(0).map((m) => m.close()));
});

type Kind = 'codeAction' | 'resolve' | 'execute' | 'ask' | 'explain' | 'trace' | 'agents' | 'unknownMethod' | 'unknownCommand';
/** Kinds whose target is a function of its own, so its model request, edit and trace record can be told apart. */
const MODEL_KINDS: readonly Kind[] = ['resolve', 'execute', 'ask'];
const WEIGHTS: [Kind, number][] = [
  ['codeAction', 14],
  ['resolve', 16],
  ['execute', 20],
  ['ask', 14],
  ['explain', 4],
  ['trace', 10],
  ['agents', 10],
  ['unknownMethod', 6],
  ['unknownCommand', 6],
];

interface Planned {
  n: number;
  kind: Kind;
  /** The function a model kind runs on: `quickNNNN` answers at once, `stallNNNN` never answers. */
  target?: string;
  /** When the cancel is sent: after a delay, after the model request arrived, or while the editor applies the edit. */
  cancel: false | { afterMs: number } | { afterModelRequestMs: number } | { atApplyEdit: true };
  id?: Id;
  sentAt?: number;
  cancelledAt?: number;
  /** The answer had arrived before the cancel was sent. */
  answeredBeforeCancel?: boolean;
  response?: ResponseMessage;
  /** For a stalled target: the turns of the event loop from its answer to seeing its model request closed (none: not sent yet). */
  closeTurns?: number;
}

/** The model: classification answers "document" at once; a document prompt for `stall…` stalls, any other is answered. */
function scriptModel(model: ScriptedModel): void {
  const documentNumber = String(TASK_IDS.indexOf('document') + 1);
  model.setDefault({
    kind: 'dynamic',
    respond: (request) => {
      const messages = (request.body?.messages ?? []) as { content: string }[];
      if (String(messages[0]?.content).includes('which kind of task')) return { kind: 'text', content: documentNumber };
      return symbolOf(request)?.startsWith('stall') ? { kind: 'stall', afterHeaders: true } : { kind: 'text', content: '/** Adds a constant to the value. */' };
    },
  });
}

/** The storm function a document prompt is about (the prompt names it in backquotes). */
function symbolOf(request: RecordedRequest): string | undefined {
  const messages = (request.body?.messages ?? []) as { content: string }[];
  if (String(messages[0]?.content).includes('which kind of task')) return undefined;
  return /`((?:quick|stall)\d+)`/.exec(String(messages[1]?.content))?.[1];
}

function stormSource(names: string[]): string {
  return `// Storm targets: one function per request that reaches the model.\n${names.map((name, i) => `export function ${name}(value: number): number {\n  return value + ${i};\n}\n`).join('\n')}`;
}

function plan(seed: number, count: number): Planned[] {
  const r = prng(seed);
  const total = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  let quick = 0;
  let stall = 0;
  return Array.from({ length: count }, (_, n): Planned => {
    let roll = r.int(total);
    const kind = WEIGHTS.find(([, w]) => (roll -= w) < 0)![0];
    const cancelled = r.chance(0.5);
    if (!MODEL_KINDS.includes(kind)) return { n, kind, cancel: cancelled ? { afterMs: r.pick([0, 0, 1, 2, 5, 10, 20, 50]) } : false };
    // A stalled model request only ends by being cancelled, so only cancelled requests stall.
    const stalls = cancelled && r.chance(0.5);
    const target = stalls ? `stall${String(++stall).padStart(5, '0')}` : `quick${String(++quick).padStart(5, '0')}`;
    if (!cancelled) return { n, kind, target, cancel: false };
    if (stalls && r.chance(0.7)) return { n, kind, target, cancel: { afterModelRequestMs: r.int(20) } };
    if (kind === 'execute' && !stalls && r.chance(0.3)) return { n, kind, target, cancel: { atApplyEdit: true } };
    return { n, kind, target, cancel: { afterMs: r.pick([0, 0, 1, 3, 8, 15, 30, 60]) } };
  });
}

async function storm(count: number, seed: number): Promise<void> {
  const model = await startScriptedModel();
  models.push(model);
  scriptModel(model);
  const planned = plan(seed, count);
  const root = copyFixture('basic');
  // The targets live outside the tsconfig's files, in files of FUNCTIONS_PER_FILE, opened in the editor.
  const targets = planned.flatMap((p) => (p.target ? [p.target] : []));
  const fileOf = new Map<string, { uri: string; text: string }>();
  fs.mkdirSync(path.join(root, 'storm'));
  const server = RawServer.spawn({ root });
  servers.push(server);
  const init = await server.initialize({
    capabilities: RESOLVE_CAPABILITIES,
    initializationOptions: {
      assistant: {
        useEnvironment: false,
        agents: [{ name: 'storm-model', baseURL: model.baseURL, apiKey: 'sk-storm', model: 'storm', tasks: ['document'], maxRetries: 0 }],
        // One agent per task, so no run waits for a choice; no offline fixer, so no background type-check runs.
        disabledAgents: ['doc-offline', 'fix-offline'],
        orchestrator: { agentTimeoutMs: 60_000, maxAttempts: 1 },
      },
    },
  });
  expect(init.error).toBeUndefined();
  for (let i = 0; i < targets.length; i += FUNCTIONS_PER_FILE) {
    const names = targets.slice(i, i + FUNCTIONS_PER_FILE);
    const relative = `storm/batch${String(i / FUNCTIONS_PER_FILE).padStart(3, '0')}.ts`;
    const text = stormSource(names);
    fs.writeFileSync(path.join(root, relative), text);
    const opened = server.open(relative, text);
    for (const name of names) fileOf.set(name, opened);
  }
  const config = server.open('src/config.ts');
  const at = (file: { text: string }, needle: string) => {
    const lines = file.text.slice(0, file.text.indexOf(needle)).split('\n');
    const position = { line: lines.length - 1, character: lines[lines.length - 1]!.length };
    return { start: position, end: position };
  };
  const argsFor = (target: string) => {
    const file = fileOf.get(target)!;
    return { textDocument: { uri: file.uri, version: 1 }, range: at(file, `function ${target}(`), symbol: target };
  };
  // Warm-up outside the storm: the core and the explain agent's TypeScript project load once, as in a real session.
  expect((await server.call('assistant/agents', {}, 30_000)).error).toBeUndefined();
  expect((await server.call('workspace/executeCommand', { command: 'assistant.explain', arguments: [{ textDocument: { uri: config.uri, version: 1 }, range: at(config, 'parseConfig(text'), symbol: 'parseConfig' }] }, 60_000)).error).toBeUndefined();

  const send = (p: Planned): Id => {
    const anyFunction = p.n % 2 === 0 ? config : fileOf.get(targets[p.n % targets.length]!)!;
    switch (p.kind) {
      case 'codeAction': {
        const needle = anyFunction === config ? 'parseConfig(text' : `function ${targets[p.n % targets.length]}(`;
        return server.request('textDocument/codeAction', { textDocument: { uri: anyFunction.uri }, range: at(anyFunction, needle), context: { diagnostics: [] } });
      }
      case 'resolve':
        return server.request('codeAction/resolve', { title: `Assistant: Document function ${p.target}`, kind: 'refactor.rewrite.assistant.document', data: { task: 'document', args: argsFor(p.target!) } });
      case 'execute':
        return server.request('workspace/executeCommand', { command: 'assistant.document', arguments: [argsFor(p.target!)] });
      case 'ask':
        return server.request('assistant/ask', { text: `document ${p.target}`, textDocument: { uri: fileOf.get(p.target!)!.uri } });
      case 'explain':
        return server.request('workspace/executeCommand', { command: 'assistant.explain', arguments: [{ textDocument: { uri: config.uri, version: 1 }, range: at(config, p.n % 3 === 0 ? 'firstOf' : 'greet(name'), symbol: p.n % 3 === 0 ? 'firstOf' : 'greet' }] });
      case 'trace':
        return server.request('assistant/trace', p.n % 2 === 0 ? { limit: 20 } : { task: 'document', text: 'quick', limit: 5 });
      case 'agents':
        return server.request('assistant/agents', {});
      case 'unknownMethod':
        return server.request(p.n % 2 === 0 ? 'textDocument/hover' : 'assistant/storm', { textDocument: { uri: config.uri }, position: { line: 0, character: 0 } });
      case 'unknownCommand':
        return server.request('workspace/executeCommand', { command: 'assistant.storm', arguments: [] });
    }
  };

  /** The model request of a target, once it has arrived. */
  const modelRequestOf = (target: string): Promise<RecordedRequest> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = (): void => {
        const found = model.requests.find((request) => symbolOf(request) === target);
        if (found) resolve(found);
        else if (Date.now() - started > 20_000) reject(new Error(`no model request for ${target}`));
        else setTimeout(poll, 2);
      };
      poll();
    });

  /**
   * The turns of the event loop until the model request of a stalled target is seen closed, from now (its answer just
   * arrived); undefined when no model request of it has arrived (it is then checked once it does, below).
   */
  const turnsUntilClosed = async (target: string): Promise<number | undefined> => {
    const request = model.requests.find((r) => symbolOf(r) === target);
    if (!request) return undefined;
    let turns = 0;
    while (request.closedAt === undefined && turns <= 1_000) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    return turns;
  };

  // The editor cancels some commands at the worst moment: while it applies their edit, before it answers.
  const byLabel = new Map(planned.filter((p) => p.kind === 'execute').map((p) => [`Assistant: document ${p.target}`, p]));
  server.onServerRequest('workspace/applyEdit', (params) => {
    const p = byLabel.get(String((params as { label?: string }).label));
    if (p?.cancel && 'atApplyEdit' in p.cancel && p.id !== undefined) {
      p.cancelledAt = Date.now();
      server.cancel(p.id);
    }
    return { applied: true };
  });

  const resolvedEdits: { target: string; interactionId: string; responseId: string }[] = [];
  const run = async (p: Planned): Promise<void> => {
    p.id = send(p);
    p.sentAt = Date.now();
    const answered = server.response(p.id, 60_000);
    if (p.cancel && !('atApplyEdit' in p.cancel)) {
      const cancel = p.cancel;
      // At the planned moment, even when the answer is already on its way: a late cancel must not bring a second one.
      await ('afterMs' in cancel ? new Promise((r) => setTimeout(r, cancel.afterMs)) : modelRequestOf(p.target!).then(() => new Promise((r) => setTimeout(r, cancel.afterModelRequestMs))));
      p.answeredBeforeCancel = server.responsesTo(p.id).length > 0;
      p.cancelledAt = Date.now();
      server.cancel(p.id);
    }
    p.response = await answered;
    if (p.target?.startsWith('stall')) p.closeTurns = await turnsUntilClosed(p.target);
    const result = p.response.result as { command?: { command: string; arguments: [{ interactionId: string; responseId: string }] }; edit?: unknown } | undefined;
    if (p.kind === 'resolve' && result?.edit && result.command) {
      // The editor applies the resolved edit, then runs the command that records it: never cancelled.
      resolvedEdits.push({ target: p.target!, ...result.command.arguments[0] });
      const recorded = await server.call('workspace/executeCommand', { command: result.command.command, arguments: result.command.arguments }, 30_000);
      expect(recorded.error, `responseApplied for ${p.target}`).toBeUndefined();
    }
  };

  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < planned.length) await run(planned[next++]!);
    }),
  );
  const stormMs = Date.now() - started;

  // Every id answered exactly once, after the dust settles.
  await new Promise((r) => setTimeout(r, 300));
  for (const p of planned) expect(server.responsesTo(p.id!), `${p.kind} #${p.n}`).toHaveLength(1);

  const cancelled = planned.filter((p) => p.cancelledAt !== undefined);
  const cancelledAnswers = cancelled.filter((p) => p.response!.error?.code === -32800);
  const lateCancels = cancelled.filter((p) => !p.answeredBeforeCancel && p.response!.error?.code !== -32800);
  // A command cancelled while its edit was being applied reports that it was applied: the edit is in the editor.
  const atApplyEdit = planned.filter((p) => p.cancel && 'atApplyEdit' in p.cancel);
  expect(atApplyEdit.length).toBeGreaterThan(0);
  for (const p of atApplyEdit) expect(p.response!.result, `${p.target} cancelled while applying`).toMatchObject({ applied: true });
  for (const p of cancelled.filter((q) => q.answeredBeforeCancel)) expect(p.response!.error?.code, `${p.kind} #${p.n}`).not.toBe(-32800);
  // A request nobody cancelled is never answered as cancelled; one that stalls ends only through its cancel.
  for (const p of planned) if (p.cancelledAt === undefined) expect(p.response!.error?.code, `${p.kind} #${p.n}`).not.toBe(-32800);
  for (const p of planned.filter((q) => q.target?.startsWith('stall'))) expect(p.response!.error?.code, `${p.kind} ${p.target}`).toBe(-32800);
  // Answers are what each kind gives.
  for (const p of planned.filter((q) => q.response!.error?.code !== -32800)) {
    const { error, result } = p.response!;
    if (p.kind === 'unknownMethod') expect(error?.code).toBe(-32601);
    else if (p.kind === 'unknownCommand') expect(error?.code).toBe(-32602);
    else expect(error, `${p.kind} #${p.n} ${p.target ?? ''}`).toBeUndefined();
    if (p.kind === 'execute') expect(result, p.target).toMatchObject({ applied: true, outcome: 'applied' });
    if (p.kind === 'resolve') expect((result as { edit?: unknown }).edit, p.target).toBeDefined();
  }

  // No cancelled edit reached the editor: every workspace/applyEdit belongs to an execute answered with applied: true.
  const applyLabels = server.serverRequests.filter((r) => r.message.method === 'workspace/applyEdit').map((r) => String(r.message.params.label));
  const appliedTargets = planned.filter((p) => p.kind === 'execute' && (p.response!.result as { applied?: boolean } | undefined)?.applied === true).map((p) => p.target!);
  expect(applyLabels.sort()).toEqual(appliedTargets.map((t) => `Assistant: document ${t}`).sort());

  // The trace marks as used exactly the edits the editor applied: applied commands and recorded resolves.
  const used: Interaction[] = [];
  for (let offset: number | undefined = 0; offset !== undefined; ) {
    const page = await server.call('assistant/trace', { used: true, limit: 200, offset }, 30_000);
    const result = page.result as TraceResult;
    used.push(...result.interactions);
    offset = result.nextOffset;
  }
  const usedTargets = used.filter((i) => i.task === 'document').map((i) => i.context.symbol);
  expect(usedTargets.sort()).toEqual([...appliedTargets, ...resolvedEdits.map((e) => e.target)].sort());
  for (const p of cancelledAnswers) expect(usedTargets, `${p.kind} ${p.target ?? ''} was cancelled`).not.toContain(p.target);
  // An explanation counts as used once shown; a cancelled one never is (the warm-up is the one more).
  const shown = planned.filter((p) => p.kind === 'explain' && (p.response!.result as { outcome?: string } | undefined)?.outcome === 'shown');
  expect(used.filter((i) => i.task === 'explain')).toHaveLength(shown.length + 1);

  // Every stalled model request was closed by the cancel itself, before the server answered: its close is seen within
  // CLOSE_WITHIN_TURNS turns of the answer. One that reached the model only after the answer is closed all the same.
  // The wall-clock time from the cancel (or the request's arrival) to the close is reported, not judged.
  const byTarget = new Map(planned.filter((p) => p.target).map((p) => [p.target!, p]));
  const latencies: number[] = [];
  const turns: number[] = [];
  for (const request of model.requests) {
    const target = symbolOf(request);
    if (!target?.startsWith('stall')) continue;
    const p = byTarget.get(target)!;
    const closedAt = await model.waitForClose(request.index, 5_000);
    latencies.push(closedAt - Math.max(p.cancelledAt!, request.receivedAt));
    if (p.closeTurns !== undefined) turns.push(p.closeTurns);
    expect(p.closeTurns ?? 0, `${target}: turns from its cancelled answer to its model request's close`).toBeLessThanOrEqual(CLOSE_WITHIN_TURNS);
  }
  const maxLatency = Math.max(0, ...latencies);
  expect(turns.length).toBeGreaterThan(0);

  // Still serving, nothing unhandled.
  expect(server.alive).toBe(true);
  expect(server.stderr).not.toMatch(/unhandled rejection/i);
  const actions = await server.call('textDocument/codeAction', { textDocument: { uri: config.uri }, range: at(config, 'parseConfig(text'), context: { diagnostics: [] } });
  expect((actions.result as { title: string }[]).map((a) => a.title)).toContain('Assistant: Document function parseConfig');
  const stalls = planned.filter((p) => p.target?.startsWith('stall')).length;
  console.info(
    `cancellation storm (seed ${seed}): ${count} requests in ${stormMs} ms, ${cancelled.length} cancelled (${cancelledAnswers.length} answered -32800, ` +
      `${lateCancels.length} finished with their result though the cancel came first, ${cancelled.filter((p) => p.answeredBeforeCancel).length} after their answer), ` +
      `${appliedTargets.length} edits applied + ${resolvedEdits.length} resolved, ${stalls} stalled model requests closed, max close latency ${maxLatency} ms, ` +
      `turns from answer to close ${JSON.stringify(histogram(turns))}`,
  );
}

/** How many times each value occurs, by value. */
function histogram(values: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe('cancellation storm', () => {
  it('1,000 requests of every kind, half cancelled at random moments', async () => {
    await storm(1_000, testSeed(0xca9ce1));
  }, 120_000);

  it.runIf(LONG_TESTS)('10,000 requests (ASSISTANT_LONG_TESTS=1)', async () => {
    await storm(10_000, testSeed(0xca9ce1) + 1);
  }, 900_000);
});
