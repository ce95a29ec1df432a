// The doc scenario's content metrics: how much a comment restates its signature, how close it comes to the repository's own comment, and which of its claims the code contradicts.
import { ts } from 'ts-morph';
import type { DeclarationTarget } from '../repo/declarations.js';
import { isThrowsTag, mayThrow } from '../repo/docCoverage.js';
import { parseJsDoc } from '../edits/jsdoc.js';
import type { JsDocTag } from '../edits/jsdoc.js';
import { locateDeclaration } from '../agents/offline/declarationLocator.js';
import type { FunctionLike } from '../agents/offline/declarationLocator.js';
import { splitIdentifier } from '../agents/offline/identifierProse.js';

// ---------------------------------------------------------------------------------------------
// Words

/** English function words: they carry no content in any sentence. */
const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does
  doing down during each either else etc even ever every few for from further had has have having here how however i if in into is it its itself
  just may might more most much must no nor not now of off on once one only or other our out over own same shall should since so some such than
  that the their them then there these they this those though through thus to too under until up upon us very via was we were what when where
  whether which while who whom whose why will with within without would yet you your`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words any documentation template uses whatever the code does: the verbs of generated summaries ("Gets the …",
 * "Computes the …", "Checks whether …", "Represents a …", "Describes the shape of …"), the nouns of generic tags
 * ("The value.", "The result."), type and tag vocabulary, and the verbs of generated `@param` lines ("Passed to …",
 * "Stored in …", "Its … is read"), whose content is what they name. A comment made only of these and of the
 * signature's own words says nothing the signature does not.
 */
const FILLER_WORDS = new Set(
  `return returns returned get gets compute computes computed check checks checked given specified provided supplied passed value values result
  results function functions method methods param parameter parameters argument arguments arg args callback object objects instance instances
  new create creates created make makes set sets handle handles run runs routine optional default defaults true false otherwise successful success
  called call calls representation type types number numbers string strings boolean booleans array arrays promise promises resolve resolves resolved
  void null undefined nothing current respective corresponding implement implements implementation convert converts used use uses event item items
  chaining chain either whatever certain thing things some something way perform performs performed given specific
  represent represents describe describes shape documented extending implementing constructed implemented extended
  read reads stored compared awaited iterated copied instantiated tested unchanged properties property elements keys place`
    .split(/\s+/)
    .filter(Boolean),
);

/** A light suffix-stripping stemmer: `parses`, `parsed`, `parsing` and `parse` meet at `pars`. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$/, '');
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** The words of a text, identifiers split into their parts (`prevData` → `prev`, `data`), lower-cased; numbers and single letters dropped. */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const token of text.match(/[\p{L}\p{N}_$#]+/gu) ?? []) {
    for (const part of splitIdentifier(token)) {
      const lower = part.toLowerCase();
      if (lower.length > 1 && /\p{L}/u.test(lower)) out.push(lower);
    }
  }
  return out;
}

/** The stemmed content words of a text, in order: its words minus stop words and documentation filler. */
export function contentWords(text: string): string[] {
  return wordsOf(text)
    .filter((word) => !STOP_WORDS.has(word) && !FILLER_WORDS.has(word))
    .map(stem)
    .filter((word) => !STOP_WORDS.has(word) && !FILLER_WORDS.has(word));
}

/** The stemmed words of a signature, which a comment restating it would only repeat. */
export function signatureVocabulary(texts: readonly string[]): Set<string> {
  return new Set(texts.flatMap((text) => wordsOf(text).map(stem)));
}

/** The content words of `text` that are not in the signature: what a line adds. */
export function addedWords(text: string, signature: ReadonlySet<string>): string[] {
  return [...new Set(contentWords(text).filter((word) => !signature.has(word)))];
}

// ---------------------------------------------------------------------------------------------
// Restatement

/** One line of a comment that can say something: the summary or a tag's text. */
export interface DocUnit {
  kind: 'summary' | 'param' | 'returns' | 'throws' | 'other';
  text: string;
  /** The content words it adds beyond the signature; empty when it restates. */
  added: string[];
}

export interface Restatement {
  units: DocUnit[];
  /** No unit of the comment adds a content word beyond the signature; null when it has no prose at all (`@internal`). */
  restates: boolean | null;
  /** The summary adds nothing; null without a summary. */
  summaryRestates: boolean | null;
  /** The share of `@param` lines with text that add nothing; null without any. */
  paramRestating: number | null;
  /** The share of `@param` tags with no text at all (they list the parameter and claim nothing); null without any. */
  paramBare: number | null;
  /** The `@returns` adds nothing; null without one. */
  returnsRestates: boolean | null;
}

const PARAM_TAGS = new Set(['param', 'arg', 'argument']);

/**
 * How much of a doc comment restates the signature. A unit (the summary, a `@param`, `@returns` or `@throws` text,
 * a `@throws` type included) restates when its stemmed content words, minus stop words and documentation filler,
 * are all among the stemmed words of the signature (names, parameter names, type names). A comment restates when
 * every unit does.
 */
export function measureRestatement(comment: string, signature: ReadonlySet<string>): Restatement {
  const block = parseJsDoc(comment);
  const units: DocUnit[] = [];
  const add = (kind: DocUnit['kind'], text: string): void => {
    if (text.trim()) units.push({ kind, text, added: addedWords(text, signature) });
  };
  add('summary', block.description);
  for (const tag of block.tags) {
    if (PARAM_TAGS.has(tag.tag)) add('param', tag.text);
    else if (tag.tag === 'returns' || tag.tag === 'return') add('returns', tag.text);
    else if (isThrowsTag(tag)) add('throws', `${tag.type ?? ''} ${tag.text}`);
    else if (tag.tag === 'description' || tag.tag === 'summary' || tag.tag === 'remarks' || tag.tag === 'example' || tag.tag === 'see' || tag.tag === 'deprecated') add('other', tag.text);
  }
  const summary = units.find((unit) => unit.kind === 'summary');
  const params = units.filter((unit) => unit.kind === 'param');
  const paramTags = block.tags.filter((tag) => PARAM_TAGS.has(tag.tag));
  const returns = units.find((unit) => unit.kind === 'returns');
  return {
    units,
    restates: units.length === 0 ? null : units.every((unit) => unit.added.length === 0),
    summaryRestates: summary ? summary.added.length === 0 : null,
    paramRestating: params.length > 0 ? params.filter((unit) => unit.added.length === 0).length / params.length : null,
    paramBare: paramTags.length > 0 ? paramTags.filter((tag) => !tag.text.trim()).length / paramTags.length : null,
    returnsRestates: returns ? returns.added.length === 0 : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Agreement with the repository's comment

/** ROUGE-L F1 of two word sequences: the longest common subsequence against both lengths. */
export function rougeL(candidate: readonly string[], reference: readonly string[]): number {
  if (candidate.length === 0 || reference.length === 0) return 0;
  let previous = new Array<number>(reference.length + 1).fill(0);
  for (const word of candidate) {
    const row = new Array<number>(reference.length + 1).fill(0);
    for (let j = 1; j <= reference.length; j++) row[j] = word === reference[j - 1] ? (previous[j - 1] ?? 0) + 1 : Math.max(previous[j] ?? 0, row[j - 1] ?? 0);
    previous = row;
  }
  const lcs = previous[reference.length] ?? 0;
  if (lcs === 0) return 0;
  const precision = lcs / candidate.length;
  const recall = lcs / reference.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The prose of a comment, tags' texts included and `@example` code left out, as one text. */
export function commentProse(comment: string): string {
  const block = parseJsDoc(comment);
  const tags = block.tags.filter((tag) => tag.tag !== 'example' && tag.tag !== 'see');
  return [block.description, ...tags.map((tag) => `${tag.type ?? ''} ${tag.text}`)].join('\n').replace(/```[\s\S]*?```/g, ' ');
}

/** ROUGE-L F1 over the content words of two comments (signature words kept: naming the same things is agreement). */
export function agreement(generated: string, human: string): number {
  return rougeL(contentWords(commentProse(generated)), contentWords(commentProse(human)));
}

// ---------------------------------------------------------------------------------------------
// Claims checked against the code

/** What the type checker and the syntax say about a function, for checking a comment's claims. */
export interface ClaimFacts {
  /** Identifier parameters with whether they are optional and their default's text. */
  parameters: Array<{ name?: string; optional: boolean; defaultText?: string }>;
  /** What the function gives back: nothing, a boolean, a promise, `this`, or another value; undefined when unknown. */
  returns?: 'nothing' | 'boolean' | 'promise' | 'this' | 'value';
  /** Whether it is a constructor or setter: no `@returns`. */
  noReturn: boolean;
  /** Property names bound by destructured parameters: authors often document them as plain `@param` names. */
  boundNames: Set<string>;
  /** Names declared inside the body (variables, functions, classes, catch bindings): a caller never sees them. */
  locals: Set<string>;
  /** False when the function runs nothing that can throw (no `throw`, call, `new`, `await`, …); undefined when unknown. */
  mayThrow?: boolean;
}

/** The claim facts of the declaration `target`, with the checker when one is given. */
export function claimFacts(source: ts.SourceFile, target: DeclarationTarget, checker: ts.TypeChecker | undefined): ClaimFacts | undefined {
  const located = locateDeclaration(source, target);
  if (!located || located.kind === 'class' || located.kind === 'interface') return undefined;
  const fn = located.fn;
  const parameters = fn.parameters
    .filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'))
    .map((p) => ({
      ...(ts.isIdentifier(p.name) ? { name: p.name.text } : {}),
      optional: p.questionToken !== undefined || p.initializer !== undefined || p.dotDotDotToken !== undefined,
      ...(p.initializer ? { defaultText: p.initializer.getText(source).replace(/\s+/g, ' ') } : {}),
    }));
  const noReturn = located.kind === 'constructor' || located.kind === 'setter';
  const boundNames = new Set<string>();
  const bindAll = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) boundNames.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) {
      if (element.propertyName && ts.isIdentifier(element.propertyName)) boundNames.add(element.propertyName.text);
      bindAll(element.name);
    }
  };
  for (const parameter of fn.parameters) if (!ts.isIdentifier(parameter.name)) bindAll(parameter.name);
  // A comment on an overloaded implementation documents the overloads' parameters too.
  const symbol = checker && located.node.kind !== ts.SyntaxKind.VariableDeclaration ? symbolOf(checker, fn) : undefined;
  for (const declaration of symbol?.declarations ?? []) {
    if (declaration === fn || !ts.isFunctionLike(declaration)) continue;
    for (const parameter of declaration.parameters) {
      bindAll(parameter.name);
      // Optional in an overload the comment also describes: `Optional.` is true there.
      const same = ts.isIdentifier(parameter.name) ? parameters.find((p) => p.name === (parameter.name as ts.Identifier).text) : undefined;
      if (same && (parameter.questionToken || parameter.initializer)) same.optional = true;
    }
  }
  const throws = mayThrow(source, target);
  const facts: ClaimFacts = { parameters, noReturn, boundNames, locals: localNames(fn), ...(throws !== undefined ? { mayThrow: throws } : {}) };
  const returns = checker && !noReturn ? returnKind(checker, fn) : undefined;
  if (returns) facts.returns = returns;
  return facts;
}

function symbolOf(checker: ts.TypeChecker, fn: FunctionLike): ts.Symbol | undefined {
  try {
    const name = (fn as ts.NamedDeclaration).name;
    return name ? checker.getSymbolAtLocation(name) : undefined;
  } catch {
    return undefined;
  }
}

function returnKind(checker: ts.TypeChecker, fn: FunctionLike): ClaimFacts['returns'] {
  try {
    const signature = checker.getSignatureFromDeclaration(fn);
    if (!signature) return undefined;
    const type = checker.getReturnTypeOfSignature(signature);
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
    const kinds = new Set((type.isUnion() ? type.types : [type]).map((member) => memberKind(checker, member)));
    kinds.delete('nothing');
    if (kinds.size === 0) return 'nothing';
    if (kinds.size === 1) return [...kinds][0];
    return 'value';
  } catch {
    return undefined;
  }
}

function memberKind(checker: ts.TypeChecker, type: ts.Type): NonNullable<ClaimFacts['returns']> {
  if (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never | ts.TypeFlags.Null)) return 'nothing';
  if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  if (type.flags & ts.TypeFlags.TypeParameter && checker.typeToString(type) === 'this') return 'this';
  const name = type.getSymbol()?.getName();
  if (name === 'Promise' || name === 'PromiseLike') return 'promise';
  return 'value';
}

function localNames(fn: FunctionLike): Set<string> {
  const names = new Set<string>();
  if (!fn.body) return names;
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node)) bind(node.name);
    else if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) names.add(node.name.text);
    else if (ts.isCatchClause(node) && node.variableDeclaration) bind(node.variableDeclaration.name);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn.body, visit);
  // A parameter shadowed by nothing is not a local, whatever the body declares with the same name elsewhere.
  for (const parameter of fn.parameters) if (ts.isIdentifier(parameter.name)) names.delete(parameter.name.text);
  return names;
}

/**
 * The claims of a comment the code contradicts: a `@param` naming no parameter, a default or `Optional.` the
 * signature does not have, a `@returns` on a function that returns nothing, or one promising a boolean, a promise,
 * this instance or nothing when the return type is something else, a `@throws` on a function that runs nothing that
 * can throw, or whose condition names a local variable (the caller cannot see it).
 */
export function contradictions(comment: string, facts: ClaimFacts): string[] {
  const block = parseJsDoc(comment);
  const found: string[] = [];
  const named = new Set(facts.parameters.flatMap((p) => (p.name ? [p.name] : [])));
  const destructured = facts.parameters.filter((p) => !p.name).length;
  const params = block.tags.filter((tag) => PARAM_TAGS.has(tag.tag) && tag.name);
  const nameOf = (tag: JsDocTag): string => (tag.name ?? '').replace(/^\.\.\./, '');
  const unmatchedRoots = [...new Set(params.map((tag) => nameOf(tag).split('.')[0] as string).filter((root) => !named.has(root) && !facts.boundNames.has(root)))];
  for (const root of unmatchedRoots.slice(destructured)) found.push(`@param ${root} names no parameter`);
  for (const tag of params) {
    const parameter = facts.parameters.find((p) => p.name === nameOf(tag));
    if (!parameter) continue;
    const stated = /Defaults to `([^`]*)`/.exec(tag.text)?.[1];
    if (stated !== undefined && parameter.defaultText !== undefined && stated !== parameter.defaultText) found.push(`@param ${parameter.name} states a default the code does not have`);
    if (stated !== undefined && parameter.defaultText === undefined) found.push(`@param ${parameter.name} states a default the code does not have`);
    if (/(^|\.\s)Optional\.?$/.test(tag.text.trim()) && !parameter.optional) found.push(`@param ${parameter.name} calls a required parameter optional`);
  }
  const returns = block.tags.filter((tag) => tag.tag === 'returns' || tag.tag === 'return');
  for (const tag of returns) {
    const text = tag.text.trim();
    const saysNothing = text === '' || /^(nothing|void|undefined|never)\b/i.test(text);
    if (facts.noReturn && !saysNothing) {
      found.push('@returns on a function that returns nothing');
      continue;
    }
    const kind = facts.returns;
    if (!kind) continue;
    if (kind === 'nothing' && !saysNothing) found.push('@returns a value the function does not return');
    else if (kind !== 'nothing' && /^nothing\b/i.test(text)) found.push('@returns nothing, but the function returns a value');
    else if (/^(`?true`?|`?false`?|whether)\b/i.test(text) && kind !== 'boolean' && kind !== 'promise') found.push('@returns a boolean, but the function returns another type');
    else if (/^an? promise\b/i.test(text) && kind !== 'promise') found.push('@returns a promise, but the function does not return one');
    else if (/^this instance\b/i.test(text) && kind !== 'this' && kind !== 'value') found.push('@returns this instance, but the function returns another type');
  }
  const throwsTags = block.tags.filter(isThrowsTag);
  if (throwsTags.length > 0 && facts.mayThrow === false) found.push('@throws on a function that runs nothing that can throw');
  for (const tag of throwsTags) {
    // Identifiers, not property names: `this.state.data` names no local `data`.
    const local = [...tag.text.matchAll(/`([^`]+)`/g)].flatMap((m) => [...(m[1] ?? '').matchAll(/(^|[^.\p{L}\p{N}_$#])([\p{L}_$][\p{L}\p{N}_$]*)/gu)].map((n) => n[2] ?? '')).find((word) => facts.locals.has(word));
    if (local) found.push(`@throws names the local ${local}`);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The signature's words

/**
 * The texts whose words a restating comment repeats: the declaration's name, its class's name, the signature as
 * written (parameters, their types and defaults, the return type) and the checker's types of the parameters and the
 * return, for what is inferred.
 */
export function signatureTexts(source: ts.SourceFile, target: DeclarationTarget, checker: ts.TypeChecker | undefined): string[] {
  const located = locateDeclaration(source, target);
  if (!located) return [target.name];
  const texts = [target.name];
  if (located.kind === 'class' || located.kind === 'interface') {
    const node = located.node;
    texts.push(source.text.slice(node.getStart(source), node.members.pos));
    return texts;
  }
  const fn = located.fn;
  const signatureEnd = fn.body ? fn.body.getStart(source) : fn.getEnd();
  texts.push(source.text.slice(located.node.getStart(source), Math.max(located.node.getStart(source), signatureEnd)));
  if (checker) {
    try {
      const signature = checker.getSignatureFromDeclaration(fn);
      if (signature) {
        texts.push(checker.typeToString(checker.getReturnTypeOfSignature(signature), fn, ts.TypeFormatFlags.NoTruncation));
        for (const parameter of signature.getParameters()) texts.push(checker.typeToString(checker.getTypeOfSymbolAtLocation(parameter, fn), fn, ts.TypeFormatFlags.NoTruncation));
      }
    } catch {
      // The written signature is enough.
    }
  }
  return texts;
}
