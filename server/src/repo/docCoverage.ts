// What a complete doc comment of a function covers, and what a comment misses of it: the eval's format metric and the Document offer's "complete" both ask.
import { ts } from 'ts-morph';
import { locateDeclaration } from '../agents/offline/declarationLocator.js';
import type { FunctionLike } from '../agents/offline/declarationLocator.js';
import { parseJsDoc } from '../edits/jsdoc.js';
import type { JsDocTag } from '../edits/jsdoc.js';
import type { DeclarationTarget } from './declarations.js';
import { documentedOverloads } from './docPlacement.js';

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
  // With overloads, the comment on the first speaks for those without their own (`docPlacement.ts`).
  const overloads = documentedOverloads(located.node, source);
  const signatures: FunctionLike[] = overloads.length > 0 ? overloads : [fn];
  const parameters: ParameterFact[] = [];
  signatures.forEach((signature, index) => {
    for (const p of signature.parameters) {
      if (ts.isIdentifier(p.name) && p.name.text === 'this') continue;
      const name = ts.isIdentifier(p.name) ? p.name.text : undefined;
      // A destructured parameter has no name to match across signatures: the first signature's stand for them.
      if (index > 0 && (name === undefined || parameters.some((known) => known.name === name))) continue;
      parameters.push({ ...(name !== undefined ? { name } : {}), rest: p.dotDotDotToken !== undefined });
    }
  });
  const generator = isGenerator(fn);
  if (located.kind === 'constructor' || located.kind === 'setter') return { parameters, returnsValue: false, generator };
  return { parameters, returnsValue: signatures.some((signature) => returnsValue(signature, checker)), generator };
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

/**
 * Whether the function declared at `target` can throw: its own code (parameters' defaults included, nested functions
 * and classes not, as they do not run) has a `throw`, or runs code that might: a call, a `new`, an `await`, a
 * `for…of`, a `yield*`, a tagged template. Undefined when it is no function with a body (an overload: unknown).
 */
export function mayThrow(source: ts.SourceFile, target: DeclarationTarget): boolean | undefined {
  const located = locateDeclaration(source, target);
  if (!located || located.kind === 'class' || located.kind === 'interface' || !located.fn.body) return undefined;
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (
      ts.isThrowStatement(node) ||
      ts.isCallExpression(node) ||
      ts.isNewExpression(node) ||
      ts.isAwaitExpression(node) ||
      ts.isForOfStatement(node) ||
      ts.isTaggedTemplateExpression(node) ||
      (ts.isYieldExpression(node) && node.asteriskToken !== undefined)
    ) {
      found = true;
      return;
    }
    ts.forEachChild(node, visit);
  };
  for (const parameter of located.fn.parameters) if (parameter.initializer) visit(parameter.initializer);
  ts.forEachChild(located.fn.body, visit);
  return found;
}

/**
 * Whether the declaration at `target` gives its caller nothing, by syntax: a constructor or setter, or a function
 * declared to return void (or never, undefined) or whose body returns no value. An async function or a generator
 * gives a promise or an iterator whatever its body returns: false. Undefined when it is no function.
 */
export function returnsNothing(source: ts.SourceFile, target: DeclarationTarget): boolean | undefined {
  const located = locateDeclaration(source, target);
  if (!located || located.kind === 'class' || located.kind === 'interface') return undefined;
  if (located.kind === 'constructor' || located.kind === 'setter') return true;
  const fn = located.fn;
  const isAsync = ts.canHaveModifiers(fn) && (ts.getModifiers(fn) ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
  const generator = isGenerator(fn);
  if (isAsync || generator || (!fn.body && !fn.type)) return false;
  return !returnsValue(fn, undefined);
}

/** Whether a function is a generator (`function*`, `*method()`): its caller gets an iterator. */
function isGenerator(fn: FunctionLike): boolean {
  return (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn) || ts.isFunctionExpression(fn)) && fn.asteriskToken !== undefined;
}

/** Whether a doc comment tag says what is thrown (`@throws` and its synonyms). */
export function isThrowsTag(tag: Pick<JsDocTag, 'tag'>): boolean {
  return tag.tag === 'throws' || tag.tag === 'throw' || tag.tag === 'exception';
}

const PARAM_TAGS = new Set(['param', 'arg', 'argument']);

/** What a doc comment fails to cover of a signature. */
export function coverageProblems(comment: string, facts: SignatureFacts, options: { strayTags?: boolean } = {}): string[] {
  const block = parseJsDoc(comment);
  const problems: string[] = [];
  const describedBy = (tag: string): boolean => block.tags.some((t) => t.tag === tag && /\p{L}/u.test(t.text));
  if (!/\p{L}/u.test(block.description) && !describedBy('description') && !describedBy('summary')) problems.push('no description');

  const matching = matchParamTags(block.tags, facts);
  for (const parameter of facts.parameters) {
    if (!parameter.name) continue;
    const tag = matching.byName.get(parameter.name);
    if (!tag) problems.push(`no @param for ${parameter.name}`);
    else if (!/\p{L}/u.test(tag.text)) problems.push(`the @param for ${parameter.name} says nothing`);
  }
  for (const problem of matching.destructuredProblems) problems.push(problem);
  if (options.strayTags !== false) problems.push(...matching.stray.map((tag) => `@param ${paramName(tag)} names no parameter`));

  if (facts.returnsValue) {
    const returns = block.tags.filter((t) => t.tag === 'returns' || t.tag === 'return' || (facts.generator && (t.tag === 'yields' || t.tag === 'yield')));
    if (returns.length === 0) problems.push('no @returns');
    else if (!returns.some((t) => /\p{L}/u.test(t.text) || t.type !== undefined)) problems.push('the @returns says nothing');
  }
  return problems;
}

/** The `@param` tags of a parsed doc comment that name no parameter of the signature (a model's invention, or a stale tag). */
export function strayParamTags(tags: readonly JsDocTag[], facts: SignatureFacts): JsDocTag[] {
  return matchParamTags(tags, facts).stray;
}

function paramName(tag: JsDocTag): string {
  return (tag.name ?? '').replace(/^\.\.\./, '');
}

interface ParamTagMatching {
  /** The top-level tag of each named parameter. */
  byName: Map<string, JsDocTag>;
  /** Destructured parameters no tag stands for, or whose tag says nothing. */
  destructuredProblems: string[];
  /** Tags left over after every parameter took its own. */
  stray: JsDocTag[];
}

/** Pairs `@param` tags with the signature's parameters: by name, and for destructured ones by position or a `root.property` tag. */
function matchParamTags(tags: readonly JsDocTag[], facts: SignatureFacts): ParamTagMatching {
  const paramTags = tags.filter((t) => PARAM_TAGS.has(t.tag) && t.name);
  const top = paramTags.filter((t) => !paramName(t).includes('.'));
  const dotted = paramTags.filter((t) => paramName(t).includes('.'));
  const identifiers = new Set(facts.parameters.flatMap((p) => (p.name ? [p.name] : [])));
  const byName = new Map<string, JsDocTag>();
  const roots = new Set<string>();
  for (const parameter of facts.parameters) {
    if (!parameter.name) continue;
    roots.add(parameter.name);
    const tag = top.find((t) => paramName(t) === parameter.name);
    if (tag) byName.set(parameter.name, tag);
  }
  // Destructured parameters take the remaining top-level names in order, or the root of their `name.property` tags.
  const unmatched = top.filter((t) => !identifiers.has(paramName(t)));
  const destructuredProblems: string[] = [];
  let next = 0;
  facts.parameters.forEach((parameter, position) => {
    if (parameter.name) return;
    const tag = unmatched[next];
    if (tag) {
      next++;
      roots.add(paramName(tag));
      if (!/\p{L}/u.test(tag.text) && !dotted.some((d) => paramName(d).startsWith(`${paramName(tag)}.`))) destructuredProblems.push(`the @param for the destructured parameter ${paramName(tag)} says nothing`);
      return;
    }
    const root = dotted.map((d) => paramName(d).split('.')[0] as string).find((r) => !roots.has(r));
    if (root) roots.add(root);
    else destructuredProblems.push(`no @param for the destructured parameter at position ${position + 1}`);
  });
  const stray = [...unmatched.slice(next), ...dotted.filter((tag) => !roots.has(paramName(tag).split('.')[0] as string))];
  return { byName, destructuredProblems, stray };
}

/**
 * Whether a doc comment leaves nothing to complete: a description, every parameter described, and the return where
 * the function returns something (`facts`, undefined for a class: its description alone). Tags that name no
 * parameter any more are a fault of their own, not a gap to fill.
 */
export function documentsCompletely(comment: string, facts: SignatureFacts | undefined): boolean {
  return coverageProblems(comment, facts ?? { parameters: [], returnsValue: false, generator: false }, { strayTags: false }).length === 0;
}
