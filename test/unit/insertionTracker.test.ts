// The insertion tracker on a real trace in a temporary folder: inserted code followed through seeded random edits, found again by its text, and judged by what reached the disk.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Interaction, TraceSession } from '../../server/src/protocol.js';
import { InsertionTracker, type TextChange } from '../../server/src/trace/insertionTracker.js';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import { offsetsToRange } from '../../server/src/edits/textEdits.js';
import { prng, testSeed } from '../support/rawLsp.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

const URI = 'file:///ws/src/a.ts';
const SESSION: TraceSession = { id: 's1', startedAt: '2026-01-01T00:00:00.000Z', user: 'ada', role: 'developer', workspace: '/ws', pid: process.pid };

/** A store holding one applied response that inserted each `inserted` at its `offset` of `text` (the text after the edit). */
async function storeWith(text: string, offset: number, inserted: string, more: { offset: number; text: string }[] = [], task: Interaction['task'] = 'document'): Promise<TraceStore> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-tracker-'));
  directories.push(directory);
  const store = await TraceStore.open({ directory, session: SESSION, segmentSize: 10 });
  const interaction: Interaction = {
    id: 'i1',
    sessionId: 's1',
    timestamp: '2026-01-01T00:00:01.000Z',
    role: 'developer',
    user: 'ada',
    source: 'command',
    text: '',
    task,
    context: {},
    responses: [
      {
        id: 'r1',
        agent: { name: 'doc-offline', technology: 'rule', isLLM: false },
        status: 'ok',
        text: inserted,
        used: true,
        outcome: 'applied',
        insertedAt: [{ offset, text: inserted }, ...more].map((one) => ({ uri: URI, range: offsetsToRange(text, one.offset, one.offset + one.text.length), text: one.text, replaced: '', at: '2026-01-01T00:00:01.000Z' })),
        startedAt: '2026-01-01T00:00:01.000Z',
        durationMs: 1,
      },
    ],
  };
  await store.add(interaction);
  return store;
}

function apply(text: string, change: TextChange): string {
  return text.slice(0, change.start) + change.text + text.slice(change.end);
}

/** Where the tracker says the insertion is, as offsets into `text`. */
function trackedOffsets(tracker: InsertionTracker, store: TraceStore, text: string): { start: number; end: number; state: string } {
  const [insertion] = tracker.overlay(store.get('i1')!).responses[0]!.insertedAt!;
  const lines = text.split('\n');
  const offset = (line: number, character: number): number => lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0) + character;
  return { start: offset(insertion!.range.start.line, insertion!.range.start.character), end: offset(insertion!.range.end.line, insertion!.range.end.character), state: insertion!.state ?? 'present' };
}

describe('InsertionTracker', () => {
  it('follows an insertion through seeded random edits around it and inside it, given as steps or as whole texts', async () => {
    // The inserted text begins and ends with marks no edit types, and edits inside it never touch them: wherever the
    // marks are is where the insertion must be.
    const r = prng(testSeed(20261127));
    for (let round = 0; round < 40; round++) {
      let text = 'const a = 1;\nconst b = 2;\n';
      const inserted = '«/** Doc. */\n»';
      text = `${text}${inserted}function f() {}\n`;
      const store = await storeWith(text, text.indexOf('«'), inserted);
      let disk = text;
      const tracker = new InsertionTracker(store, () => text, () => disk, () => undefined);
      tracker.changed(URI, text);
      const whole = r.chance(0.5);
      for (let step = 0; step < 30; step++) {
        const open = text.indexOf('«');
        const close = text.indexOf('»');
        // A place outside the marks, or strictly between them.
        const inside = r.chance(0.4) && close - open > 1;
        const start = inside ? open + 1 + r.int(close - open - 1) : r.chance(0.5) ? r.int(open + 1) : close + 1 + r.int(text.length - close);
        const limit = inside ? close : start <= open ? open : text.length;
        const end = Math.min(limit, start + r.int(4));
        const change = { start, end, text: r.pick(['', 'x', 'yy\n', '\n', 'zz zz']) };
        const before = text;
        text = apply(text, change);
        tracker.changed(URI, text, before, whole ? undefined : [change]);
      }
      const found = trackedOffsets(tracker, store, text);
      expect({ start: found.start, end: found.end }, `round ${round}: ${JSON.stringify(text)}`).toEqual({ start: text.indexOf('«'), end: text.indexOf('»') + 1 });
      expect(found.state).toBe(text.slice(found.start, found.end) === inserted ? 'present' : 'edited');
      disk = text;
      await store.close();
    }
  });

  it('marks an insertion removed by an edit over all of it, and there again when an undo puts it back', async () => {
    let text = 'head\n/** Doc. */\nfunction f() {}\n';
    const store = await storeWith(text, 5, '/** Doc. */\n');
    const tracker = new InsertionTracker(store, () => text, () => undefined, () => undefined);
    tracker.changed(URI, text);
    const before = text;
    text = apply(text, { start: 3, end: 20, text: 'XY' });
    tracker.changed(URI, text, before, [{ start: 3, end: 20, text: 'XY' }]);
    expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
    const undone = before;
    tracker.changed(URI, undone, text, [{ start: 3, end: 5, text: before.slice(3, 20) }]);
    text = undone;
    expect(trackedOffsets(tracker, store, text)).toEqual({ start: 5, end: 17, state: 'present' });
    await store.close();
  });

  it('does not credit a short completion the user typed again by hand where it was, and does when an undo puts it back', async () => {
    // `return` accepted from a completion, then its line cleared after the indent (Neovim's `S`), then `return` typed
    // again there, a key at a time, the keys reaching the server in one notification; or the clearing undone at once.
    const head = 'function f(a: number) {\n  ';
    const tail = ' a;\n}\n';
    for (const how of ['typed', 'undone'] as const) {
      let text = `${head}return${tail}`;
      const store = await storeWith(text, head.length, 'return', [], 'complete');
      const tracker = new InsertionTracker(store, () => text, () => undefined, () => undefined);
      tracker.changed(URI, text);
      const cleared = { start: head.length, end: head.length + 'return a;'.length, text: '' };
      let before = text;
      text = apply(text, cleared);
      tracker.changed(URI, text, before, [cleared]);
      expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
      const steps = how === 'typed' ? [...'return a;'].map((key, i) => ({ start: cleared.start + i, end: cleared.start + i, text: key })) : [{ start: cleared.start, end: cleared.start, text: 'return a;' }];
      before = text;
      text = steps.reduce(apply, text);
      expect(text).toBe(`${head}return${tail}`);
      tracker.changed(URI, text, before, steps);
      expect(trackedOffsets(tracker, store, text), how).toMatchObject(how === 'typed' ? { state: 'removed' } : { start: head.length, end: head.length + 6, state: 'present' });
      await store.close();
    }
  });

  it('does not take a short accepted word for code of the file once the buffer is reloaded from disk without it', async () => {
    // Upstream code, then `  const` accepted from a completion on the blank line between two of its statements.
    const disk = 'function f(o: object) {\n  const a = 1;\n\n  const objectPrototype = Object.getPrototypeOf(o);\n}\n';
    const at = disk.indexOf('\n\n') + 1;
    let text = `${disk.slice(0, at)}  const${disk.slice(at)}`;
    const store = await storeWith(text, at, '  const');
    const tracker = new InsertionTracker(store, () => text, () => disk, () => undefined);
    tracker.changed(URI, text);
    // `:e!`: the editor replaces the whole buffer with the file; then the user saves it.
    const before = text;
    text = disk;
    tracker.changed(URI, text, before, [{ start: 0, end: before.length, text: disk }]);
    expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
    tracker.saved(URI);
    expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
    await store.close();
  });

  it('does not move a short accepted completion onto the file\'s own word when the reloaded text comes whole', async () => {
    const disk = 'function f(o: object) {\n  if (o) return;\n}\n';
    let text = `${disk}if`;
    const store = await storeWith(text, disk.length, 'if', [], 'complete');
    const tracker = new InsertionTracker(store, () => text, () => disk, () => undefined);
    tracker.changed(URI, text);
    // `:e!` sent as the whole new text, with no change to follow: the word is gone, not moved to the file's own `if`.
    text = disk;
    tracker.changed(URI, text);
    expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
    tracker.saved(URI);
    expect(trackedOffsets(tracker, store, text)).toMatchObject({ state: 'removed' });
    await store.close();
  });

  it('finds the inserted text again in a text it did not see change: nearest to where it was, and a short one where the others moved', async () => {
    const text = 'one\n/** Doc. */\nfunction fooBar() {}\nfooBar();\n/** Doc. */\nfunction g() { fooBar(); }\n';
    const name = text.indexOf('fooBar();');
    // A doc comment that occurs twice, and a name that occurs three times (recorded: the call on its own line).
    const store = await storeWith(text, text.lastIndexOf('/** Doc. */'), '/** Doc. */\n', [{ offset: name, text: 'fooBar' }, { offset: 0, text: 'one\n' }]);
    let current = text;
    const tracker = new InsertionTracker(store, () => current, () => undefined, () => undefined);
    current = `added\nlines\n${text.replace('fooBar();\n', 'fooBar();\n// x\n')}`;
    tracker.changed(URI, current);
    const [doc, call, head] = tracker.overlay(store.get('i1')!).responses[0]!.insertedAt!;
    const lines = current.split('\n');
    expect(lines[doc!.range.start.line]).toBe('/** Doc. */');
    expect(doc!.range.start.line).toBe(lines.lastIndexOf('/** Doc. */'));
    expect(lines[call!.range.start.line]).toBe('fooBar();');
    expect(call!.range.start.character).toBe(0);
    expect(lines[head!.range.start.line]).toBe('one');
    await store.close();
  });
});
