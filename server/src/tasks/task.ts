// The shape of a task in the catalogue: when it is offered, and how an agent's answer becomes an edit.
import type { TaskId } from '../protocol.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import type { Annotation } from '../edits/annotation.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';

/** An answer turned into edits on the document it was computed for, or the reason it cannot be. */
export type AnswerEdit = { ok: true; edits: OffsetEdit[]; text: string } | { ok: false; reason: string };

/** What a task offers at a place in a document: found by syntax alone, without a model. */
export interface TaskOffer {
  task: TaskId;
  title: string;
  /** LSP code action kind. */
  kind: string;
  target: DeclarationTarget;
}

export interface TaskDefinition {
  id: TaskId;
  /** The offers at a selection (offsets into `document.text`), syntax only and fast. */
  offersAt(document: DocumentSnapshot, start: number, end: number): TaskOffer[];
  /** The agent's answer as edits on `document`; `annotation` is absent when annotations are off. */
  answerToEdit(answer: string, document: DocumentSnapshot, target: DeclarationTarget, annotation: Annotation | undefined): AnswerEdit;
}
