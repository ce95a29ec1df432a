// A file's declarations and comment blocks extracted by syntax alone (the lexical index's documents), and what an open document's next version takes of them unchanged.
import path from 'node:path';
import { ts } from 'ts-morph';
import { changedSpan } from '../../edits/textEdits.js';
import type { ChangedSpan } from '../../edits/textEdits.js';
import { scriptKindOf } from '../declarations.js';
import { skipOuterExpressions } from '../structure/callSummary.js';
import { TEST_PATH } from './fileReach.js';
import { terms } from './terms.js';

/** What a location is: a declaration kind, a comment block, or a file's top-level code. */
export type LocationKind =
  | 'function'
  | 'method'
  | 'constructor'
  | 'getter'
  | 'setter'
  | 'property'
  | 'class'
  | 'interface'
  | 'type'
  | 'enum'
  | 'namespace'
  | 'variable'
  | 'comment'
  | 'module';

/** Path segments that say nothing about what a file does. */
const PATH_NOISE: ReadonlySet<string> = new Set(['src', 'lib', 'ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'mts', 'cts', 'index']);

/** Most characters of one document's text that are tokenised (bounds the work on huge classes). */
const MAX_DOCUMENT_CHARS = 64_000;
const MAX_SIGNATURE_CHARS = 600;

/** A document before indexing: its place in the file and the text of each field. */
export interface DocumentDraft {
  kind: LocationKind;
  name: string;
  start: number;
  end: number;
  commentStart: number;
  fields: [name: string, signature: string, comment: string, context: string, body: string];
  /**
   * The callee a declaration hands all its work to (`delegateOf`), as written: `core.parse`, `this.load`, `Parser`;
   * for a comment (a test's title), the name of the declaration it describes (`titleSubject`).
   */
  delegate?: string;
}

/**
 * A word a declaration `visit` records starts with: `function`, `class`, `interface`, `enum`, `namespace`, `module`,
 * `global` (`declare global`), or `type` followed by a space or a comment (a type alias; not `type:` or `type,`).
 */
const DECLARING_WORD = /\b(?:function|class|interface|enum|namespace|module|global)\b|\btype(?=\s|\/[*/])/;

/** Comment text without its markers, one line per line. */
function commentProse(text: string): string {
  return text
    .replace(/^\/\*\*?|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/+|\*)\s?/, '').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** An expression without the parentheses, assertions and `await` around it. */
function unwrapped(node: ts.Expression): ts.Expression {
  let expression = skipOuterExpressions(node);
  while (ts.isAwaitExpression(expression)) expression = skipOuterExpressions(expression.expression);
  return expression;
}

/** A callee as a dotted path of names (`core.parse`, `this.#load`), or undefined for anything else (a call's result, an index). */
function calleePath(node: ts.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (node.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(node)) {
    const object = calleePath(node.expression);
    return object === undefined ? undefined : `${object}.${node.name.text}`;
  }
  return undefined;
}

/** A type's name as a dotted path (`schemas.Parser`). */
function entityPath(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityPath(name.left)}.${name.right.text}`;
}

/** The name of the type a return annotation refers to (`schemas.Parser` of `schemas.Parser<T>`), if it is one. */
function returnedTypeName(type: ts.TypeNode | undefined): string | undefined {
  return type && ts.isTypeReferenceNode(type) ? entityPath(type.typeName) : undefined;
}

/**
 * The callee a function hands all its work to: its body is one call or `new`, returned or a statement of its own
 * (work done before the call, even in constants, is the function's own). A wrapper (`return new Parser(options)`,
 * `return core.parse(schema, input)`) holds none of the behaviour a question about it asks for: its callee does. A
 * class the function was given as a parameter (`new Class(def)`) is the type it says it returns.
 */
function delegateOfFunction(node: ts.SignatureDeclaration & { body?: ts.Node | undefined }): string | undefined {
  const body = node.body;
  if (!body) return undefined;
  let call: ts.Expression;
  if (ts.isBlock(body)) {
    const only = body.statements.length === 1 ? body.statements[0] : undefined;
    if (only && ts.isReturnStatement(only) && only.expression) call = only.expression;
    else if (only && ts.isExpressionStatement(only)) call = only.expression;
    else return undefined;
  } else if (ts.isExpression(body)) call = body;
  else return undefined;
  call = unwrapped(call);
  if (!ts.isCallExpression(call) && !ts.isNewExpression(call)) return undefined;
  const callee = calleePath(call.expression);
  if (callee === undefined) return undefined;
  const parameters = new Set(node.parameters.map((parameter) => (ts.isIdentifier(parameter.name) ? parameter.name.text : '')));
  const first = callee.split('.')[0] as string;
  if (!parameters.has(first)) return callee;
  return callee === first && ts.isNewExpression(call) ? returnedTypeName(node.type) : undefined;
}

/**
 * What a constant made by a constructor function extends (`const Zoo = make("Zoo", (inst, def) => { Base.init(inst,
 * def); inst.x = … })`): the function's first call that forwards all of its parameters, in order, to a declaration
 * named like the constant (every word of its name in the callee's), when the function does nothing but calls,
 * assignments and constants (no branching). Its behaviour is that declaration's; a base named otherwise
 * (`Base` of `Zoo`) is shared by many and is not what a question about the constant asks for.
 */
function delegateOfValue(name: string, initializer: ts.Expression | undefined): string | undefined {
  if (!initializer) return undefined;
  const call = unwrapped(initializer);
  if (!ts.isCallExpression(call)) return undefined;
  const functions = call.arguments.map(unwrapped).filter((argument) => isFunctionValue(argument)) as (ts.ArrowFunction | ts.FunctionExpression)[];
  const made = functions.length === 1 ? functions[0] : undefined;
  if (!made || !ts.isBlock(made.body) || !made.body.statements.every((statement) => ts.isExpressionStatement(statement) || ts.isVariableStatement(statement))) return undefined;
  const parameters = made.parameters.map((parameter) => (ts.isIdentifier(parameter.name) ? parameter.name.text : undefined));
  const words = terms(name);
  for (const statement of made.body.statements) {
    if (!ts.isExpressionStatement(statement)) continue;
    const forward = unwrapped(statement.expression);
    if (!ts.isCallExpression(forward) || forward.arguments.length !== parameters.length) continue;
    if (!forward.arguments.every((argument, i) => ts.isIdentifier(argument) && argument.text === parameters[i])) continue;
    const callee = calleePath(forward.expression);
    if (callee === undefined) continue;
    const calleeWords = new Set(terms(callee));
    if (words.length > 0 && words.every((word) => calleeWords.has(word))) return callee;
  }
  return undefined;
}

function isFunctionValue(node: ts.Node | undefined): boolean {
  return node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

/** Calls that declare a test or a suite by its title: `test("…", …)`, `it.only("…", …)`, `describe("…", …)`. */
const TEST_CALLS: ReadonlySet<string> = new Set(['test', 'it', 'describe', 'suite', 'bench', 'context']);

/** A word of a title written as code: `z.lazy`, `.partial()`, `lazy()`, `safeParse`, `$ZodType`, `handle_result`. */
const CODE_IN_TITLE = /(\.?)([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(\))?/g;

/**
 * The declaration a test's title names: the last segment of the first word it writes as code (`z.lazy` is `lazy`),
 * else the one the test file is named for (`lazy.test.ts`); undefined when neither is an identifier of 3 characters
 * or more. Which declaration bears the name is the ranking's to find (`describedOf`).
 */
export function titleSubject(title: string, relativePath: string): string | undefined {
  for (const match of title.matchAll(CODE_IN_TITLE)) {
    const [, dot, path, call] = match as unknown as [string, string, string, string | undefined];
    const last = path.slice(path.lastIndexOf('.') + 1);
    const code = dot !== '' || call !== undefined || path.includes('.') || /[a-z][A-Z]|[$_]/.test(path);
    if (code) return last.length >= 3 ? last : undefined;
  }
  const base = path.posix.basename(relativePath).replace(/\.(?:test|spec)\.[cm]?[jt]sx?$/i, '');
  return base !== path.posix.basename(relativePath) && /^[A-Za-z_$][\w$]{2,}$/.test(base) ? base : undefined;
}

/** The title of a test or suite call (`test("title", …)`, `describe.each(…)("title", …)` aside), and its callback. */
function testCall(node: ts.Node): { title: string; callback: ts.Expression | undefined } | undefined {
  if (!ts.isExpressionStatement(node)) return undefined;
  const call = unwrapped(node.expression);
  if (!ts.isCallExpression(call)) return undefined;
  const callee = calleePath(call.expression);
  if (callee === undefined || !TEST_CALLS.has(callee.split('.')[0] as string)) return undefined;
  const [first, ...rest] = call.arguments;
  if (!first || !(ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) return undefined;
  return { title: first.text, callback: rest.find((argument) => isFunctionValue(argument)) };
}

/** Comment blocks: runs of comments with no blank line between them. */
function commentBlocks(text: string, ranges: readonly ts.CommentRange[]): { start: number; end: number }[] {
  const blocks: { start: number; end: number }[] = [];
  for (const range of ranges) {
    const last = blocks[blocks.length - 1];
    if (last && !/\n[ \t]*\r?\n/.test(text.slice(last.end, range.pos))) last.end = range.end;
    else blocks.push({ start: range.pos, end: range.end });
  }
  return blocks;
}

/** Declarations (with their leading comments), detached comment blocks, and each file's loose top-level code. */
export function extractDocuments(relativePath: string, text: string, parsed?: ts.SourceFile): DocumentDraft[] {
  return extract(relativePath, text, parsed, undefined, false).drafts;
}

/**
 * What one top-level statement gives, its offsets counted from its full start. It depends on the statement's text
 * alone, besides whether it starts the file (where comments are read differently) and whether the file is a module,
 * so an open document's next version takes it as it is for every statement the user did not change.
 */
interface StatementPart {
  /** Whether it started the file. */
  atStart: boolean;
  /** Its declarations, their context field without the file's header. */
  drafts: DocumentDraft[];
  /** Comment blocks in it that belong to no declaration. */
  detached: DetachedComment[];
  /** When it declares nothing: its text with its comment, part of the file's "module" document. */
  loose: { start: number; text: string } | undefined;
  /** The extractions whose texts its strings are slices of: one, or more for a class put together from its members. */
  generations: readonly number[];
  /** A class's members, by their keys, for a later version that changes the class to take those it did not change. */
  members?: readonly (readonly [key: string, part: MemberPart])[];
  /** Its statement's text from its full start, a slice of the text it was read from: its key in a memo. */
  key: string;
}

/**
 * What one member of a top-level class gives, its offsets counted from the member's full start. Like a statement's
 * part, it depends on the member's text alone, besides the class's name (in the names and context of what it
 * declares) and whether the file is a module: its key holds both of the first, the memo the last.
 */
interface MemberPart {
  drafts: DocumentDraft[];
  detached: DetachedComment[];
  generation: number;
}

/**
 * A comment block that belongs to no declaration. What the index makes of it (its prose, and whether that says enough
 * to be a document) is read on first use and kept with the block: a statement's part keeps its blocks, so an open
 * document's next version reads only the comments of the statements the user changed.
 */
interface DetachedComment {
  start: number;
  end: number;
  prose?: string;
  /** Three terms or more: not a licence stamp, an `eslint-disable` or a separator. */
  informative?: boolean;
}

/** An open document's statements, and its top-level classes' members, as last extracted, by their text. */
export interface StatementMemo {
  generation: number;
  /** Whether the file was a module: top-level `await` parses differently in a script. */
  module: boolean;
  /** The text extracted. */
  text: string;
  parts: Map<string, StatementPart>;
  /**
   * The same parts by their statement's full start in `text`: the next version takes the statements wholly before
   * or after the one span it changed by their place, without reading (and hashing) the text of each.
   */
  at: Map<number, StatementPart>;
  members: Map<string, MemberPart>;
  /** How many of this version's statements were looked for by their text (those the changed span touches). */
  byText: number;
}

/**
 * Most extractions the parts of one memo come from, statements' and members' together. A part's strings are slices of
 * the text it was read from, which they keep alive: beyond this many, the parts of the extraction with the fewest are
 * read again from the current text. This bounds the versions of a file held at once. It costs the statement (or
 * member) typed in while the user works in a few places, and at most an eighth of the file's parts per version when
 * the edits go everywhere.
 */
const PART_GENERATIONS = 8;

/** A class's name as its members' drafts carry it. */
function className(node: ts.ClassDeclaration): string {
  return node.name?.text ?? 'default';
}

/** A draft moved `by` characters (from offsets counted in a statement or member to the file's, or back). */
function movedDraft(draft: DocumentDraft, by: number): DocumentDraft {
  return { ...draft, start: draft.start + by, end: draft.end + by, commentStart: draft.commentStart + by };
}

/** A comment block moved `by` characters (before anything is read of it: that is kept on a statement's part's own blocks). */
function movedBlock(block: DetachedComment, by: number): DetachedComment {
  return { start: block.start + by, end: block.end + by };
}

/**
 * Like `extractDocuments`, taking the statements unchanged since `earlier` from it; returns the memo for the next
 * version, and where the text differs from `earlier`'s when there was one.
 */
export function extractDocumentsReusing(relativePath: string, text: string, parsed: ts.SourceFile | undefined, earlier: StatementMemo | undefined): { drafts: DocumentDraft[]; imports: string[]; memo: StatementMemo; span?: ChangedSpan } {
  const { drafts, imports, memo, span } = extract(relativePath, text, parsed, earlier, true);
  return { drafts, imports, memo: memo as StatementMemo, ...(span ? { span } : {}) };
}

/** A file's documents, as `extractDocuments`, and the relative modules it imports or re-exports (`./x.js`), in order. */
export function extractFile(relativePath: string, text: string, parsed?: ts.SourceFile): { drafts: DocumentDraft[]; imports: string[] } {
  const { drafts, imports } = extract(relativePath, text, parsed, undefined, false);
  return { drafts, imports };
}

/** The module a top-level import, re-export or `import x = require()` names, when it is relative to the file. */
function relativeModuleOf(statement: ts.Statement): string | undefined {
  let specifier: ts.Expression | undefined;
  if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) specifier = statement.moduleSpecifier;
  else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) specifier = statement.moduleReference.expression;
  return specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.') ? specifier.text : undefined;
}

function extract(relativePath: string, text: string, parsed: ts.SourceFile | undefined, earlier: StatementMemo | undefined, remember: boolean): { drafts: DocumentDraft[]; imports: string[]; memo: StatementMemo | undefined; span?: ChangedSpan } {
  // No parent pointers: `visit` passes the parent itself, which saves a pass over every node. An open document's
  // parse comes from the code-action path's trees (`parsed`), which has them; nothing here reads them.
  const source = parsed ?? ts.createSourceFile(relativePath, text, ts.ScriptTarget.Latest, false, scriptKindOf(relativePath));
  const module = ts.isExternalModule(source);
  const generation = (earlier?.generation ?? 0) + 1;
  const reusable = earlier?.module === module ? earlier : undefined;
  const memo: StatementMemo | undefined = remember ? { generation, module, text, parts: new Map(), at: new Map(), members: new Map(), byText: 0 } : undefined;
  const seenComments = new Set<number>();
  const pathTerms = relativePath
    .replace(/\.[^./]+$/, '')
    .split(/[/.]/)
    .filter((segment) => !PATH_NOISE.has(segment.toLowerCase()))
    .join(' ');
  // The statement being read: what it declares, and its comments that belong to no declaration.
  let drafts: DocumentDraft[] = [];
  let detached: DetachedComment[] = [];
  const isTest = TEST_PATH.test(relativePath);

  /**
   * A test file's titles that name a declaration (`titleSubject`), each a comment document that describes it
   * (`delegate`): what the code is for, in its authors' words ("recursion with z.lazy"), which the ranking passes on
   * to that declaration. Suites are looked into for their tests; a suite's title is part of each test's.
   */
  const titles = (statement: ts.Node, suite: string, out: DocumentDraft[]): void => {
    const found = testCall(statement);
    if (!found) return;
    const title = suite ? `${suite} ${found.title}` : found.title;
    const callback = found.callback as ts.ArrowFunction | ts.FunctionExpression | undefined;
    if (callback && ts.isBlock(callback.body) && callback.body.statements.some((inner) => testCall(inner) !== undefined)) {
      for (const inner of callback.body.statements) titles(inner, title, out);
      return;
    }
    const subject = titleSubject(found.title, relativePath) ?? (suite ? titleSubject(suite, relativePath) : undefined);
    if (subject === undefined) return;
    const start = statement.getStart(source);
    const name = title.length > 60 ? `${title.slice(0, 57)}…` : title;
    out.push({ kind: 'comment', name, start, end: statement.getEnd(), commentStart: start, fields: ['', '', title, pathTerms, ''], delegate: subject });
  };

  /** The comment block directly above `node` (no blank line between); earlier blocks are detached comments. */
  const leading = (node: ts.Node): { start: number; text: string } | undefined => {
    const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
    const blocks = commentBlocks(text, ranges);
    const last = blocks[blocks.length - 1];
    const attached = last !== undefined && !/\n[ \t]*\r?\n/.test(text.slice(last.end, node.getStart(source)));
    for (const block of attached ? blocks.slice(0, -1) : blocks) {
      if (!seenComments.has(block.start)) {
        seenComments.add(block.start);
        detached.push(block);
      }
    }
    if (!last || !attached) return undefined;
    seenComments.add(last.start);
    return { start: last.start, text: commentProse(text.slice(last.start, last.end)) };
  };

  /**
   * The comment block directly above an interface's member, when it says enough (three terms or more). Unlike `leading`,
   * it leaves the member's other comments alone: they stay words of the interface's body, as before.
   */
  const memberComment = (node: ts.Node): { start: number; text: string } | undefined => {
    const last = commentBlocks(text, ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).at(-1);
    if (!last || /\n[ \t]*\r?\n/.test(text.slice(last.end, node.getStart(source)))) return undefined;
    const prose = commentProse(text.slice(last.start, last.end));
    return terms(prose).length >= 3 ? { start: last.start, text: prose } : undefined;
  };

  const add = (kind: LocationKind, name: string, node: ts.Node, anchor: ts.Node, signature: string, container: string | undefined, nameWords = name, delegate?: string): void => {
    const comment = leading(anchor);
    const start = node.getStart(source);
    const body = text.slice(start, Math.min(node.getEnd(), start + MAX_DOCUMENT_CHARS));
    drafts.push({
      kind,
      name: container ? `${container}.${name}` : name,
      start,
      end: node.getEnd(),
      commentStart: comment?.start ?? anchor.getStart(source),
      fields: [nameWords, signature.replace(/\s+/g, ' ').slice(0, MAX_SIGNATURE_CHARS), comment?.text ?? '', `${pathTerms} ${container ?? ''}`, body],
      ...(delegate !== undefined ? { delegate } : {}),
    });
  };

  const headerOf = (node: ts.Node, bodyStart: number | undefined): string => text.slice(node.getStart(source), bodyStart ?? node.getEnd());

  /** The object types type aliases are (`type Options = { … }`), whose members `visit` reads as an interface's. */
  const objectAliases = new Set<ts.Node>();

  const visit = (node: ts.Node, parent: ts.Node, container: string | undefined): void => {
    // A function's body declares something only where it has a word that starts a declaration; most have none, and
    // their nodes (most of a file's) need not be visited.
    if ((parent as { body?: ts.Node }).body === node && ts.isFunctionLike(parent) && !DECLARING_WORD.test(text.slice(node.pos, node.end))) return;
    let nextContainer = container;
    if (ts.isFunctionDeclaration(node)) {
      const name = node.name?.text ?? 'default';
      add('function', name, node, node, headerOf(node, node.body?.getStart(source)), container, name, delegateOfFunction(node));
      nextContainer = container ? `${container}.${name}` : name;
    } else if (ts.isClassDeclaration(node) || (ts.isClassExpression(node) && node.name)) {
      const name = node.name?.text ?? 'default';
      add('class', name, node, node, text.slice(node.getStart(source), node.members.pos), container);
      nextContainer = name;
    } else if (ts.isInterfaceDeclaration(node)) {
      add('interface', node.name.text, node, node, headerOf(node, undefined), container);
      nextContainer = node.name.text;
    } else if (ts.isTypeAliasDeclaration(node)) {
      add('type', node.name.text, node, node, headerOf(node, undefined), container);
      // An object type's members are the alias's, as an interface's are the interface's.
      if (ts.isTypeLiteralNode(node.type)) {
        objectAliases.add(node.type);
        nextContainer = node.name.text;
      }
    } else if (ts.isEnumDeclaration(node)) {
      add('enum', node.name.text, node, node, headerOf(node, undefined), container);
    } else if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name)) {
      add('namespace', node.name.text, node, node, headerOf(node, node.body?.getStart(source)), container);
      nextContainer = node.name.text;
    } else if ((ts.isInterfaceDeclaration(parent) || objectAliases.has(parent)) && container && (ts.isPropertySignature(node) || ts.isMethodSignature(node))) {
      // An interface's member (or an object type alias's) stays part of its type; one with a comment of its own is also
      // a document, its authors' words for what the option does, which the ranking passes on to the code that reads it
      // (`bm25f.ts`).
      const comment = memberComment(node);
      if (comment !== undefined) {
        const name = node.name.getText(source);
        const start = node.getStart(source);
        drafts.push({ kind: 'property', name: `${container}.${name}`, start, end: node.getEnd(), commentStart: comment.start, fields: [name, headerOf(node, undefined).replace(/\s+/g, ' ').slice(0, MAX_SIGNATURE_CHARS), comment.text, `${pathTerms} ${container}`, ''] });
      }
      return;
    } else if (ts.isClassLike(parent) && container) {
      // Class members.
      if (ts.isMethodDeclaration(node)) {
        const name = node.name.getText(source);
        add('method', name, node, node, headerOf(node, node.body?.getStart(source)), container, name, delegateOfFunction(node));
      }
      else if (ts.isConstructorDeclaration(node)) add('constructor', 'constructor', node, node, headerOf(node, node.body?.getStart(source)), container, container);
      else if (ts.isGetAccessorDeclaration(node)) add('getter', node.name.getText(source), node, node, headerOf(node, node.body?.getStart(source)), container);
      else if (ts.isSetAccessorDeclaration(node)) add('setter', node.name.getText(source), node, node, headerOf(node, node.body?.getStart(source)), container);
      else if (ts.isPropertyDeclaration(node)) {
        const fn = isFunctionValue(node.initializer);
        const name = node.name.getText(source);
        add(fn ? 'method' : 'property', name, node, node, fn ? headerOf(node, (node.initializer as ts.ArrowFunction).body.getStart(source)) : headerOf(node, undefined), container, name, fn ? delegateOfFunction(node.initializer as ts.ArrowFunction) : undefined);
      }
    } else if (ts.isVariableStatement(node) && (ts.isSourceFile(parent) || ts.isModuleBlock(parent))) {
      const single = node.declarationList.declarations.length === 1;
      for (const declaration of node.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const fn = isFunctionValue(declaration.initializer);
        const span = single ? node : declaration;
        const signature = fn ? text.slice(span.getStart(source), (declaration.initializer as ts.ArrowFunction).body.getStart(source)) : text.slice(span.getStart(source), Math.min(span.getEnd(), span.getStart(source) + 200));
        const delegate = fn ? delegateOfFunction(declaration.initializer as ts.ArrowFunction) : delegateOfValue(declaration.name.text, declaration.initializer);
        add(fn ? 'function' : 'variable', declaration.name.text, span, single ? node : declaration, signature, container, declaration.name.text, delegate);
      }
      return;
    }
    ts.forEachChild(node, (child) => visit(child, node, nextContainer));
  };

  /** Reads one top-level statement; offsets in what it returns count from the statement's full start. */
  const read = (statement: ts.Statement): StatementPart => {
    const at = statement.pos;
    drafts = [];
    detached = [];
    let loose: StatementPart['loose'];
    visit(statement, source, undefined);
    if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)) {
      // A comment above an import is about the file, not the import: every block there is detached.
      for (const block of commentBlocks(text, ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [])) {
        if (!seenComments.has(block.start)) {
          seenComments.add(block.start);
          detached.push(block);
        }
      }
    } else if (drafts.length === 0) {
      // Top-level code outside declarations (test suites, scripts, entry points) joins the file's "module" document.
      const comment = leading(statement);
      loose = { start: (comment?.start ?? statement.getStart(source)) - at, text: `${comment?.text ?? ''}\n${text.slice(statement.getStart(source), statement.getEnd())}` };
    }
    if (isTest) titles(statement, '', drafts);
    for (const draft of drafts) {
      draft.start -= at;
      draft.end -= at;
      draft.commentStart -= at;
    }
    return { atStart: at === 0, drafts, detached: detached.map((block) => movedBlock(block, -at)), loose, generations: [generation], key: text.slice(at, statement.end) };
  };

  /** A member's part: what visiting it gives, its offsets counted from its full start. */
  const readMember = (member: ts.ClassElement, statement: ts.ClassDeclaration, name: string): MemberPart => {
    const outer = [drafts, detached] as const;
    drafts = [];
    detached = [];
    visit(member, statement, name);
    const at = member.pos;
    const part: MemberPart = { drafts: drafts.map((draft) => movedDraft(draft, -at)), detached: detached.map((block) => movedBlock(block, -at)), generation };
    [drafts, detached] = outer;
    return part;
  };

  /**
   * Reads a top-level class as `read` does, taking the part of each member from `members` where it has one (the
   * members the user did not change), so that typing in a method reads that method again rather than the class.
   */
  const readClass = (statement: ts.ClassDeclaration, members: readonly (MemberPart | undefined)[], keys: readonly string[]): StatementPart => {
    const at = statement.pos;
    drafts = [];
    detached = [];
    const name = className(statement);
    add('class', name, statement, statement, text.slice(statement.getStart(source), statement.members.pos), undefined);
    const made = new Set([generation]);
    const kept: [string, MemberPart][] = [];
    // In `visit`'s order: modifiers, name, type parameters and heritage clauses as they are, then the members.
    ts.forEachChild(
      statement,
      (child) => visit(child, statement, name),
      (nodes) => {
        if (nodes !== statement.members) {
          for (const node of nodes) visit(node, statement, name);
          return;
        }
        statement.members.forEach((member, i) => {
          const part = members[i] ?? readMember(member, statement, name);
          made.add(part.generation);
          kept.push([keys[i] as string, part]);
          for (const draft of part.drafts) drafts.push(movedDraft(draft, member.pos));
          for (const block of part.detached) detached.push(movedBlock(block, member.pos));
        });
      },
    );
    for (const draft of drafts) {
      draft.start -= at;
      draft.end -= at;
      draft.commentStart -= at;
    }
    return { atStart: at === 0, drafts, detached: detached.map((block) => movedBlock(block, -at)), loose: undefined, generations: [...made], members: kept, key: text.slice(at, statement.end) };
  };

  const declared: DocumentDraft[] = [];
  // Each detached block with the offset its offsets count from: the parts' own blocks, so that what is read of them stays.
  const comments: { block: DetachedComment; at: number }[] = [];
  const loose: string[] = [];
  let looseStart: number | undefined;
  const statements = source.statements;
  // A statement wholly before the span this version changed, or wholly after it, is the earlier version's at the same
  // place (or moved by the change) with the same length; the others are looked for by their text.
  const span = reusable ? changedSpan(reusable.text, text) : undefined;
  const taken = statements.map((statement) => {
    let part: StatementPart | undefined;
    if (span && reusable) {
      const earlierAt = statement.end <= span.start ? statement.pos : statement.pos >= span.afterEnd ? statement.pos - (span.afterEnd - span.beforeEnd) : undefined;
      const there = earlierAt === undefined ? undefined : reusable.at.get(earlierAt);
      if (there?.key.length === statement.end - statement.pos) part = there;
      else {
        part = reusable.parts.get(text.slice(statement.pos, statement.end));
        if (memo) memo.byText += 1;
      }
    }
    return part?.atStart === (statement.pos === 0) ? part : undefined;
  });
  // The members of a top-level class that is read again, by their text and their class's name, with the parts the last
  // version has for them; none for another statement, or without a memo.
  const membersOf = (statement: ts.Statement) => {
    if (!memo || !ts.isClassDeclaration(statement)) return undefined;
    const keys = statement.members.map((member) => `${className(statement)}\n${text.slice(member.pos, member.end)}`);
    return { keys, parts: keys.map((key) => reusable?.members.get(key)) };
  };
  const members = statements.map((statement, i) => (taken[i] === undefined ? membersOf(statement) : undefined));
  const live = new Map<number, number>();
  const count = (made: number): void => void live.set(made, (live.get(made) ?? 0) + 1);
  for (const part of taken) for (const made of part?.generations ?? []) count(made);
  for (const found of members) for (const part of found?.parts ?? []) if (part) count(part.generation);
  if (live.size + (taken.includes(undefined) ? 1 : 0) > PART_GENERATIONS) {
    const release = new Set(
      [...live]
        .sort((a, b) => a[1] - b[1] || a[0] - b[0])
        .slice(0, live.size + 1 - PART_GENERATIONS)
        .map(([made]) => made),
    );
    taken.forEach((part, i) => {
      if (!part?.generations.some((made) => release.has(made))) return;
      taken[i] = undefined;
      // A class taken whole until now is put together from its members after all.
      members[i] = membersOf(statements[i] as ts.Statement);
    });
    for (const found of members) found?.parts.forEach((part, j) => {
      if (part && release.has(part.generation)) found.parts[j] = undefined;
    });
  }
  const imports: string[] = [];
  statements.forEach((statement, i) => {
    const imported = relativeModuleOf(statement);
    if (imported !== undefined && !imports.includes(imported)) imports.push(imported);
    const at = statement.pos;
    const found = members[i];
    const part = taken[i] ?? (found ? readClass(statement as ts.ClassDeclaration, found.parts, found.keys) : read(statement));
    memo?.parts.set(part.key, part);
    memo?.at.set(at, part);
    for (const [key, member] of part.members ?? []) memo?.members.set(key, member);
    for (const draft of part.drafts) declared.push(movedDraft(draft, at));
    for (const block of part.detached) comments.push({ block, at });
    if (part.loose) {
      loose.push(part.loose.text);
      looseStart ??= part.loose.start + at;
    }
  });
  for (const block of commentBlocks(text, ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()) ?? [])) {
    if (!seenComments.has(block.start)) comments.push({ block, at: 0 });
  }
  const proseOf = ({ block, at }: { block: DetachedComment; at: number }): string => (block.prose ??= commentProse(text.slice(block.start + at, block.end + at)));

  // The file's header comment says what the whole file is for: every document of the file gets it as context. (The
  // drafts are copies, with fields of their own: the parts' drafts stay as they were read.)
  const firstStatement = source.statements[0];
  const header = comments.find(({ block, at }) => firstStatement === undefined || block.end + at <= firstStatement.getStart(source));
  const headerText = header ? proseOf(header) : '';
  for (const draft of declared) draft.fields = [draft.fields[0], draft.fields[1], draft.fields[2], `${draft.fields[3]} ${headerText}`, draft.fields[4]];

  for (const comment of comments) {
    const prose = proseOf(comment);
    if (!(comment.block.informative ??= terms(prose).length >= 3)) continue; // licence stamps, `// eslint-disable`, separators
    const firstLine = prose.split('\n')[0] ?? '';
    const start = comment.block.start + comment.at;
    const end = comment.block.end + comment.at;
    declared.push({ kind: 'comment', name: firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine, start, end, commentStart: start, fields: ['', '', prose, pathTerms, ''] });
  }
  const looseText = loose.join('\n').slice(0, MAX_DOCUMENT_CHARS);
  if (looseStart !== undefined && terms(looseText).length >= 3) {
    const base = path.posix.basename(relativePath);
    declared.push({ kind: 'module', name: base, start: looseStart, end: text.length, commentStart: looseStart, fields: [base.replace(/\.[^.]+$/, ''), '', headerText, pathTerms, looseText] });
  }
  return { drafts: declared, imports, memo, ...(span ? { span } : {}) };
}
