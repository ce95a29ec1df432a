// What the code at the cursor tells a free-text request: whether the cursor is in code, and which tasks the code there calls for.
import type { TaskId } from '../protocol.js';
import type { CursorContext } from '../agents/intentClassifier.js';
import { declarationAt } from '../repo/declarations.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import { taskDefinition } from './catalogue.js';
import type { DiagnosticInfo } from './task.js';

/** The tasks whose offers at a place say what a terse request there asks for: an error, an empty body or TODO, an interface. */
const PLACE_TASKS: readonly TaskId[] = ['fix', 'generate', 'implement'];

/** A TODO or FIXME comment: code its author has still to write. */
const TODO_COMMENT = /(?:\/\/|\/\*)\s*(?:TODO|FIXME)\b/;

/**
 * The cursor's context for the classifier, by syntax and the given diagnostics; nothing here runs an agent. Besides
 * the tasks offered at the cursor, a declaration whose code holds a TODO calls for generate anywhere in it: "write it"
 * on its placeholder `return 0;` asks for the code the TODO two lines up describes.
 */
export function cursorContextAt(document: DocumentSnapshot, start: number, end: number, diagnostics: readonly DiagnosticInfo[]): CursorContext {
  const offers = PLACE_TASKS.filter((task) => (taskDefinition(task)?.offersAt({ document, start, end, diagnostics: [...diagnostics] }).length ?? 0) > 0);
  const declaration = declarationAt(syntaxFileName(document), document.text, start, end);
  if (declaration && !offers.includes('generate') && TODO_COMMENT.test(document.text.slice(declaration.start, declaration.end))) offers.push('generate');
  return { inCode: offers.length > 0 || declaration !== undefined, offers };
}
