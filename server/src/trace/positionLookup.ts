// Code to interaction: the interactions that produced the code at a position, from its annotation or the recorded insertions.
import type { Position } from 'vscode-languageserver-protocol';
import type { Interaction } from '../protocol.js';
import { parseAnnotations } from '../edits/annotation.js';
import { declarationAt } from '../repo/declarations.js';
import { lineStarts, positionToOffset } from '../edits/textEdits.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { TraceStore } from './traceStore.js';

/**
 * The annotation on the enclosing declaration is the primary link (it moves with the code);
 * recorded insertion ranges are the fallback for code that carries no annotation.
 */
export function interactionsAt(trace: TraceStore, document: DocumentSnapshot, position: Position): Interaction[] {
  const found = new Map<string, Interaction>();
  const starts = lineStarts(document.text);
  const offset = positionToOffset(document.text, position, starts);
  const lineStart = starts[Math.min(position.line, starts.length - 1)] ?? 0;
  const lineEnd = starts[position.line + 1] ?? document.text.length;
  const declaration = declarationAt(syntaxFileName(document), document.text, offset);
  const annotated = [
    ...(declaration?.existingDoc ? parseAnnotations(declaration.existingDoc.text) : []),
    ...(declaration ? parseAnnotations(leadingLineComments(document.text, declaration.lineStart)) : []),
    ...parseAnnotations(document.text.slice(lineStart, lineEnd)),
  ];
  for (const annotation of annotated) {
    const interaction = trace.get(annotation.interactionId);
    if (interaction) found.set(interaction.id, interaction);
  }
  for (const interaction of trace.findByInsertion(document.uri, position.line)) found.set(interaction.id, interaction);
  return [...found.values()].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1));
}

/** The `//` comment lines directly above a line. */
function leadingLineComments(text: string, lineStart: number): string {
  const lines: string[] = [];
  let end = lineStart;
  while (end > 0) {
    const prevEnd = end - 1;
    let start = prevEnd;
    while (start > 0 && text[start - 1] !== '\n') start--;
    const line = text.slice(start, prevEnd);
    if (!/^\s*\/\//.test(line)) break;
    lines.unshift(line);
    end = start;
  }
  return lines.join('\n');
}
