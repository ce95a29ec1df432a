// What the code at the cursor tells a free-text request: whether the cursor is in code, and which tasks the editor offers there.
import type { TaskId } from '../protocol.js';
import type { CursorContext } from '../agents/intentClassifier.js';
import { declarationAt } from '../repo/declarations.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import { taskDefinition } from './catalogue.js';
import type { DiagnosticInfo } from './task.js';

/** The tasks whose offers at a place say what a terse request there asks for: an error, an empty body or TODO, an interface. */
const PLACE_TASKS: readonly TaskId[] = ['fix', 'generate', 'implement'];

/** The cursor's context for the classifier, by syntax and the given diagnostics; nothing here runs an agent. */
export function cursorContextAt(document: DocumentSnapshot, start: number, end: number, diagnostics: readonly DiagnosticInfo[]): CursorContext {
  const offers = PLACE_TASKS.filter((task) => (taskDefinition(task)?.offersAt({ document, start, end, diagnostics: [...diagnostics] }).length ?? 0) > 0);
  const inCode = offers.length > 0 || declarationAt(syntaxFileName(document), document.text, start, end) !== undefined;
  return { inCode, offers };
}
