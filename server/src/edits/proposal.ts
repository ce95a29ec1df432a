// A proposal: edits over one or more documents plus new files, each computed on a known text, as one workspace edit.
import type { WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { DocumentEditPlan } from './textEdits.js';
import { offsetsToRange, lineStarts } from './textEdits.js';

/** A file the proposal creates, with its whole content. */
export interface FileCreation {
  uri: string;
  text: string;
}

export interface Proposal {
  documents: DocumentEditPlan[];
  creates: FileCreation[];
}

/** A proposal that edits one document. */
export function singleDocument(plan: DocumentEditPlan): Proposal {
  return { documents: [plan], creates: [] };
}

/**
 * New files come first as `CreateFile` (failing if the file exists, so nothing is overwritten) followed by the
 * edit that fills them; then one versioned `TextDocumentEdit` per edited document.
 */
export function proposalToWorkspaceEdit(proposal: Proposal): WorkspaceEdit {
  const documentChanges: NonNullable<WorkspaceEdit['documentChanges']> = [];
  for (const create of proposal.creates) {
    documentChanges.push({ kind: 'create', uri: create.uri, options: { overwrite: false, ignoreIfExists: false } });
    documentChanges.push({ textDocument: { uri: create.uri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: create.text }] });
  }
  for (const plan of proposal.documents) {
    const starts = lineStarts(plan.baseText);
    documentChanges.push({
      textDocument: { uri: plan.uri, version: plan.version },
      edits: plan.edits.map((e) => ({ range: offsetsToRange(plan.baseText, e.start, e.end, starts), newText: e.newText })),
    });
  }
  return { documentChanges };
}

/** The URIs a proposal touches, for messages and confinement checks. */
export function touchedUris(proposal: Proposal): string[] {
  return [...proposal.creates.map((c) => c.uri), ...proposal.documents.map((d) => d.uri)];
}
