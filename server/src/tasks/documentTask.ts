// The Document task: offered on functions, methods, classes and arrow functions; its answer becomes a doc comment and nothing else.
import type { DeclarationTarget } from '../repo/declarations.js';
import { declarationAt, KIND_LABEL, withSyntaxTree } from '../repo/declarations.js';
import { documentsCompletely, isThrowsTag, mayThrow, returnsNothing, signatureFacts, strayParamTags } from '../repo/docCoverage.js';
import { parseJsDoc, renderJsDoc } from '../edits/jsdoc.js';
import { extractDocComment } from '../edits/docCommentExtract.js';
import { sectionedDocBlock } from '../edits/sectionedDoc.js';
import { afterAnnotationLines, annotationComment, stripAnnotationLines } from '../edits/annotation.js';
import type { OffsetEdit } from '../edits/textEdits.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';
import { singleDocument } from '../edits/proposal.js';

/** The task target for a declaration. */
export function declarationTarget(declaration: DeclarationTarget): TaskTarget {
  return { name: declaration.name, start: declaration.start, end: declaration.end, declaration };
}

export const documentTask: TaskDefinition = {
  id: 'document',

  offersAt({ document, start, end }): TaskOffer[] {
    const fileName = syntaxFileName(document);
    const target = declarationAt(fileName, document.text, start, end);
    if (!target || target.kind === 'interface') return [];
    if (target.existingDoc && isComplete(fileName, document.text, target, target.existingDoc.text)) return [];
    const verb = target.existingDoc ? 'Complete the documentation of' : 'Document';
    return [{ task: 'document', title: `Assistant: ${verb} ${KIND_LABEL[target.kind]} ${target.name}`, kind: 'refactor.rewrite.assistant.document', target: declarationTarget(target) }];
  },

  // Asked in words, a complete comment is still the target: the agents say whether they have anything to add.
  askTarget(document, start, end) {
    const target = declarationAt(syntaxFileName(document), document.text, start, end);
    return target && target.kind !== 'interface' ? { target: declarationTarget(target) } : undefined;
  },

  convertAnswer(answer, { document, target: taskTarget }, annotation): TaskAnswer {
    const target = taskTarget.declaration;
    if (!target) return { ok: false, reason: 'there is no declaration to document here' };
    // A clean block is kept as its author wrote it; anything else is reduced to its doc comment. Markdown sections
    // ("**Parameters**:") a model writes, in a block or bare, become the tags they stand for.
    const found = bareDocBlock(answer.text) ?? extractDocComment(answer.text, target.simpleName);
    const extracted = (found === undefined ? undefined : sectionedDocBlock(found)) ?? found ?? sectionedDocBlock(answer.text);
    if (!extracted) return { ok: false, reason: 'the answer holds no documentation comment' };
    const block = withoutFalseTags(stripAnnotationLines(extracted), document, target);
    if (block === undefined) return { ok: false, reason: 'the answer only has tags the code contradicts (parameters it does not take, errors it cannot throw, a value it does not return)' };
    if (target.existingDoc && sameDoc(block, target.existingDoc.text, target.simpleName)) {
      return { ok: false, reason: 'the documentation is already complete' };
    }
    const indented = indentLines(block, target.indent);
    let edit: OffsetEdit;
    if (target.existingDoc) {
      // The existing comment starts after the indentation, so the first line keeps the editor's own.
      const replacement = indented.slice(target.indent.length);
      edit = { start: target.existingDoc.start, end: target.existingDoc.end, newText: replacement };
    } else {
      edit = { start: target.docLineStart, end: target.docLineStart, newText: `${indented}\n` };
    }
    if (!onlyCommentChanged(document.text, edit, target)) return { ok: false, reason: 'the answer would change code, not only the comment' };
    const edits = [edit];
    if (annotation) {
      // A line comment below the doc comment and the annotations already under it, not a tag inside it: it stays out
      // of hovers and generated documentation, and `//` directives above the code (`// @ts-expect-error`) stay on
      // the line they govern.
      const line = `${target.indent}${annotationComment(annotation)}\n`;
      const below = target.existingDoc ? document.text.indexOf('\n', target.existingDoc.end) + 1 || document.text.length : target.docLineStart;
      const at = afterAnnotationLines(document.text, below);
      if (at === edit.start && edit.end === edit.start) edit.newText += line;
      else edits.push({ start: at, end: at, newText: line });
    }
    return { ok: true, kind: 'edit', proposal: singleDocument({ uri: document.uri, version: document.version, baseText: document.text, edits }), text: block };
  },
};

/** A `@throws` text saying that nothing is thrown. */
const SAYS_NO_ERROR = /^(no(ne|thing)?\b|(it|this|the \w+) (does not|doesn't|never|will not|won't) throw|never throws|does not throw)/i;

/**
 * The block without the tags the code contradicts: `@param` tags that name no parameter of the declaration (a model
 * writes them for a function that takes none), `@throws` tags on a function that runs nothing that can throw, and
 * `@returns` on one that gives its caller nothing.
 * Tags the existing comment already had are the user's and stay. Undefined when nothing is left.
 */
function withoutFalseTags(block: string, document: DocumentSnapshot, target: DeclarationTarget): string | undefined {
  const facts = withSyntaxTree(syntaxFileName(document), document.text, (source) => ({ signature: signatureFacts(source, target, undefined), throws: mayThrow(source, target), nothing: returnsNothing(source, target) }));
  const parsed = parseJsDoc(block);
  const theirs = new Set(target.existingDoc ? parseJsDoc(target.existingDoc.text).tags.map((tag) => tag.raw) : []);
  const invented = [
    ...(facts.signature ? strayParamTags(parsed.tags, facts.signature) : []),
    ...(facts.throws === false ? parsed.tags.filter(isThrowsTag) : []),
    ...(facts.nothing === true ? parsed.tags.filter((tag) => tag.tag === 'returns' || tag.tag === 'return') : []),
    // "@throws No errors are thrown." documents an error that is not there.
    ...parsed.tags.filter((tag) => isThrowsTag(tag) && !tag.type && SAYS_NO_ERROR.test(tag.text)),
  ].filter((tag) => !theirs.has(tag.raw));
  if (invented.length === 0) return block;
  const kept = { description: parsed.description, tags: parsed.tags.filter((tag) => !invented.includes(tag)) };
  if (!/\p{L}/u.test(kept.description) && kept.tags.length === 0) return undefined;
  return renderJsDoc(kept);
}

/** Whether the declaration's doc comment already has all a completion would add (syntax only: this runs per code-action request). */
function isComplete(fileName: string, text: string, target: DeclarationTarget, comment: string): boolean {
  const facts = withSyntaxTree(fileName, text, (source) => signatureFacts(source, target, undefined));
  return documentsCompletely(comment, facts);
}

/** The answer itself when it is exactly one JSDoc block, with its `*` margin aligned; otherwise undefined. */
function bareDocBlock(answer: string): string | undefined {
  const trimmed = answer.trim();
  if (!trimmed.startsWith('/**') || !trimmed.endsWith('*/') || trimmed.indexOf('*/') !== trimmed.length - 2) return undefined;
  const [first, ...rest] = trimmed.split(/\r?\n/);
  return [first, ...rest.map((line) => {
    const bare = line.trimStart();
    return bare.startsWith('*') ? ` ${bare}` : ` * ${bare}`;
  })].join('\n');
}

/** Whether two doc comments say the same, ignoring layout and annotations. */
function sameDoc(a: string, b: string, name: string): boolean {
  const normal = (block: string): string => stripAnnotationLines(extractDocComment(stripAnnotationLines(block), name) ?? block).replace(/\s+/g, ' ').trim();
  return normal(a) === normal(b);
}

function indentLines(block: string, indent: string): string {
  return block
    .split('\n')
    .map((line) => indent + line)
    .join('\n');
}

/**
 * Removing the comment from the edited text must give back the original code exactly: the text without the edit's
 * range must be the text without the old comment's. Outside the span of both ranges the two are the same text, so only
 * that span is compared (no copy of the document).
 */
export function onlyCommentChanged(text: string, edit: OffsetEdit, target: DeclarationTarget): boolean {
  const old = target.existingDoc ?? { start: edit.start, end: edit.start };
  if (edit.end - edit.start !== old.end - old.start) return false;
  const from = Math.min(edit.start, old.start);
  const to = Math.max(edit.end, old.end);
  const without = (start: number, end: number): string => text.slice(from, start) + text.slice(end, to);
  if (without(edit.start, edit.end) !== without(old.start, old.end)) return false;
  const inserted = edit.newText.trim();
  return inserted.startsWith('/**') && inserted.endsWith('*/') && inserted.indexOf('*/') === inserted.length - 2;
}
