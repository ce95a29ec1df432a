// The offline Document agent: writes a JSDoc comment from a declaration's name, signature and types, with no model.
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { DeclarationTarget } from '../../repo/declarations.js';
import { parseJsDoc, renderJsDoc, renderTag, tagNames, unindentBlock } from '../../edits/jsdoc.js';
import type { JsDocTag } from '../../edits/jsdoc.js';
import { isCatchVariable } from '../../repo/structure/controlFlow.js';
import { documentedOverloads, notesAbove } from '../../repo/docPlacement.js';
import { summaryFromComments } from './commentProse.js';
import { locateDeclaration } from './declarationLocator.js';
import type { FunctionLike, LocatedDeclaration } from './declarationLocator.js';
import { collectParameters, ordinal, templateTags } from './docParameters.js';
import { parameterUses } from './docParameterUses.js';
import { isNothing, joinList, namingContext, returnsPhrase } from './docSummaries.js';
import { typeSummary } from './typeEvidence.js';
import { addsToSignature, bodyFacts, bodySummary, identifierWords, inheritedDoc, namesAny, returnedText, unsaidFacts } from './docEvidence.js';
import { CheckerTypes, compactType, SyntaxTypes } from './docTypes.js';
import type { TypeSource } from './docTypes.js';
import { backticked, phrase, sentence, splitIdentifier } from './identifierProse.js';


/** Answers Document requests offline: deterministic, instant, and always available. */
export class OfflineDocumentAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'doc-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['document'];
  readonly description = "Writes a JSDoc comment from the declaration's name, signature and types, without a model.";

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const { document, project } = request;
    const target = request.target.declaration;
    if (!target) return { text: '' };
    const fsPath = document.fsPath ?? path.join(project.root, '__assistant_untitled__', 'untitled.ts');
    const javascript = /^javascript/.test(document.languageId) || /\.[cm]?jsx?$/i.test(fsPath);
    let result: DocResult;
    try {
      result = documentDeclaration(project.sourceFile(fsPath, document.text), target, { javascript });
    } catch {
      // The workspace project could not load (e.g. a broken tsconfig): the file alone still has a syntax and local types.
      result = documentInIsolation(fsPath, document.text, target, javascript);
    }
    signal.throwIfAborted();
    return result.declined ? { text: '', reason: result.declined } : { text: result.text };
  }
}

/** A doc comment, or why none is proposed. */
export interface DocResult {
  /** The JSDoc block, un-indented; `''` when the declaration is not there or the agent declines. */
  text: string;
  /** Why nothing is proposed, in words for the user: nothing true can be said beyond the signature. */
  declined?: string;
}

/**
 * The JSDoc block (un-indented) for the declaration `target` in `sourceFile`, or `''` when the
 * declaration is not there. An existing doc comment is completed, never rewritten. A function whose code and
 * repository say nothing beyond its signature is declined rather than given a comment restating its name.
 */
export function documentDeclaration(sourceFile: SourceFile, target: DeclarationTarget, options: { javascript: boolean }): DocResult {
  let checker: ts.TypeChecker | undefined;
  let program: ts.Program | undefined;
  try {
    program = sourceFile.getProject().getProgram().compilerObject;
    // A JavaScript file outside a tsconfig without `allowJs` is not in the program: its types would all be `any`.
    checker = program.getSourceFile(sourceFile.getFilePath()) ? program.getTypeChecker() : undefined;
  } catch {
    checker = undefined;
  }
  const root = sourceFile.compilerNode;
  const declaration = locateDeclaration(root, target);
  if (!declaration) return { text: '' };
  const syntaxTypes = new SyntaxTypes(root, options.javascript);
  try {
    return writeDocComment(declaration, target, options, checker ? new CheckerTypes(checker, syntaxTypes) : syntaxTypes, checker, checker ? program : undefined);
  } catch {
    try {
      return writeDocComment(declaration, target, options, syntaxTypes, undefined, undefined);
    } catch {
      return { text: target.existingDoc ? unindentBlock(target.existingDoc.text, target.indent) : '' };
    }
  }
}

function documentInIsolation(fsPath: string, text: string, target: DeclarationTarget, javascript: boolean): DocResult {
  try {
    const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true, strict: true, target: ts.ScriptTarget.ES2022 } });
    return documentDeclaration(project.createSourceFile(path.basename(fsPath), text), target, { javascript });
  } catch {
    return { text: '' };
  }
}

// ---------------------------------------------------------------------------------------------
// Throws

interface ThrowEntry {
  type?: string;
  text: string;
}

/** Every `throw` in the function's own body (not in nested functions or classes), with when it happens. */
function collectThrows(fn: FunctionLike, types: TypeSource, root: ts.SourceFile, locals: ReadonlySet<string>): ThrowEntry[] {
  const entries: ThrowEntry[] = [];
  if (!fn.body) return entries;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isThrowStatement(node)) {
      const entry = throwEntry(node, fn, types, root, locals);
      if (entry) entries.push(entry);
    }
    ts.forEachChild(node, visit);
  };
  // An expression body that is itself a function (`(a) => (b) => …`) throws only when the returned function runs.
  if (ts.isBlock(fn.body)) ts.forEachChild(fn.body, visit);
  else visit(fn.body);
  return entries;
}

function throwEntry(statement: ts.ThrowStatement, fn: FunctionLike, types: TypeSource, root: ts.SourceFile, locals: ReadonlySet<string>): ThrowEntry | undefined {
  let thrown: ts.Expression = statement.expression;
  while (ts.isParenthesizedExpression(thrown) || ts.isAsExpression(thrown) || ts.isAwaitExpression(thrown)) thrown = thrown.expression;
  let type: string | undefined;
  if (ts.isNewExpression(thrown)) type = thrown.expression.getText(root);
  else if (ts.isCallExpression(thrown) && ts.isIdentifier(thrown.expression) && /^[A-Z]/.test(thrown.expression.text)) type = thrown.expression.text;
  else type = types.thrownTypeName(thrown);
  let text = throwCondition(statement, fn, root);
  if ((!text || text === CATCH_CONDITION) && ts.isIdentifier(thrown) && isCatchVariable(thrown)) text = 'Rethrows the error raised in the `try` block.';
  // A condition on the function's own variables means nothing to a caller, who never sees them.
  if (namesAny(text.replace(/^[^`]*/, ''), locals)) {
    if (!type) return undefined;
    text = '';
  }
  const entry: ThrowEntry = { text };
  if (type) entry.type = compactType(type);
  return entry;
}

/** `If …` / `Unless …` / `When …` from the nearest enclosing condition, or `''` when the throw is unconditional. */
function throwCondition(statement: ts.ThrowStatement, fn: FunctionLike, root: ts.SourceFile): string {
  let child: ts.Node = statement;
  for (let parent: ts.Node | undefined = statement.parent; parent && parent !== fn; child = parent, parent = parent.parent) {
    if (ts.isIfStatement(parent)) {
      if (child === parent.thenStatement) return `If ${backticked(shortCode(parent.expression, root))}.`;
      if (child === parent.elseStatement) return `Unless ${backticked(shortCode(parent.expression, root))}.`;
    }
    if (ts.isCaseClause(parent)) return `When ${backticked(shortCode(parent.parent.parent.expression, root))} is ${backticked(shortCode(parent.expression, root))}.`;
    if (ts.isDefaultClause(parent)) return `When ${backticked(shortCode(parent.parent.parent.expression, root))} matches no case.`;
    if (ts.isCatchClause(parent)) return CATCH_CONDITION;
  }
  return '';
}

const CATCH_CONDITION = 'If the `try` block throws.';

function shortCode(node: ts.Node, root: ts.SourceFile): string {
  const text = node.getText(root).replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 57).trimEnd()}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Assembling the comment

interface GeneratedDoc {
  /** `''` when nothing true can be said beyond the tags. */
  summary: string;
  /** Something in the comment comes from the code or the repository's comments, not from the signature alone. */
  evidence: boolean;
  /** For a function without evidence: what its code does that a comment cannot say (`unsaidFacts`). */
  unsaid?: string;
  templates: Array<Omit<JsDocTag, 'raw'>>;
  parameters: Array<Omit<JsDocTag, 'raw'>>;
  returns?: Omit<JsDocTag, 'raw'>;
  throws: Array<Omit<JsDocTag, 'raw'>>;
}

function writeDocComment(declaration: LocatedDeclaration, target: DeclarationTarget, options: { javascript: boolean }, types: TypeSource, checker: ts.TypeChecker | undefined, program: ts.Program | undefined): DocResult {
  const root = declaration.node.getSourceFile();
  const existing = target.existingDoc ? parseJsDoc(target.existingDoc.text) : undefined;
  const existingParameterNames = existing ? existing.tags.filter((tag) => isParameterTag(tag.tag)).map((tag) => tag.name ?? '') : [];
  const generated = generateDoc(declaration, root, options.javascript, types, existingParameterNames, checker, program);
  const hyphen = prefersHyphen(existing?.tags ?? []);
  const toTag = (fields: Omit<JsDocTag, 'raw'>): JsDocTag => ({ ...fields, raw: renderTag(fields, { hyphen }) });
  if (!existing || !target.existingDoc) {
    if (!generated.evidence) return { text: '', declined: declineReason(declaration, target, generated.unsaid) };
    return { text: renderJsDoc({
      description: generated.summary,
      tags: [...generated.templates, ...generated.parameters, ...(generated.returns ? [generated.returns] : []), ...generated.throws].map(toTag),
    }) };
  }
  const tags = [...existing.tags];
  let changed = false;
  const description = existing.description.trim() ? existing.description : generated.summary;
  if (!existing.description.trim() && generated.summary) changed = true;

  const documentedTemplates = new Set(tags.filter((tag) => tag.tag === 'template' || tag.tag.toLowerCase() === 'typeparam').flatMap(tagNames));
  for (const template of generated.templates) {
    if (template.name && documentedTemplates.has(template.name)) continue;
    insertByRank(tags, toTag(template));
    changed = true;
  }

  const parameterOrder = generated.parameters.map((tag) => tag.name ?? '');
  // Some authors write rest parameters as `@param ...items`.
  const documentedParameters = new Set(tags.filter((tag) => isParameterTag(tag.tag)).map((tag) => (tag.name ?? '').replace(/^\.\.\./, '')));
  generated.parameters.forEach((parameter, index) => {
    if (documentedParameters.has(parameter.name ?? '')) return;
    insertParameter(tags, toTag(parameter), index, parameterOrder);
    changed = true;
  });

  if (generated.returns && !tags.some((tag) => tag.tag === 'returns' || tag.tag === 'return')) {
    insertByRank(tags, toTag(generated.returns));
    changed = true;
  }

  const existingThrows = tags.filter((tag) => tag.tag === 'throws' || tag.tag === 'throw' || tag.tag === 'exception');
  const coversEveryThrow = existingThrows.some((tag) => tag.type === undefined);
  const documentedThrowTypes = new Set(existingThrows.map((tag) => tag.type));
  if (!coversEveryThrow) {
    for (const thrown of generated.throws) {
      if (documentedThrowTypes.has(thrown.type)) continue;
      insertByRank(tags, toTag(thrown));
      changed = true;
    }
  }

  if (!changed) return { text: unindentBlock(target.existingDoc.text, target.indent) };
  return { text: renderJsDoc({ description, tags }) };
}

/** Why no comment is proposed for a declaration whose code says nothing beyond its signature; `unsaid` for a function. */
function declineReason(declaration: LocatedDeclaration, target: DeclarationTarget, unsaid: string | undefined): string {
  if (declaration.kind === 'class' || declaration.kind === 'interface') {
    return `nothing true to add to the declaration of ${target.name}: what it extends or implements is undocumented and nothing in the project constructs, implements or extends it, so a comment would only repeat its name`;
  }
  return `nothing true to add to the signature of ${target.name}: ${unsaid ?? 'no short piece of its code says more than its signature'}; no overload or inherited member is documented, so a comment would only repeat its name and types`;
}

function generateDoc(declaration: LocatedDeclaration, root: ts.SourceFile, javascript: boolean, types: TypeSource, existingParameterNames: string[], checker: ts.TypeChecker | undefined, program: ts.Program | undefined): GeneratedDoc {
  // The author's own words over the code, when they describe it, say more than its name does.
  const noted = summaryFromComments(notesAbove(declaration.node, statementOf(declaration.node), root));
  if (declaration.kind === 'class' || declaration.kind === 'interface') {
    // Its name and heritage clause are what "Represents a user cache, extending `Cache`" would say: only evidence is said.
    const summary = noted ?? typeSummary(declaration.node, checker, program) ?? '';
    return { summary, evidence: summary !== '', templates: templateTags(declaration.node.typeParameters, undefined, root, javascript), parameters: [], throws: [] };
  }
  const { fn, kind } = declaration;
  // With overloads, the comment goes on the first and is what callers of each undocumented one see: it describes
  // their parameters and results, not the implementation's (often `...args: any[]`). Its body still says what throws.
  const overloads = documentedOverloads(declaration.node, root);
  const signatures: FunctionLike[] = overloads.length > 0 ? overloads : [fn];
  const firstSignature = signatures[0] ?? fn;
  const owner = ownerClass(fn);
  const ownerName = owner?.name?.text;
  const ownerPhrase = ownerName ? phrase(splitIdentifier(ownerName)) : undefined;
  const visibleParameters = visibleParametersOf(firstSignature);
  const firstParameter = visibleParameters[0];
  const firstParameterName = firstParameter && ts.isIdentifier(firstParameter.name) ? firstParameter.name.text : undefined;
  const rawName = declarationName(declaration);
  const context = namingContext(kind, rawName, ownerPhrase, firstParameterName);
  if (firstParameter && !ts.isIdentifier(firstParameter.name)) context.destructuredFirstParameter = true;

  // What is known beyond the signature: documentation of the same function elsewhere, and what the body does.
  const inherited = inheritedDoc(fn, declaration.node, checker, root);
  const body = bodyFacts(fn, root);
  let evidence = noted !== undefined;

  // What the body does with each parameter, said only of a tag that names the same parameter of the implementation.
  const implementation = collectParameters(fn, types, root, destructuredRootAliases(visibleParametersOf(fn), existingParameterNames));
  const usedTexts: string[] = [];
  const uses = parameterUses(fn, root, implementation.flatMap((entry) => (entry.variable ? [{ tagName: entry.tagName, variable: entry.variable }] : [])), body.locals);
  const parameters = parameterEntriesOf(signatures, types, root, existingParameterNames).map(({ entry, only }) => {
    // Only the same function's own documentation, elsewhere: the same name in another function or type may mean another thing.
    const documented = inherited?.parameters.get(entry.tagName);
    const own = implementation.some((other) => other.tagName === entry.tagName && other.position === entry.position);
    const usedText = own ? uses.get(entry.tagName) : undefined;
    const used = usedText?.text;
    if (documented) evidence = true;
    if (usedText?.telling) usedTexts.push(usedText.telling);
    // Where nothing beyond the signature is known, the tag stays without words: the parameter is listed, nothing is restated.
    let described = documented ?? used ?? '';
    if (!documented && used && entry.defaultText !== undefined) described += ` Defaults to ${backticked(entry.defaultText)}.`;
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'param', name: entry.tagName, text: only ? [described, overloadNote(only)].filter(Boolean).join(' ') : described };
    if (javascript) {
      tag.type = entry.facts.jsdocType ?? '*';
      if (entry.optional && !entry.rest) {
        tag.optional = true;
        if (entry.defaultText !== undefined) tag.defaultValue = entry.defaultText;
      }
    }
    return tag;
  });

  const returnFacts = kind === 'constructor' || kind === 'setter' ? undefined : returnOf(signatures, types);
  // The words a comment may not merely repeat: the name, its class, the signature as written, the inferred return type.
  const signatureEnd = fn.body ? fn.body.getStart(root) : fn.getEnd();
  const overloadTexts = overloads.map((overload) => overload.getText(root));
  const signature = identifierWords([rawName, ownerName ?? '', root.text.slice(declaration.node.getStart(root), Math.max(declaration.node.getStart(root), signatureEnd)), ...overloadTexts, returnFacts?.jsdocType ?? ''].join(' '));
  // A summary says what the code does; one made from the name alone, or naming only what the signature names, restates it.
  // Where the body sends a parameter is evidence when it names something the signature does not (`Passed to \`_check\``
  // for a function returning a `ZodCheck` does not).
  if (usedTexts.some((text) => addsToSignature(text, signature))) evidence = true;
  const fromBody = bodySummary(body);
  let summary = noted ?? inherited?.summary ?? (fromBody && addsToSignature(fromBody, signature) ? fromBody : '');
  if (summary) evidence = true;
  else if (kind === 'constructor') summary = sentence(`Creates a new ${ownerName ? backticked(ownerName) : 'instance'}`);

  const generated: GeneratedDoc = {
    summary,
    evidence,
    unsaid: unsaidFacts(body, fn, signature),
    templates: ts.isConstructorDeclaration(fn) || ts.isAccessor(fn) ? [] : templatesOf(signatures, root, javascript),
    parameters,
    throws: [],
  };
  if (returnFacts && !isNothing(returnFacts.shape)) {
    const isBoolean = returnFacts.shape.kind === 'boolean' || (returnFacts.shape.kind === 'promise' && returnFacts.shape.inner.kind === 'boolean');
    const fromCode = inherited?.returns ?? returnedText(body, root, isBoolean && returnFacts.shape.kind === 'boolean', returnsPhrase(returnFacts.shape, context));
    // A condition or fallback (`value < min`, `a ?? b`) relates what the signature only names: it says something even with its words.
    const relates = /`[^`]*(?:[<>]|[!=]==?|&&|\|\||\?\?)[^`]*`/.test(fromCode ?? '');
    if (fromCode && (inherited?.returns !== undefined || relates || addsToSignature(fromCode, signature))) generated.evidence = true;
    const returns: Omit<JsDocTag, 'raw'> = { tag: 'returns', text: fromCode ?? sentence(returnsPhrase(returnFacts.shape, context)) };
    if (javascript) returns.type = returnFacts.jsdocType ?? '*';
    generated.returns = returns;
  }
  const seen = new Set<string>();
  for (const thrown of collectThrows(fn, types, root, body.locals)) {
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'throws', text: thrown.text };
    if (thrown.type) tag.type = thrown.type;
    const key = renderTag(tag);
    if (seen.has(key)) continue;
    seen.add(key);
    generated.throws.push(tag);
    if (addsToSignature(`\`${tag.type ?? ''}\` ${tag.text}`, signature)) generated.evidence = true;
  }
  return generated;
}

function visibleParametersOf(fn: FunctionLike): ts.ParameterDeclaration[] {
  return fn.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'));
}

/** The statement a declaration's comments are written over: `const f = () => …` for the function in it. */
function statementOf(node: ts.Node): ts.Node {
  return ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) ? node.parent.parent : node;
}

type ParameterEntry = ReturnType<typeof collectParameters>[number];

/**
 * The parameters of every signature, each once (by the name its tag writes), in the order they first appear, with
 * the signatures that have it (by index), when not all do.
 */
function parameterEntriesOf(signatures: readonly FunctionLike[], types: TypeSource, root: ts.SourceFile, existingParameterNames: string[]): Array<{ entry: ParameterEntry; only?: number[] }> {
  const perSignature = signatures.map((signature) => collectParameters(signature, types, root, destructuredRootAliases(visibleParametersOf(signature), existingParameterNames)));
  const merged = new Map<string, ParameterEntry>();
  for (const entries of perSignature) {
    for (const entry of entries) if (!merged.has(entry.tagName)) merged.set(entry.tagName, entry);
  }
  return [...merged.values()].map((entry) => {
    const only = perSignature.flatMap((entries, index) => (entries.some((other) => other.tagName === entry.tagName) ? [index] : []));
    return only.length < perSignature.length ? { entry, only } : { entry };
  });
}

/** `In the second overload only.`: which overloads (counted from the one the comment is on) take a parameter. */
function overloadNote(only: readonly number[]): string {
  const which = only.map(ordinal);
  return `In the ${joinList(which)} overload${which.length > 1 ? 's' : ''} only.`;
}

/** What the signatures return: the first that returns something, else the first's nothing. */
function returnOf(signatures: readonly FunctionLike[], types: TypeSource): ReturnType<TypeSource['ofReturn']> | undefined {
  const all = signatures.map((signature) => types.ofReturn(signature));
  return all.find((facts) => !isNothing(facts.shape)) ?? all[0];
}

/** The `@template`s of every signature, each type parameter once. */
function templatesOf(signatures: readonly FunctionLike[], root: ts.SourceFile, javascript: boolean): Array<Omit<JsDocTag, 'raw'>> {
  const byName = new Map<string, Omit<JsDocTag, 'raw'>>();
  for (const signature of signatures) {
    for (const tag of templateTags(signature.typeParameters, signature, root, javascript)) if (tag.name && !byName.has(tag.name)) byName.set(tag.name, tag);
  }
  return [...byName.values()];
}

function declarationName(declaration: LocatedDeclaration & { fn: FunctionLike }): string {
  const node = declaration.node;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isFunctionDeclaration(node)) return node.name?.text ?? '';
  if (ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isPropertyDeclaration(node)) {
    const name = node.name;
    return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText();
  }
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) return node.name.text;
  return 'default';
}

function ownerClass(node: ts.Node): ts.ClassLikeDeclaration | undefined {
  for (let current: ts.Node | undefined = node.parent; current; current = current.parent) {
    if (ts.isClassLike(current)) return current;
    if (ts.isSourceFile(current)) return undefined;
  }
  return undefined;
}

/**
 * Names an existing comment already gives destructured parameters (`@param options` for `{ a, b }`),
 * matched by position the way TypeScript matches them, so completing it does not add `root0`.
 */
function destructuredRootAliases(parameters: readonly ts.ParameterDeclaration[], existingNames: string[]): Map<number, string> {
  const aliases = new Map<number, string>();
  const topLevel = existingNames.filter((name) => name && !name.includes('.'));
  const identifierNames = new Set(parameters.flatMap((parameter) => (ts.isIdentifier(parameter.name) ? [parameter.name.text] : [])));
  const unmatched = topLevel.filter((name) => !identifierNames.has(name));
  const destructuredPositions = parameters.flatMap((parameter, position) => (ts.isIdentifier(parameter.name) ? [] : [position]));
  if (destructuredPositions.length === 1 && unmatched.length === 1 && destructuredPositions[0] !== undefined && unmatched[0]) {
    aliases.set(destructuredPositions[0], unmatched[0]);
    return aliases;
  }
  for (const position of destructuredPositions) {
    const name = topLevel[position];
    if (name && !identifierNames.has(name)) aliases.set(position, name);
  }
  return aliases;
}

function isParameterTag(tag: string): boolean {
  return tag === 'param' || tag === 'arg' || tag === 'argument';
}

/** Whether new tags should separate name and text with ` - `, following the existing comment's style. */
function prefersHyphen(tags: readonly JsDocTag[]): boolean {
  const described = tags.filter((tag) => (isParameterTag(tag.tag) || tag.tag === 'template') && tag.name && tag.text);
  if (described.length === 0) return true;
  return described.some((tag) => /^@\S+\s+(?:\{[^}]*\}\s*)?(?:\[[^\]]*\]|\S+)\s+-\s/.test(tag.raw));
}

const TAG_RANK: Record<string, number> = { template: 0, typeParam: 0, typeparam: 0, param: 1, arg: 1, argument: 1, returns: 2, return: 2, throws: 3, throw: 3, exception: 3 };

/** Inserts a tag among the known tags by the conventional order: template, param, returns, throws. */
function insertByRank(tags: JsDocTag[], tag: JsDocTag): void {
  const rank = TAG_RANK[tag.tag] ?? 4;
  const later = tags.findIndex((existing) => (TAG_RANK[existing.tag] ?? Infinity) > rank && TAG_RANK[existing.tag] !== undefined);
  if (later >= 0) {
    tags.splice(later, 0, tag);
    return;
  }
  let lastEarlier = -1;
  tags.forEach((existing, index) => {
    const existingRank = TAG_RANK[existing.tag];
    if (existingRank !== undefined && existingRank <= rank) lastEarlier = index;
  });
  if (lastEarlier >= 0) tags.splice(lastEarlier + 1, 0, tag);
  else tags.push(tag);
}

/** Inserts a `@param` next to its neighbours in parameter order. */
function insertParameter(tags: JsDocTag[], tag: JsDocTag, orderIndex: number, order: readonly string[]): void {
  const positionOf = (existing: JsDocTag): number => (isParameterTag(existing.tag) ? order.indexOf(existing.name ?? '') : -1);
  let after = -1;
  tags.forEach((existing, index) => {
    const position = positionOf(existing);
    if (position >= 0 && position < orderIndex) after = index;
  });
  if (after >= 0) {
    tags.splice(after + 1, 0, tag);
    return;
  }
  const before = tags.findIndex((existing) => positionOf(existing) > orderIndex);
  if (before >= 0) {
    tags.splice(before, 0, tag);
    return;
  }
  insertByRank(tags, tag);
}
