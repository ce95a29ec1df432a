// The preview setting over --stdio: which edits carry a change annotation that needs confirmation, for which clients, and what a discard records.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResponseError } from 'vscode-jsonrpc/node';
import type { AnnotatedTextEdit, ApplyWorkspaceEditParams, ClientCapabilities, CodeAction, CreateFile, TextDocumentEdit } from 'vscode-languageserver-protocol';
import type { ApplyPatchResult, ApplyResult, AskResult, RevertResult, TaskCommandResult, TraceResult } from '../../protocol/src/index.js';
import { FULL_CAPABILITIES, RESOLVE_CAPABILITIES, TestEditor, copyFixture, handleFiles } from '../support/lspClient.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

/** VS Code's declaration: resolve with edits, versioned document changes, and change annotations. */
const PREVIEW_CAPABILITIES: ClientCapabilities = {
  ...RESOLVE_CAPABILITIES,
  workspace: { ...RESOLVE_CAPABILITIES.workspace, workspaceEdit: { ...RESOLVE_CAPABILITIES.workspace?.workspaceEdit, changeAnnotationSupport: { groupsOnLabel: true } } },
};

type Policy = 'always' | 'multiFile' | 'never';

async function start(fixture: string, capabilities: ClientCapabilities, preview?: Policy): Promise<TestEditor> {
  const { editor } = await TestEditor.start({ root: copyFixture(fixture), capabilities, initializationOptions: { assistant: preview ? { preview } : {} } });
  editors.push(editor);
  return editor;
}

/** Runs Document on parseConfig as a code action, through its command (as a client that previews does). */
async function documentParseConfig(editor: TestEditor): Promise<TaskCommandResult> {
  const doc = await editor.open('src/config.ts');
  const position = editor.position(doc.uri, 'parseConfig(text');
  const [action] = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  expect(action?.command, 'a client that previews runs the task as a command').toBeDefined();
  return editor.request<TaskCommandResult>('workspace/executeCommand', { command: action!.command!.command, arguments: action!.command!.arguments });
}

/** The annotation every change of the edit carries, or undefined when none does; fails when only some do. */
function previewAnnotation(params: ApplyWorkspaceEditParams): { label: string; description?: string; needsConfirmation?: boolean } | undefined {
  const changes = params.edit.documentChanges ?? [];
  const ids = changes.flatMap((change) => ('kind' in change ? [(change as CreateFile).annotationId] : (change as TextDocumentEdit).edits.map((e) => (e as AnnotatedTextEdit).annotationId)));
  if (ids.every((id) => id === undefined)) {
    expect(params.edit.changeAnnotations).toBeUndefined();
    return undefined;
  }
  expect(new Set(ids).size, 'one annotation on every change').toBe(1);
  return params.edit.changeAnnotations?.[ids[0] as string];
}

/** Two files changed and one created, moved onto nothing: a pasted patch on the pipelines fixture. */
const MULTI_FILE_PATCH = [
  '--- a/src/pricing.ts',
  '+++ b/src/pricing.ts',
  '@@ -12 +12 @@',
  '-  return item.price;',
  '+  return item.price * item.quantity;',
  '--- /dev/null',
  '+++ b/src/discounts.ts',
  '@@ -0,0 +1,2 @@',
  '+// Discounts, by code.',
  '+export const DISCOUNTS: Record<string, number> = {};',
].join('\n');

describe('preview before an edit lands (--stdio)', () => {
  const ONE_FILE: Record<Policy, unknown> = {
    always: { label: 'Assistant: document parseConfig', description: 'by doc-offline (rule)', needsConfirmation: true },
    multiFile: undefined,
    never: undefined,
  };
  it.each(['always', 'multiFile', 'never'] as const)('with preview "%s", annotates a one-file edit with needsConfirmation only under "always", naming the task and the agent', async (policy) => {
    const editor = await start('basic', PREVIEW_CAPABILITIES, policy);
    const result = await documentParseConfig(editor);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.applied).toHaveLength(1);
    expect(editor.applied[0]!.label).toBe('Assistant: document parseConfig');
    expect(previewAnnotation(editor.applied[0]!)).toEqual(ONE_FILE[policy]);
  });

  const PATCH_PREVIEW = { label: 'Assistant: apply a patch', description: 'by pasted-patch (rule)', needsConfirmation: true };
  it.each([
    ['always', PATCH_PREVIEW],
    ['multiFile', PATCH_PREVIEW],
    ['the default', PATCH_PREVIEW],
    ['never', undefined],
  ] as const)('with preview %s, an edit that touches two files and creates one carries the annotation: %o', async (policy, expected) => {
    const editor = await start('pipelines', PREVIEW_CAPABILITIES, policy === 'the default' ? undefined : policy);
    await editor.open('src/pricing.ts');
    // The new file is opened by the editor once it exists; here the test editor only answers.
    editor.onApplyEdit = () => ({ applied: true });
    const result = await editor.request<ApplyPatchResult>('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{ patch: MULTI_FILE_PATCH }] });
    expect(result.applied).toBe(true);
    const params = editor.applied[0]!;
    expect(params.edit.documentChanges?.map((c) => ('kind' in c ? c.kind : 'edit'))).toEqual(['create', 'edit', 'edit']);
    expect(previewAnnotation(params)).toEqual(expected);
  });

  it('reverts a patch across files as one previewed edit: a discard reverts nothing, an accept reverts every file', async () => {
    const editor = await start('pipelines', PREVIEW_CAPABILITIES, 'multiFile');
    const pricing = await editor.open('src/pricing.ts');
    handleFiles(editor);
    const patched = await editor.request<ApplyPatchResult>('workspace/executeCommand', { command: 'assistant.applyPatch', arguments: [{ patch: MULTI_FILE_PATCH }] });
    expect(patched.applied).toBe(true);
    const discounts = path.join(editor.root, 'src/discounts.ts');
    expect(fs.existsSync(discounts)).toBe(true);
    const afterPatch = editor.buffer(pricing.uri).text;
    const sent = editor.applied.length;
    // As Neovim holds a file it created and filled: the empty line the new buffer began with is still at its end.
    fs.appendFileSync(discounts, '\n');

    // The user looks at the revert and discards it: one edit was shown, nothing changed, and it can be reverted later.
    editor.onApplyEdit = () => ({ applied: false });
    const discarded = await editor.request<RevertResult>('assistant/revert', { interactionId: patched.interactionId });
    expect(discarded).toEqual({ reverted: false, outcome: 'discarded', message: 'Discarded in the preview; nothing was reverted.' });
    expect(editor.applied.length).toBe(sent + 1);
    const shown = editor.applied.at(-1)!;
    expect(shown.edit.documentChanges?.map((c) => ('kind' in c ? `${c.kind} ${(c as CreateFile).uri}` : `edit ${c.textDocument.uri}`))).toEqual([`edit ${pricing.uri}`, `delete ${editor.uri('src/discounts.ts')}`]);
    expect(previewAnnotation(shown)).toMatchObject({ label: expect.stringMatching(/^Assistant: revert /), description: 'what pasted-patch inserted', needsConfirmation: true });
    expect(editor.buffer(pricing.uri).text).toBe(afterPatch);
    expect(fs.existsSync(discounts)).toBe(true);
    // The trace says the user looked at the revert and kept the code, and the response is still applied, not reverted.
    const afterDiscard = (await editor.request<TraceResult>('assistant/trace', { id: patched.interactionId })).interactions[0]!;
    expect(afterDiscard.responses[0]).toMatchObject({ used: true, revertsDiscardedAt: [expect.any(String)] });
    expect(afterDiscard.responses[0]!.revertedAt).toBeUndefined();

    // A created file the user wrote in is theirs: nothing is reverted, in any file.
    const created = fs.readFileSync(discounts, 'utf8');
    fs.writeFileSync(discounts, `${created}export const SEASONAL = 0.1;\n`);
    handleFiles(editor);
    expect(await editor.request<RevertResult>('assistant/revert', { interactionId: patched.interactionId })).toMatchObject({ reverted: false, outcome: 'changed' });
    expect(editor.buffer(pricing.uri).text).toBe(afterPatch);
    fs.writeFileSync(discounts, created);

    // Accepted: every file at once.
    const reverted = await editor.request<RevertResult>('assistant/revert', { interactionId: patched.interactionId });
    expect(reverted).toMatchObject({ reverted: true, outcome: 'reverted' });
    expect(editor.applied.length).toBe(sent + 2);
    expect(editor.applied.at(-1)!.edit.documentChanges).toHaveLength(2);
    expect(editor.buffer(pricing.uri).text).toBe(pricing.text);
    expect(fs.existsSync(discounts)).toBe(false);
    // Both are in the history, the discarded look first; the preview named the pasted patch, not a task it is not.
    const [afterRevert] = (await editor.request<TraceResult>('assistant/trace', { task: 'patch' })).interactions;
    expect(afterRevert).toMatchObject({ id: patched.interactionId, task: 'patch' });
    expect(afterRevert!.responses[0]!.revertsDiscardedAt).toEqual(afterDiscard.responses[0]!.revertsDiscardedAt);
    expect(afterRevert!.responses[0]!.revertedAt! > afterRevert!.responses[0]!.revertsDiscardedAt![0]!).toBe(true);
    expect(previewAnnotation(shown)!.label).toBe('Assistant: revert the pasted patch');
    expect(reverted.message).toBe('Reverted the pasted patch.');
  });

  it('lets a client that declares no change annotations resolve the edit itself, unannotated, as before', async () => {
    const plain = await start('basic', RESOLVE_CAPABILITIES, 'always');
    const doc = await plain.open('src/config.ts');
    const position = plain.position(doc.uri, 'parseConfig(text');
    const [action] = await plain.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
    // It resolves the edit itself, unannotated.
    expect(action!.command).toBeUndefined();
    const resolved = await plain.request<CodeAction>('codeAction/resolve', action);
    expect(resolved.edit?.changeAnnotations).toBeUndefined();
    expect((resolved.edit!.documentChanges![0] as TextDocumentEdit).edits.every((e) => (e as AnnotatedTextEdit).annotationId === undefined)).toBe(true);
  });

  it('sends a client that declares annotations but no versioned document changes the plain `changes` form, applied at once', async () => {
    // Only a TextDocumentEdit's edits can carry an annotation.
    const unversioned: ClientCapabilities = { ...FULL_CAPABILITIES, workspace: { applyEdit: true, workspaceEdit: { changeAnnotationSupport: {} } } };
    const old = await start('basic', unversioned, 'always');
    let sent: ApplyWorkspaceEditParams | undefined;
    old.onApplyEdit = (params) => {
      sent = params;
      return { applied: true };
    };
    const result = await documentParseConfig(old);
    expect(result).toMatchObject({ applied: true, outcome: 'applied' });
    expect(sent!.edit.changeAnnotations).toBeUndefined();
    expect(Object.keys(sent!.edit.changes ?? {})).toEqual([old.uri('src/config.ts')]);
  });

  it('records an edit the user discards in the preview as discarded, with no warning, and leaves the text alone; the next one accepted is applied', async () => {
    const editor = await start('basic', PREVIEW_CAPABILITIES, 'always');
    const doc = await editor.open('src/config.ts');
    const before = doc.text;
    // The user presses Discard: the client answers not applied, with no reason.
    editor.onApplyEdit = () => ({ applied: false });
    const discarded = await documentParseConfig(editor);
    expect(discarded).toMatchObject({ applied: false, outcome: 'discarded' });
    expect(editor.buffer(doc.uri).text).toBe(before);
    expect(editor.messages.filter((m) => m.type <= 2)).toEqual([]);
    const trace = await editor.request<TraceResult>('assistant/trace', { id: discarded.interactionId });
    expect(trace.interactions[0]!.responses[0]).toMatchObject({ used: false, outcome: 'discarded', outcomeReason: 'Discarded in the preview; nothing was changed.' });
    expect(trace.interactions[0]!.responses[0]!.insertedAt).toBeUndefined();

    // A client that fails to apply it says why: that stays a failure.
    editor.onApplyEdit = () => ({ applied: false, failureReason: 'the file is read-only' });
    const failed = await documentParseConfig(editor);
    expect(failed).toMatchObject({ applied: false, outcome: 'rejected-by-client' });
    expect(editor.messages.at(-1)).toMatchObject({ type: 2, message: 'The editor did not apply the edit: the file is read-only.' });

    editor.onApplyEdit = (params) => editor.applyLocally(params);
    const accepted = await documentParseConfig(editor);
    expect(accepted).toMatchObject({ applied: true, outcome: 'applied' });
    expect(editor.buffer(doc.uri).text).toMatch(/\*\/\n\/\/ @assistant [^\n]*\nexport function parseConfig/);
    const used = await editor.request<TraceResult>('assistant/trace', { id: accepted.interactionId });
    expect(used.interactions[0]!.responses[0]).toMatchObject({ used: true, outcome: 'applied' });
    // Nothing was written to the project's files: the edit is in the editor's buffer only.
    expect(fs.readFileSync(path.join(editor.root, 'src/config.ts'), 'utf8')).toBe(before);
  });

  it('previews assistant/apply of an asked answer, and reports a discard as such', async () => {
    const editor = await start('basic', PREVIEW_CAPABILITIES, 'always');
    const doc = await editor.open('src/config.ts');
    const asked = await editor.request<AskResult>('assistant/ask', { text: 'write documentation for the load method', textDocument: { uri: doc.uri } });
    const response = asked.responses.find((r) => r.edit)!;
    editor.onApplyEdit = () => ({ applied: false });
    const result = await editor.request<ApplyResult>('assistant/apply', { interactionId: asked.interactionId, responseId: response.id });
    expect(result).toEqual({ applied: false, outcome: 'discarded', message: 'Discarded in the preview; nothing was changed.' });
    expect(previewAnnotation(editor.applied[0]!)).toEqual({ label: 'Assistant: document ConfigStore.load', description: 'by doc-offline (rule)', needsConfirmation: true });
    expect(editor.messages.filter((m) => m.type <= 2)).toEqual([]);
  });

  it('answers a client that errors on workspace/applyEdit with a failure, not an exception', async () => {
    const editor = await start('basic', PREVIEW_CAPABILITIES, 'never');
    // Eglot's answer when its own y-or-n-p is declined.
    editor.connection.onRequest('workspace/applyEdit', () => {
      throw new ResponseError(-32603, 'User cancelled server edit');
    });
    const result = await documentParseConfig(editor);
    expect(result).toMatchObject({ applied: false, outcome: 'rejected-by-client', message: 'The editor did not apply the edit: User cancelled server edit.' });
  });
});
