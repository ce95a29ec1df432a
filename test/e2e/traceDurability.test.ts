// End-to-end trace durability: kill -9 right after an acknowledged apply leaves parsable files holding it; a restart reads it back; damage is set aside.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplyResult, AskResult, Interaction, TraceResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { readInteractions, readSegment, segmentFiles } from '../support/traceFiles.js';
import { RawServer } from '../support/rawLsp.js';

const editors: TestEditor[] = [];
const raws: RawServer[] = [];
afterEach(async () => {
  await Promise.all([...editors.splice(0), ...raws.splice(0)].map((e) => e.dispose()));
});

/**
 * A Document run over raw frames whose `workspace/applyEdit` the client answers and then at once does `quit` (sends
 * what `quit` sends, in the same write as the answer): the way an editor quits right after the user's choice.
 */
async function documentThenQuit(quit: (raw: RawServer) => void): Promise<{ raw: RawServer; root: string; exit: { code: number | null } }> {
  const root = copyFixture('basic');
  const raw = RawServer.spawn({ root });
  raws.push(raw);
  await raw.initialize();
  const { uri, text } = raw.open('src/config.ts');
  const line = text.split('\n').findIndex((l) => l.includes('export function parseConfig'));
  raw.onServerRequest('workspace/applyEdit', () => {
    // Runs after this answer is written, before anything else the test does.
    queueMicrotask(() => quit(raw));
    return { applied: true };
  });
  const position = { line, character: 17 };
  raw.request('workspace/executeCommand', { command: 'assistant.document', arguments: [{ textDocument: { uri, version: 1 }, range: { start: position, end: position }, symbol: 'parseConfig' }] });
  const exit = await raw.exited;
  return { raw, root, exit };
}

function traceFiles(root: string): string[] {
  return segmentFiles(path.join(root, '.assistant', 'trace'));
}

describe('trace durability', () => {
  it('keeps an acknowledged apply through kill -9 and serves it after a restart', async () => {
    const root = copyFixture('basic');
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    const answer = await editor.request<AskResult>('assistant/ask', { text: 'document the load method', textDocument: { uri: doc.uri } });
    const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
    expect(applied.applied).toBe(true);
    editor.child.kill('SIGKILL');
    await editor.exited;

    const records: Interaction[] = traceFiles(root).flatMap((file) => readSegment(file).interactions);
    const record = records.find((i) => i.id === answer.interactionId);
    expect(record?.responses[0]).toMatchObject({ used: true, outcome: 'applied' });

    const { editor: second } = await TestEditor.start({ root });
    editors.push(second);
    const trace = await second.request<TraceResult>('assistant/trace', { id: answer.interactionId });
    expect(trace.interactions[0]!.responses[0]!.used).toBe(true);
    expect(trace.interactions[0]!.sessionId).not.toBe(undefined);
  });

  it('keeps the outcome of an edit the editor answered just before closing its input, or sending shutdown and exit at once, or SIGTERM', async () => {
    const quits: [string, (raw: RawServer) => void, number][] = [
      ['input closed', (raw) => raw.child.stdin!.end(), 1],
      ['shutdown and exit in one write', (raw) => {
        raw.request('shutdown');
        raw.notify('exit');
      }, 0],
      ['SIGTERM', (raw) => raw.child.kill('SIGTERM'), 1],
    ];
    for (const [how, quit, code] of quits) {
      const { root, exit, raw } = await documentThenQuit(quit);
      expect(exit.code, how).toBe(code);
      const documented = readInteractions(root).find((i) => i.task === 'document');
      expect(documented?.responses[0], `${how}; stderr: ${raw.stderr}`).toMatchObject({ used: true, outcome: 'applied' });
    }
  });

  it('records from two servers on the same workspace at once, each seeing the other’s interactions, nothing lost', async () => {
    const root = copyFixture('basic');
    const [{ editor: a }, { editor: b }] = await Promise.all([TestEditor.start({ root }), TestEditor.start({ root })]);
    editors.push(a, b);
    const ask = (editor: TestEditor, i: number): Promise<AskResult> => editor.request<AskResult>('assistant/ask', { text: i % 2 ? 'document parseConfig' : 'explain parseConfig' });
    const rounds = 15;
    const answers = await Promise.all([a, b].flatMap((editor) => Array.from({ length: rounds }, (_, i) => ask(editor, i))));
    const ids = answers.map((x) => x.interactionId);
    expect(new Set(ids).size).toBe(2 * rounds);
    // Each server reads the other's records too (another session's segments are re-read when they change).
    for (const editor of [a, b]) {
      const seen = await Promise.all(ids.map((id) => editor.request<TraceResult>('assistant/trace', { id })));
      expect(seen.filter((t) => t.total === 1)).toHaveLength(ids.length);
    }
    expect(await a.shutdownAndExit()).toBe(0);
    expect(await b.shutdownAndExit()).toBe(0);
    const records: Interaction[] = traceFiles(root).flatMap((file) => readSegment(file).interactions);
    expect(new Set(records.map((r) => r.id))).toEqual(new Set(ids));
    expect(new Set(records.map((r) => r.sessionId)).size).toBe(2);
  });

  it('sets a damaged trace file aside and starts anyway', async () => {
    const root = copyFixture('basic');
    const { editor } = await TestEditor.start({ root });
    editors.push(editor);
    const first = await editor.request<AskResult>('assistant/ask', { text: 'document parseConfig' });
    expect(await editor.shutdownAndExit()).toBe(0);
    const [file] = traceFiles(root);
    // A line that does not parse and is not the last one cut short: damage, not a write a crash interrupted.
    fs.writeFileSync(file!, '{"format": 2, "session": {"id": "x"}}\n{"add": {"id": "trunc\n');

    const { editor: second } = await TestEditor.start({ root });
    editors.push(second);
    expect((await second.request<TraceResult>('assistant/trace', { id: first.interactionId })).total).toBe(0);
    const next = await second.request<AskResult>('assistant/ask', { text: 'document parseConfig' });
    expect((await second.request<TraceResult>('assistant/trace', { id: next.interactionId })).total).toBe(1);
    const dir = path.dirname(file!);
    expect(fs.readdirSync(dir).some((f) => f.includes('.damaged-'))).toBe(true);
  });
});
