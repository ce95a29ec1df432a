// The doc scenario's metrics: syntax correctness of the edited file, and format correctness of the inserted doc comment (placed on the target, every parameter, the return, a description, the code unchanged).
import { ts } from 'ts-morph';
import type { DeclarationKind, DeclarationTarget } from '../repo/declarations.js';
import { listDeclarations } from '../repo/declarations.js';
import { parseJsDoc } from '../edits/jsdoc.js';
import { changedSpan } from '../edits/textEdits.js';
import type { JsDocTag } from '../edits/jsdoc.js';
import { locateDeclaration } from '../agents/offline/declarationLocator.js';
import type { FunctionLike } from '../agents/offline/declarationLocator.js';

/** The syntax errors of a file's text (the parser's own, no type checking), as messages. */
export function syntaxErrors(fileName: string, text: string): string[] {
  const output = ts.transpileModule(text, { fileName, reportDiagnostics: true, compilerOptions: { jsx: ts.JsxEmit.Preserve, allowJs: true, noEmitHelpers: true } });
  return (output.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error && d.file !== undefined).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

/** One parameter as documentation must name it. */
export interface ParameterFact {
  /** The identifier, for a plain parameter; undefined for a destructured one. */
  name?: string;
  rest: boolean;
}

/** What a complete doc comment of a function must cover. */
export interface SignatureFacts {
  parameters: ParameterFact[];
  /** Whether `@returns` is required: the function returns something other than void, undefined, null or never (or a promise of those). */
  returnsValue: boolean;
  /** A generator: `@yields` stands in for `@returns`. */
  generator: boolean;
}

/**
 * The signature facts of the declaration `target` in `source`, with the checker when one is given (return types
 * inferred) and from the syntax otherwise. Undefined when the declaration is not a function-like one.
 */
export function signatureFacts(source: ts.SourceFile, target: DeclarationTarget, checker: ts.TypeChecker | undefined): SignatureFacts | undefined {
  const located = locateDeclaration(source, target);
  if (!located || located.kind === 'class' || located.kind === 'interface') return undefined;
  const fn = located.fn;
  const parameters = fn.parameters
    .filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'))
    .map((p) => ({ ...(ts.isIdentifier(p.name) ? { name: p.name.text } : {}), rest: p.dotDotDotToken !== undefined }));
  const generator = (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn) || ts.isFunctionExpression(fn)) && fn.asteriskToken !== undefined;
  if (located.kind === 'constructor' || located.kind === 'setter') return { parameters, returnsValue: false, generator };
  return { parameters, returnsValue: returnsValue(fn, checker), generator };
}

function returnsValue(fn: FunctionLike, checker: ts.TypeChecker | undefined): boolean {
  if (checker) {
    try {
      const signature = checker.getSignatureFromDeclaration(fn);
      if (signature) return !isNothingType(checker, checker.getReturnTypeOfSignature(signature));
    } catch {
      // Fall back to the syntax.
    }
  }
  if (fn.type) return !/^(void|undefined|never|null|Promise<\s*(void|undefined|never|null)\s*>)$/.test(fn.type.getText().replace(/\s+/g, ' ').trim());
  if (!fn.body) return false;
  if (!ts.isBlock(fn.body)) return true;
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isReturnStatement(node) && node.expression) found = true;
    else ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn.body, visit);
  return found;
}

const NOTHING = ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never | ts.TypeFlags.Null;

function isNothingType(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.flags & NOTHING) return true;
  if (type.isUnion()) return type.types.every((t) => isNothingType(checker, t));
  const symbol = type.getSymbol();
  if (symbol?.getName() === 'Promise') {
    const [inner] = checker.getTypeArguments(type as ts.TypeReference);
    return inner !== undefined && isNothingType(checker, inner);
  }
  return false;
}

/** The verdict on one inserted doc comment. */
export interface DocFormatResult {
  /** The comment sits on the target and nothing but the comment was added. */
  placed: boolean;
  /** Every check passed. */
  correct: boolean;
  /** What is wrong, one short sentence each. */
  problems: string[];
  /** The comment found, when one was. */
  comment?: string;
}

/** The case the comment was asked for: the text without a doc comment on the target, and the target in it. */
export interface DocFormatInput {
  fileName: string;
  before: string;
  after: string;
  target: { kind: DeclarationKind; simpleName: string; start: number };
  facts: SignatureFacts | undefined;
}

/**
 * Format correctness as the Copilot harness defines it for doc: the comment is inserted where documentation of the
 * target goes, the code is unchanged (removing the comment gives the original text back), and it documents the
 * target completely: a description, `@param` for every parameter (a destructured one under any name, or through its
 * `name.property` tags, as the product writes them), and `@returns` unless the function returns nothing.
 */
export function checkDocFormat(input: DocFormatInput): DocFormatResult {
  const { before, after } = input;
  const { start: prefix, beforeEnd, afterEnd } = changedSpan(before, after);
  const removed = before.slice(prefix, beforeEnd);
  const inserted = after.slice(prefix, afterEnd);
  if (removed !== '') return { placed: false, correct: false, problems: ['the code was changed, not only documented'] };
  if (inserted === '') return { placed: false, correct: false, problems: ['nothing was inserted'] };
  // The target moved by what was inserted before it.
  const shift = prefix <= input.target.start ? inserted.length : 0;
  const found = listDeclarations(input.fileName, after).find((d) => d.kind === input.target.kind && d.simpleName === input.target.simpleName && d.start === input.target.start + shift);
  if (!found) return { placed: false, correct: false, problems: [`the documented declaration ${input.target.simpleName} is no longer found`] };
  const doc = found.existingDoc;
  if (!doc) return { placed: false, correct: false, problems: [`no doc comment is attached to ${input.target.simpleName}`] };
  if (doc.start < prefix || doc.end > prefix + inserted.length || inserted.trim() !== doc.text) {
    return { placed: false, correct: false, problems: ['more than a doc comment on the target was inserted'], comment: doc.text };
  }
  const problems = input.facts ? coverageProblems(doc.text, input.facts) : [];
  return { placed: true, correct: problems.length === 0, problems, comment: doc.text };
}

const PARAM_TAGS = new Set(['param', 'arg', 'argument']);

/** What a doc comment fails to cover of a signature. */
export function coverageProblems(comment: string, facts: SignatureFacts): string[] {
  const block = parseJsDoc(comment);
  const problems: string[] = [];
  const describedBy = (tag: string): boolean => block.tags.some((t) => t.tag === tag && /\p{L}/u.test(t.text));
  if (!/\p{L}/u.test(block.description) && !describedBy('description') && !describedBy('summary')) problems.push('no description');

  const paramTags = block.tags.filter((t) => PARAM_TAGS.has(t.tag) && t.name);
  const nameOf = (tag: JsDocTag): string => (tag.name ?? '').replace(/^\.\.\./, '');
  const top = paramTags.filter((t) => !nameOf(t).includes('.'));
  const dotted = paramTags.filter((t) => nameOf(t).includes('.'));
  const identifiers = new Set(facts.parameters.flatMap((p) => (p.name ? [p.name] : [])));
  const roots = new Set<string>();
  for (const parameter of facts.parameters) {
    if (!parameter.name) continue;
    roots.add(parameter.name);
    const tag = top.find((t) => nameOf(t) === parameter.name);
    if (!tag) problems.push(`no @param for ${parameter.name}`);
    else if (!/\p{L}/u.test(tag.text)) problems.push(`the @param for ${parameter.name} says nothing`);
  }
  // Destructured parameters take the remaining top-level names in order, or the root of their `name.property` tags.
  const unmatched = top.filter((t) => !identifiers.has(nameOf(t)));
  let next = 0;
  facts.parameters.forEach((parameter, position) => {
    if (parameter.name) return;
    const tag = unmatched[next];
    if (tag) {
      next++;
      roots.add(nameOf(tag));
      if (!/\p{L}/u.test(tag.text) && !dotted.some((d) => nameOf(d).startsWith(`${nameOf(tag)}.`))) problems.push(`the @param for the destructured parameter ${nameOf(tag)} says nothing`);
      return;
    }
    const root = dotted.map((d) => nameOf(d).split('.')[0] as string).find((r) => !roots.has(r));
    if (root) roots.add(root);
    else problems.push(`no @param for the destructured parameter at position ${position + 1}`);
  });
  for (const extra of unmatched.slice(next)) problems.push(`@param ${nameOf(extra)} names no parameter`);
  for (const tag of dotted) {
    const root = nameOf(tag).split('.')[0] as string;
    if (!roots.has(root)) problems.push(`@param ${nameOf(tag)} names no parameter`);
  }

  if (facts.returnsValue) {
    const returns = block.tags.filter((t) => t.tag === 'returns' || t.tag === 'return' || (facts.generator && (t.tag === 'yields' || t.tag === 'yield')));
    if (returns.length === 0) problems.push('no @returns');
    else if (!returns.some((t) => /\p{L}/u.test(t.text) || t.type !== undefined)) problems.push('the @returns says nothing');
  }
  return problems;
}

/** Whether the declaration may take a doc comment where the product puts it: alone on its first line. */
export function startsItsLine(text: string, target: DeclarationTarget): boolean {
  return text.slice(target.lineStart, target.start).trim() === '';
}
