// The trace follows edits, end to end over --stdio with real files: inserted code found where it is now after edits, renames, reverts and restarts, edits discarded after they were applied not reported as used, and kept ones removed since reported so.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction, Position, Range } from 'vscode-languageserver-protocol';
import type { ApplyResult, AskResult, Interaction, RevertResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { BIN, TestEditor, copyFixture, until } from '../support/lspClient.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const FILE = 'src/config.ts';

async function start(root: string, assistant: Record<string, unknown> = {}) {
  const { editor } = await TestEditor.start({ root, initializationOptions: { assistant } });
  editors.push(editor);
  const doc = await editor.open(FILE);
  return { editor, doc };
}

/** Runs the offline Document action on the declaration at `needle`. */
async function documentAt(editor: TestEditor, uri: string, needle: string): Promise<string> {
  const position = editor.position(uri, needle);
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: actions[0]!.command!.command, arguments: actions[0]!.command!.arguments });
  expect(result.applied).toBe(true);
  return result.interactionId!;
}

/** Asks for a rename and applies the offline agent's answer. */
async function renameTo(editor: TestEditor, uri: string, text: string): Promise<string> {
  const answer = await editor.request<AskResult>('assistant/ask', { text, textDocument: { uri } });
  expect(answer.task).toBe('rename');
  const applied = await editor.request<ApplyResult>('assistant/apply', { interactionId: answer.interactionId, responseId: answer.responses[0]!.id });
  expect(applied.applied).toBe(true);
  return answer.interactionId;
}

/** An incremental change, as editors send them: `text` in place of `range`. */
async function edit(editor: TestEditor, uri: string, range: Range, text: string): Promise<void> {
  const buffer = editor.buffer(uri);
  const lines = buffer.text.split('\n');
  const offset = (p: Position): number => lines.slice(0, p.line).reduce((sum, line) => sum + line.length + 1, 0) + p.character;
  buffer.text = buffer.text.slice(0, offset(range.start)) + text + buffer.text.slice(offset(range.end));
  buffer.version++;
  await editor.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: buffer.version }, contentChanges: [{ range, text }] });
}

/** Inserts `text` at the start of the line holding `needle`. */
async function insertAbove(editor: TestEditor, uri: string, needle: string, text: string): Promise<void> {
  const at = { line: editor.position(uri, needle).line, character: 0 };
  await edit(editor, uri, { start: at, end: at }, text);
}

/** Writes the buffer to its file and says so, as an editor's save does. */
async function save(editor: TestEditor, uri: string): Promise<void> {
  fs.writeFileSync(fileURLToPath(uri), editor.buffer(uri).text);
  await editor.connection.sendNotification('textDocument/didSave', { textDocument: { uri } });
}

function interactionAt(editor: TestEditor, uri: string, needle: string): Promise<TraceResult> {
  return editor.request<TraceResult>('assistant/trace', { textDocument: { uri }, position: editor.position(uri, needle) });
}

async function recorded(editor: TestEditor, id: string): Promise<Interaction> {
  return (await editor.request<TraceResult>('assistant/trace', { id })).interactions[0]!;
}

/** The amendments on disk for one interaction, every session's, in file order. */
function amendmentsOnDisk(root: string, id: string): { patch: Record<string, unknown> }[] {
  return segmentFiles(path.join(root, '.assistant', 'trace'))
    .flatMap((file) => readSegment(file).amendments ?? [])
    .filter((amendment) => amendment.interactionId === id) as unknown as { patch: Record<string, unknown> }[];
}

/** Runs the built `assistant-ls trace` in the workspace, as a user in a terminal; its output. */
function traceCli(root: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, 'trace', ...args], { cwd: root, env: { ...process.env, TZ: 'UTC' } }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/** The line of the first occurrence of `needle` in a text. */
function lineOf(text: string, needle: string): number {
  return text.slice(0, text.indexOf(needle)).split('\n').length - 1;
}

describe('the trace follows edits', () => {
  it('finds the rename and the reverted doc comment on the renamed function, after the revert moved it up', async () => {
    const { editor, doc } = await start(copyFixture('basic'));
    const documented = await documentAt(editor, doc.uri, 'parseConfig(text');
    const renamed = await renameTo(editor, doc.uri, 'rename parseConfig to readConfig');
    expect(editor.buffer(doc.uri).text).toContain('export function readConfig(text');
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId: documented })).toMatchObject({ reverted: true });
    const text = editor.buffer(doc.uri).text;
    expect(text).not.toContain('@assistant');

    const found = await interactionAt(editor, doc.uri, 'readConfig(text');
    expect(found.interactions.map((i) => i.id)).toEqual([renamed, documented]);
    // The rename's insertion is where the name is now, and the revert's place is the function's line.
    const rename = found.interactions[0]!.responses.find((r) => r.used)!;
    const declarationLine = lineOf(text, 'export function readConfig');
    expect(rename.insertedAt!.map((i) => i.range.start.line)).toContain(declarationLine);
    expect(rename.insertedAt!.every((i) => text.split('\n')[i.range.start.line]!.slice(i.range.start.character).startsWith('readConfig'))).toBe(true);
    const revert = found.interactions[1]!.responses.find((r) => r.revertedAt)!;
    expect(revert.insertedAt![0]).toMatchObject({ state: 'removed', range: { start: { line: declarationLine, character: 0 }, end: { line: declarationLine, character: 0 } } });
    // Code elsewhere is not theirs.
    expect((await interactionAt(editor, doc.uri, 'export const firstOf')).interactions).toEqual([]);
  });

  it('finds the doc comment after the user renames the function and adds lines above it, without its annotation', async () => {
    const { editor, doc } = await start(copyFixture('basic'), { annotations: { enabled: false } });
    const documented = await documentAt(editor, doc.uri, 'parseConfig(text');
    await insertAbove(editor, doc.uri, 'export interface Config', '// Configuration of the service.\n// It has three keys.\n');
    const name = editor.position(doc.uri, 'parseConfig(text');
    await edit(editor, doc.uri, { start: name, end: { line: name.line, character: name.character + 'parseConfig'.length } }, 'readConfig');
    const found = await interactionAt(editor, doc.uri, 'readConfig(text');
    expect(found.interactions.map((i) => i.id)).toEqual([documented]);
    const text = editor.buffer(doc.uri).text;
    const [insertion] = found.interactions[0]!.responses[0]!.insertedAt!;
    // Two lines down, whole, and where it was put is kept beside.
    expect(insertion!.range.start.line).toBe(lineOf(text, '/**\n * '));
    expect(insertion!.appliedRange!.start.line).toBe(insertion!.range.start.line - 2);
    expect(insertion!.state).toBeUndefined();
  });

  it('changes the extent for an edit inside, writes the moved place on save, and finds it again after a restart on a file changed on disk', async () => {
    const root = copyFixture('basic');
    const first = await start(root, { annotations: { enabled: false } });
    const documented = await documentAt(first.editor, first.doc.uri, 'parseConfig(text');
    const inserted = (await recorded(first.editor, documented)).responses[0]!.insertedAt![0]!;
    // A word typed inside the comment, two lines added above it; then saved.
    const inside = first.editor.position(first.doc.uri, ' * @param text');
    await edit(first.editor, first.doc.uri, { start: { line: inside.line, character: 3 }, end: { line: inside.line, character: 3 } }, 'Carefully ');
    await insertAbove(first.editor, first.doc.uri, 'export interface Config', '// one\n// two\n');
    await save(first.editor, first.doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 0, 5000, 'the amendment on disk');
    const [written] = amendmentsOnDisk(root, documented);
    const moved = (written!.patch.insertions as { range: Range; state: string; fate: string; editedText: string }[])[0]!;
    expect(moved).toMatchObject({ state: 'edited', fate: 'kept', range: { start: { line: inserted.range.start.line + 2 }, end: { line: inserted.range.end.line + 2 } } });
    expect(moved.editedText).toContain(' * Carefully ');
    expect(written!.patch.fate).toMatchObject({ fate: 'kept' });
    expect(await first.editor.shutdownAndExit()).toBe(0);

    // Changed on disk while no server ran: three lines more above.
    const file = path.join(root, FILE);
    const onDisk = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, `// a\n// b\n// c\n${onDisk}`);
    const second = await start(root, { annotations: { enabled: false } });
    const found = await interactionAt(second.editor, second.doc.uri, 'parseConfig(text');
    expect(found.interactions.map((i) => i.id)).toEqual([documented]);
    const now = found.interactions[0]!.responses[0]!.insertedAt![0]!;
    expect(now).toMatchObject({ state: 'edited', fate: 'kept', range: { start: { line: inserted.range.start.line + 5 }, end: { line: inserted.range.end.line + 5 } } });
    expect(found.interactions[0]!.responses[0]).toMatchObject({ used: true, keptAt: expect.any(String) });
  });
});

describe('edits discarded after they were applied', () => {
  it('closed without saving: not used, said so, and left out of the used responses; on disk as an amendment', async () => {
    const root = copyFixture('basic');
    const { editor, doc } = await start(root);
    const documented = await documentAt(editor, doc.uri, 'parseConfig(text');
    expect((await recorded(editor, documented)).responses[0]).toMatchObject({ used: true, outcome: 'applied' });
    await editor.close(doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 0, 5000, 'the amendment on disk');
    const response = (await recorded(editor, documented)).responses[0]!;
    expect(response).toMatchObject({ used: false, outcome: 'discarded-after-apply', discardedAt: expect.any(String), outcomeReason: expect.stringMatching(/without saving/) });
    expect(response.insertedAt![0]).toMatchObject({ state: 'removed', fate: 'discarded' });
    expect((await editor.request<TraceResult>('assistant/trace', { used: true })).interactions.map((i) => i.id)).not.toContain(documented);
    expect((await editor.request<TraceResult>('assistant/trace', { used: false })).interactions.map((i) => i.id)).toContain(documented);
    // Nothing to revert, and a clear word why.
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId: documented })).toMatchObject({ reverted: false, outcome: 'not-applied', message: expect.stringMatching(/discarded after it was applied/) });
  });

  it('undone and saved: discarded; done again and saved: kept, for good', async () => {
    const root = copyFixture('basic');
    const { editor, doc } = await start(root);
    const original = doc.text;
    const documented = await documentAt(editor, doc.uri, 'parseConfig(text');
    const withDoc = editor.buffer(doc.uri).text;
    await editor.setText(doc.uri, original);
    await save(editor, doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 0, 5000, 'the amendment on disk');
    expect((await recorded(editor, documented)).responses[0]).toMatchObject({ used: false, outcome: 'discarded-after-apply', outcomeReason: expect.stringMatching(/removed before the file was saved/) });
    await editor.setText(doc.uri, withDoc);
    await save(editor, doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 1, 5000, 'the second amendment on disk');
    expect((await recorded(editor, documented)).responses[0]).toMatchObject({ used: true, outcome: 'applied', keptAt: expect.any(String) });
    // Kept is for good: the code deleted later and saved is the user's own change, not a discard; the response says
    // it has gone since.
    await editor.setText(doc.uri, original);
    await save(editor, doc.uri);
    await editor.close(doc.uri);
    const response = (await recorded(editor, documented)).responses[0]!;
    expect(response).toMatchObject({ used: true, outcome: 'applied', removedAt: expect.any(String) });
    expect(response.insertedAt![0]).toMatchObject({ state: 'removed', fate: 'kept' });
  });

  it('applied and the server shut down without a save: discarded, as the next session reads it', async () => {
    const root = copyFixture('basic');
    const first = await start(root);
    const documented = await documentAt(first.editor, first.doc.uri, 'parseConfig(text');
    const saved = await documentAt(first.editor, first.doc.uri, 'async load');
    await save(first.editor, first.doc.uri);
    // The second doc comment is saved; a third one is applied after the save and never saved.
    const unsaved = await documentAt(first.editor, first.doc.uri, 'export const firstOf');
    expect(await first.editor.shutdownAndExit()).toBe(0);
    const second = await start(root);
    const used = (await second.editor.request<TraceResult>('assistant/trace', { used: true })).interactions.map((i) => i.id);
    expect(used.sort()).toEqual([documented, saved].sort());
    expect((await recorded(second.editor, unsaved)).responses[0]).toMatchObject({ used: false, outcome: 'discarded-after-apply' });
  });

  it('applied by a server that was killed: the next session on the same workspace settles it from the disk', async () => {
    const root = copyFixture('basic');
    const first = await start(root);
    const kept = await documentAt(first.editor, first.doc.uri, 'async load');
    await save(first.editor, first.doc.uri);
    // Recorded as kept before the kill: the save's amendment is on disk.
    await until(() => amendmentsOnDisk(root, kept).length > 0, 5000, 'the amendment on disk');
    const lost = await documentAt(first.editor, first.doc.uri, 'parseConfig(text');
    await first.editor.dispose();
    const second = await start(root);
    expect((await recorded(second.editor, lost)).responses[0]).toMatchObject({ used: false, outcome: 'discarded-after-apply', outcomeReason: expect.stringMatching(/session ended/) });
    expect((await recorded(second.editor, kept)).responses[0]).toMatchObject({ used: true, keptAt: expect.any(String) });
  });
});

describe('edits removed after they were kept', () => {
  it('saved, undone and saved again: used, then removed, in the record and in assistant-ls trace; redone and saved: kept again', async () => {
    const root = copyFixture('basic');
    const file = path.join(root, FILE);
    const original = fs.readFileSync(file, 'utf8');
    const { editor, doc } = await start(root);
    const documented = await documentAt(editor, doc.uri, 'parseConfig(text');
    const inserted = (await recorded(editor, documented)).responses[0]!.insertedAt![0]!;
    await save(editor, doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 0, 5000, 'the amendment of the first save');
    expect((await recorded(editor, documented)).responses[0]).toMatchObject({ used: true, keptAt: expect.any(String) });

    // Undone as an editor sends it (the inserted lines taken out), and saved: the file is as it was.
    await edit(editor, doc.uri, inserted.range, '');
    await save(editor, doc.uri);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    await until(() => amendmentsOnDisk(root, documented).length > 1, 5000, 'the amendment of the second save');
    const removed = (await recorded(editor, documented)).responses[0]!;
    // Still used and kept (it was in the saved file), and its code has gone since.
    expect(removed).toMatchObject({ used: true, outcome: 'applied', keptAt: expect.any(String), removedAt: expect.any(String) });
    expect(removed.insertedAt![0]).toMatchObject({ state: 'removed', fate: 'kept' });
    const listed = await traceCli(root);
    expect(listed).toMatch(new RegExp(`\\n${documented.slice(0, 8)} .* document +doc-offline +src/config\\.ts:\\d+ +used, then removed +document parseConfig\\n`));
    const shown = await traceCli(root, 'show', documented);
    expect(shown).toMatch(/\n {2}Outcome {3}used, then removed\n/);
    expect(shown).toMatch(/\n {2}After {5}applied\n {12}kept on disk [\d-]+ [\d:]+\n {12}removed from the file [\d-]+ [\d:]+\n/);

    // Redone and saved: kept, and no longer removed.
    await edit(editor, doc.uri, { start: inserted.range.start, end: inserted.range.start }, inserted.text);
    await save(editor, doc.uri);
    await until(() => amendmentsOnDisk(root, documented).length > 2, 5000, 'the amendment of the third save');
    const back = (await recorded(editor, documented)).responses[0]!;
    expect(back).toMatchObject({ used: true, keptAt: expect.any(String) });
    expect(back.removedAt).toBeUndefined();
    expect(await traceCli(root)).toMatch(/ used, kept +document parseConfig\n/);
    expect(await editor.shutdownAndExit()).toBe(0);
  });
});
