// The Rename task: offered on the names of functions, methods, classes and properties; its answer is a rename of every reference, computed by the agent.
import { ts } from 'ts-morph';
import { declarationsTouching, withSyntaxTree } from '../repo/declarations.js';
import { describeRename, renameAnchor } from '../repo/renameSymbol.js';
import type { Proposal } from '../edits/proposal.js';
import { declarationTarget } from './documentTask.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';

/** A name a rename can start from, found by syntax alone. */
interface RenameableName {
  target: TaskTarget;
  simpleName: string;
  nameStart: number;
  nameEnd: number;
}

const NAME = /^#?[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$\u200c\u200d]*$/u;

/** The last document's names; process-wide, since it answers only for the very text it was read from. */
let cache: { fileName: string; text: string; names: RenameableName[] } | undefined;

/**
 * Functions, methods, classes, interfaces, accessors and properties of a document, with their name spans. Targets
 * without a `declaration` (properties, uses) are the name itself: `[start, end)` is the identifier.
 */
export function renameableNames(fileName: string, text: string): RenameableName[] {
  if (cache && cache.fileName === fileName && cache.text === text) {
    // The caller's string from now on: an equal copy is compared character by character, the same string is not.
    cache.text = text;
    return cache.names;
  }
  const names = renameableNamesTouching(fileName, text, 0, text.length);
  cache = { fileName, text, names };
  return names;
}

/** The renameable names whose declarations reach into `[from, to]`, by name position; only those nodes are walked. */
function renameableNamesTouching(fileName: string, text: string, from: number, to: number): RenameableName[] {
  const names: RenameableName[] = [];
  for (const declaration of declarationsTouching(fileName, text, from, to)) {
    if (declaration.kind === 'constructor' || !NAME.test(declaration.simpleName)) continue;
    names.push({ target: declarationTarget(declaration), simpleName: declaration.simpleName, nameStart: declaration.nameStart, nameEnd: declaration.nameEnd });
  }
  withSyntaxTree(fileName, text, (source) => {
    const visit = (node: ts.Node, container: string | undefined): void => {
      const isProperty = (ts.isPropertyDeclaration(node) && !(node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)))) || ts.isPropertySignature(node);
      if (isProperty && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))) {
        const nameStart = node.name.getStart(source);
        const simpleName = node.name.text;
        names.push({ target: { name: container ? `${container}.${simpleName}` : simpleName, start: nameStart, end: node.name.getEnd() }, simpleName, nameStart, nameEnd: node.name.getEnd() });
      }
      const next = (ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) && node.name ? node.name.text : container;
      ts.forEachChild(node, (child) => {
        if (child.pos <= to && child.end >= from) visit(child, next);
      });
    };
    ts.forEachChild(source, (child) => {
      if (child.pos <= to && child.end >= from) visit(child, undefined);
    });
  });
  return names.sort((a, b) => a.nameStart - b.nameStart);
}

function lineBounds(text: string, offset: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const newline = text.indexOf('\n', offset);
  return { start, end: newline < 0 ? text.length : newline };
}

/** The declaration whose name is at the range, or on the line the range lies on (the name's line). */
export function renameableAt(document: DocumentSnapshot, start: number, end: number): RenameableName | undefined {
  const line = lineBounds(document.text, start);
  const fileName = syntaxFileName(document);
  // Names are on one line: the ones that can answer are on the range's first line. In a file being edited only that
  // line's nodes are walked; a settled text lists its names once.
  const edited = withSyntaxTree(fileName, document.text, (_source, isEdited) => isEdited);
  const names = edited ? renameableNamesTouching(fileName, document.text, line.start, line.end) : renameableNames(fileName, document.text);
  // The names are in the order they start in, and a name is on one line: those of the line are read, found by halving.
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((names[middle] as RenameableName).nameStart < line.start) low = middle + 1;
    else high = middle;
  }
  let onName: RenameableName | undefined;
  let firstOnLine: RenameableName | undefined;
  let lastOnLineBefore: RenameableName | undefined;
  for (let i = low; i < names.length && (names[i] as RenameableName).nameStart <= line.end; i++) {
    const name = names[i] as RenameableName;
    if (name.nameStart <= start && end <= name.nameEnd) onName = name;
    if (name.nameEnd <= line.end) {
      firstOnLine ??= name;
      if (name.nameStart <= start) lastOnLineBefore = name;
    }
  }
  if (onName) return onName;
  if (end > line.end) return undefined;
  return lastOnLineBefore ?? firstOnLine;
}

/** The identifier at a place, by syntax: a rename may start from any use of a name, not only its declaration. */
function identifierTarget(document: DocumentSnapshot, start: number, end: number): RenameableName | undefined {
  return withSyntaxTree(syntaxFileName(document), document.text, (source): RenameableName | undefined => {
    let node: ts.Node = source;
    for (;;) {
      const child = node.getChildren(source).find((c) => c.getStart(source) <= start && start < c.getEnd());
      if (!child) break;
      node = child;
    }
    if (!(ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) || end > node.getEnd()) return undefined;
    const nameStart = node.getStart(source);
    return { target: { name: node.text, start: nameStart, end: node.getEnd() }, simpleName: node.text, nameStart, nameEnd: node.getEnd() };
  });
}

/** Where `name` is declared in the document (nearest `near` first), else where it is first used. */
function named(document: DocumentSnapshot, name: string, near: number): RenameableName | undefined {
  const declared = renameableNames(syntaxFileName(document), document.text)
    .filter((n) => n.simpleName === name)
    .sort((a, b) => Math.abs(a.nameStart - near) - Math.abs(b.nameStart - near))[0];
  if (declared) return declared;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}$_#])${name.replace(/[$]/g, '\\$')}(?![\\p{L}\\p{N}$_])`, 'gu');
  for (const match of document.text.matchAll(pattern)) {
    const found = identifierTarget(document, match.index, match.index + name.length);
    if (found && found.simpleName === name) return found;
  }
  return undefined;
}

const FILLER = new Set(['the', 'this', 'that', 'it', 'a', 'an', 'of', 'from', 'name', 'function', 'method', 'class', 'property', 'field', 'variable', 'constant', 'interface', 'type', 'symbol', 'identifier', 'parameter', 'argument', 'member', 'helper', 'everywhere']);
const VAGUE = new Set(['something', 'anything', 'better', 'clearer', 'more', 'a', 'an', 'the', 'another', 'whatever', 'what', 'match']);
/** Words that may follow the new name without being part of a description ("… to clampValues everywhere"). */
const TRAILER = /^\s*(?:please|everywhere|in (?:all|every) (?:files?|places?)|across the (?:project|workspace|codebase|repo(?:sitory)?)|throughout(?: the (?:project|workspace|code(?:base)?))?)?\s*[.!]?\s*$/i;

function cleanName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const name = raw.replace(/^[`'"]+/, '').replace(/[`'".,;:!?)]+$/, '').replace(/\(\)$/, '');
  return name === '' || VAGUE.has(name.toLowerCase()) ? undefined : name;
}

/**
 * The old and new names a free-text rename request gives: "rename clampAll to clampValues", "rename this to X",
 * "call it X", "call this method loadAll instead of doIt". A request that describes the name ("to something
 * clearer") gives no new name, so a model can suggest one.
 */
export function parseRenameRequest(text: string): { oldName?: string; newName?: string } {
  const trimmed = text.trim();
  const callIt = /\b(?:call|name)\s+(?:it|this|that)(?:\s+(?:function|method|class|property|field|variable|constant|interface|type|helper))?\s+([^\s]+)(?:\s+instead\s+of\s+([^\s]+))?(.*)$/i.exec(trimmed);
  if (callIt) {
    const newName = TRAILER.test(callIt[3] ?? '') || callIt[2] ? cleanName(callIt[1]) : undefined;
    const oldName = cleanName(callIt[2]);
    return { ...(oldName ? { oldName } : {}), ...(newName ? { newName } : {}) };
  }
  const renameTo = /\b(?:rename|change|call)\b(.*?)\s(?:to|into|as)\s+([^\s]+)(.*)$/i.exec(trimmed);
  if (!renameTo) return {};
  const newName = TRAILER.test(renameTo[3] ?? '') ? cleanName(renameTo[2]) : undefined;
  const middle = (renameTo[1] ?? '').split(/\s+/).map((w) => cleanName(w)).filter((w): w is string => w !== undefined && !FILLER.has(w.toLowerCase()) && NAME.test(w));
  const oldName = middle[middle.length - 1];
  return { ...(oldName ? { oldName } : {}), ...(newName ? { newName } : {}) };
}

/** The name a target renames, as the document spells it. */
function oldNameOf(document: DocumentSnapshot, target: TaskTarget): string {
  const anchor = renameAnchor(target);
  return document.text.slice(anchor.start, anchor.end);
}

/** Every edit replaces the old name and inserts the new one (within TypeScript's `old as new` or `old: new` additions). */
function onlyRenames(proposal: Proposal, oldName: string, newName: string): boolean {
  return proposal.creates.length === 0 && proposal.documents.every((plan) => plan.edits.every((edit) => plan.baseText.slice(edit.start, edit.end) === oldName && edit.newText.includes(newName)));
}

export const renameTask: TaskDefinition = {
  id: 'rename',

  offersAt({ document, start, end }): TaskOffer[] {
    const found = renameableAt(document, start, end);
    if (!found) return [];
    return [{ task: 'rename', title: `Assistant: Suggest a better name for ${found.target.name}`, kind: 'refactor.rewrite.assistant.rename', target: found.target, needsModel: true }];
  },

  askTarget(document, start, end, text) {
    const request = parseRenameRequest(text);
    // The name under the cursor (a declaration's, or any use), else the declaration on the cursor's line.
    const identifier = identifierTarget(document, start, end);
    let found = identifier ? (renameableNames(syntaxFileName(document), document.text).find((n) => n.nameStart === identifier.nameStart) ?? identifier) : renameableAt(document, start, end);
    // The name the text gives wins over a cursor that happens to be elsewhere.
    if (request.oldName && found?.simpleName !== request.oldName) found = named(document, request.oldName, start);
    if (!found) return undefined;
    return { target: found.target, ...(request.newName ? { parameters: { newName: request.newName } } : {}) };
  },

  convertAnswer(answer, { document, target }): TaskAnswer {
    // An agent that cannot rename says why in its text; that reason is what the user sees.
    if (!answer.proposal) return { ok: false, reason: answer.text.trim() || 'the agent proposed no rename' };
    const [first = '', ...rest] = answer.text.trim().split('\n');
    const newName = /^Rename\s+\S+\s+to\s+([^\s:]+)/.exec(first)?.[1];
    if (!newName) return { ok: false, reason: 'the answer does not say the new name' };
    const oldName = oldNameOf(document, target);
    if (!onlyRenames(answer.proposal, oldName, newName)) return { ok: false, reason: `the proposal changes more than the name ${oldName}` };
    return { ok: true, kind: 'edit', proposal: answer.proposal, text: [describeRename(oldName, newName, answer.proposal), ...rest].join('\n') };
  },
};
