// End-to-end incremental document sync: after ranged changes in any order and number per notification, code actions match those of the same text opened whole.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Position } from 'vscode-languageserver-protocol';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { prng, testSeed } from '../support/rawLsp.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const PIECES = ['\nexport function added(a: number): number { return a; }\n', ' ', 'x', '\n', '// note\n', 'class Extra { run() { return 1; } }\n', '{', '}', '/** Doc. */\n', 'const z = () => 2;\n'];

function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length - 1, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** The actions offered at a place, told apart by title and kind (their arguments name the document). */
async function offered(editor: TestEditor, uri: string, position: Position): Promise<string[]> {
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
  return actions.map((a) => `${a.kind}: ${a.title}`).sort();
}

describe('incremental document sync', () => {
  it('offers after ranged changes (last first, first first, several per notification, or whole texts) what the same text opened whole gets', async () => {
    const random = prng(testSeed(77));
    const { editor } = await TestEditor.start({ root: copyFixture('basic'), initializationOptions: { assistant: { annotations: { enabled: false } } } });
    editors.push(editor);
    const doc = await editor.open('src/config.ts');
    let version = 1;
    let text = doc.text;
    let probes = 0;
    let withOffers = 0;
    for (let round = 0; round < 12; round++) {
      for (let notification = random.int(3) + 1; notification > 0; notification--) {
        const changes: { range: { start: Position; end: Position }; text: string }[] = [];
        // Changes at increasing offsets, each on the text the ones before it made; sent last first (as editors
        // send one edit's changes, so every range reads the same on the text before the notification), or in this
        // order, or one by one.
        const count = random.int(3) + 1;
        let current = text;
        const made: typeof changes = [];
        let from = 0;
        for (let n = 0; n < count && from <= current.length; n++) {
          const start = from + random.int(Math.max(1, Math.floor((current.length - from) / (count - n))));
          const end = random.chance(0.3) ? Math.min(current.length, start + random.int(8)) : start;
          const piece = random.pick(PIECES);
          made.push({ range: { start: positionAt(current, start), end: positionAt(current, end) }, text: piece });
          current = current.slice(0, start) + piece + current.slice(end);
          from = start + piece.length;
        }
        const order = random.int(3);
        if (order === 0) {
          // Last first: each range on the text before the notification.
          const ranges = made.map((change, i) => ({ ...change, range: { start: positionAt(text, offsetOn(text, made, i, 'start')), end: positionAt(text, offsetOn(text, made, i, 'end')) } }));
          changes.push(...ranges.reverse());
        } else if (order === 1) {
          changes.push(...made);
        } else {
          changes.push({ range: { start: { line: 0, character: 0 }, end: positionAt(text, text.length) }, text: current });
        }
        version += 1;
        await editor.connection.sendNotification('textDocument/didChange', { textDocument: { uri: doc.uri, version }, contentChanges: changes });
        text = current;
      }
      doc.text = text;
      doc.version = version;
      // The same text in a file of its own beside it, opened whole (a file, since some tasks are offered only there).
      const relative = `src/fresh${round}.ts`;
      fs.writeFileSync(path.join(editor.root, relative), text);
      const fresh = editor.uri(relative);
      await editor.openText(fresh, 'typescript', text);
      for (let probe = 0; probe < 6; probe++) {
        const position = positionAt(text, random.int(text.length + 1));
        const incremental = await offered(editor, doc.uri, position);
        expect(incremental, `round ${round} at ${position.line}:${position.character}`).toEqual(await offered(editor, fresh, position));
        probes += 1;
        if (incremental.length > 0) withOffers += 1;
      }
      await editor.close(fresh);
    }
    // Equal lists prove something only if they are not all empty: about half the probes fall in code the tasks are offered on.
    console.log(`incremental sync: ${withOffers} of ${probes} probes with offers`);
    expect(withOffers).toBeGreaterThanOrEqual(probes / 4);
  });
});

/**
 * Where change `i` of `made` (each on the text the ones before it made, at increasing offsets) starts or ends in
 * `text`, the text before all of them: the changes before it moved it by what they added.
 */
function offsetOn(text: string, made: readonly { range: { start: Position; end: Position }; text: string }[], i: number, side: 'start' | 'end'): number {
  let current = text;
  let shift = 0;
  for (let k = 0; k <= i; k++) {
    const change = made[k]!;
    const start = offsetOf(current, change.range.start);
    const end = offsetOf(current, change.range.end);
    if (k === i) return (side === 'start' ? start : end) - shift;
    shift += change.text.length - (end - start);
    current = current.slice(0, start) + change.text + current.slice(end);
  }
  return 0;
}

function offsetOf(text: string, position: Position): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) offset = text.indexOf('\n', offset) + 1;
  return offset + position.character;
}
