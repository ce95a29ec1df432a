// A preview before an edit lands, in LSP terms: one change annotation with `needsConfirmation` on every change of the edit.
import type { AnnotatedTextEdit, ChangeAnnotation, ClientCapabilities, TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver/node';
import type { EditPreview } from '../editorPort.js';

/** The one annotation id of a previewed edit: the whole edit is accepted or discarded together. */
export const PREVIEW_ANNOTATION_ID = 'assistant.preview';

/**
 * Whether the client shows change annotations: it declares `changeAnnotationSupport`, and `documentChanges`, the only
 * form whose text edits can carry an annotation.
 */
export function previewsEdits(capabilities: ClientCapabilities): boolean {
  const workspaceEdit = capabilities.workspace?.workspaceEdit;
  return workspaceEdit?.changeAnnotationSupport !== undefined && workspaceEdit.changeAnnotationSupport !== null && workspaceEdit.documentChanges === true;
}

/** The edit with every text edit and file creation annotated as needing the user's confirmation. */
export function annotateForPreview(edit: WorkspaceEdit, preview: EditPreview): WorkspaceEdit {
  const annotation: ChangeAnnotation = { label: preview.label, description: preview.description, needsConfirmation: true };
  const documentChanges = (edit.documentChanges ?? []).map((change) => {
    if (!('textDocument' in change)) return { ...change, annotationId: PREVIEW_ANNOTATION_ID };
    const annotated: TextDocumentEdit = { ...change, edits: change.edits.map((e) => ('newText' in e ? ({ range: e.range, newText: e.newText, annotationId: PREVIEW_ANNOTATION_ID } satisfies AnnotatedTextEdit) : { ...e, annotationId: PREVIEW_ANNOTATION_ID })) };
    return annotated;
  });
  return { documentChanges, changeAnnotations: { [PREVIEW_ANNOTATION_ID]: annotation } };
}
