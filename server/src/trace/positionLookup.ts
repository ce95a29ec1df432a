// Code to interaction: the interactions that produced the code at a position, from its annotations and from where their insertions are now.
import type { Position } from 'vscode-languageserver-protocol';
import type { Interaction } from '../protocol.js';
import { parseAnnotations } from '../edits/annotation.js';
import { declarationAt } from '../repo/declarations.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import { lineStarts, positionToOffset } from '../edits/textEdits.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { InsertionTracker } from './insertionTracker.js';
import type { TraceStore } from './traceStore.js';

/**
 * The annotations on the enclosing declaration (they move with the code, wherever it is copied), and the insertions
 * that lie, now, on the position's line or in the declaration's head (its doc comment and the comment lines above
 * it, up to where its first line starts): the code the assistant wrote there, kept or edited since, and what a
 * revert took away there. Newest first, each with its insertions where they are now.
 */
export function interactionsAt(trace: TraceStore, insertions: InsertionTracker, document: DocumentSnapshot, position: Position): Interaction[] {
  const found = new Map<string, Interaction>();
  const starts = lineStarts(document.text);
  const offset = positionToOffset(document.text, position, starts);
  const lineStart = starts[Math.min(position.line, starts.length - 1)] ?? 0;
  const lineEnd = starts[position.line + 1] ?? document.text.length;
  const declaration = declarationAt(syntaxFileName(document), document.text, offset);
  const head = declaration ? headOf(document.text, declaration) : undefined;
  const annotated = [...(head ? parseAnnotations(document.text.slice(head.start, head.end)) : []), ...parseAnnotations(document.text.slice(lineStart, lineEnd))];
  const ids = [...annotated.map((annotation) => annotation.interactionId), ...insertions.idsAt(document.uri, document.text, position.line, head)];
  for (const id of ids) {
    if (found.has(id)) continue;
    const interaction = trace.get(id);
    if (interaction) found.set(interaction.id, insertions.overlay(interaction));
  }
  return [...found.values()].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1));
}

/** A declaration's head: from its doc comment, or the `//` comment lines directly above it (annotations among them), to its line. */
function headOf(text: string, declaration: DeclarationTarget): { start: number; end: number } {
  let start = declaration.existingDoc ? text.lastIndexOf('\n', declaration.existingDoc.start - 1) + 1 : declaration.lineStart;
  while (start > 0) {
    const previous = text.lastIndexOf('\n', start - 2) + 1;
    if (!/^\s*\/\//.test(text.slice(previous, start - 1))) break;
    start = previous;
  }
  return { start, end: declaration.lineStart };
}
