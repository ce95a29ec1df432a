// What the class scenario reads from a class with the compiler API: its uses of other files, its removal from its file, its detailed and sketchy descriptions, and a generated class put back in its place.
import path from 'node:path';
import { ts } from 'ts-morph';

/** A parse of a file with parent pointers, as every helper here needs. */
export function parseSource(fileName: string, text: string): ts.SourceFile {
  const kind = /\.[cm]?jsx?$/i.test(fileName) ? (/x$/i.test(fileName) ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : /x$/i.test(fileName) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
}

/** The named classes declared at the top level of a file (ambient `declare class` left out). */
export function topLevelClasses(source: ts.SourceFile): ts.ClassDeclaration[] {
  return source.statements.filter((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name !== undefined && !hasModifier(s, ts.SyntaxKind.DeclareKeyword));
}

/** The top-level class of that name, if the file declares one. */
export function classNamed(source: ts.SourceFile, name: string): ts.ClassDeclaration | undefined {
  return topLevelClasses(source).find((c) => c.name?.text === name);
}

/** Local names bound by imports from relative specifiers (`./x.js`, `../y`): what the file takes from the rest of the repository. */
export function relativeImportNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || !/^\.\.?\//.test(statement.moduleSpecifier.text)) continue;
    for (const binding of importBindings(statement)) names.add(binding);
  }
  return names;
}

/** The names of `names` that `node` refers to (property names, member names and declared names are not references). */
export function namesUsedIn(node: ts.Node, names: ReadonlySet<string>): Set<string> {
  const used = new Set<string>();
  const visit = (child: ts.Node): void => {
    if (ts.isIdentifier(child) && names.has(child.text) && isReference(child)) used.add(child.text);
    ts.forEachChild(child, visit);
  };
  visit(node);
  return used;
}

/** Whether an identifier names something in scope rather than a property or the thing being declared. */
function isReference(id: ts.Identifier): boolean {
  const parent = id.parent;
  if (!parent) return true;
  if ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && (ts.isPropertyAccessExpression(parent) ? parent.name : parent.right) === id) return false;
  const declared = (parent as ts.NamedDeclaration).name === id;
  if (declared && (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodSignature(parent) || ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent) || ts.isParameter(parent) || ts.isVariableDeclaration(parent) || ts.isBindingElement(parent) || ts.isTypeParameterDeclaration(parent) || ts.isEnumMember(parent))) return false;
  return true;
}

function importBindings(statement: ts.ImportDeclaration): string[] {
  const clause = statement.importClause;
  if (!clause) return [];
  const out: string[] = [];
  if (clause.name) out.push(clause.name.text);
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) out.push(bindings.name.text);
  else if (bindings) out.push(...bindings.elements.map((e) => e.name.text));
  return out;
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []).some((m) => m.kind === kind) : false;
}

// ---------------------------------------------------------------------------------------------------------------
// Removal

/** A file with one class taken out, and what it takes to put a class back exactly where it was. */
export interface Removal {
  /** The file without the class and without the imports only the class used. */
  text: string;
  /** Where the class's lines were, in `text`. */
  insertAt: number;
  /** Blank lines removed with the class, before and after its lines, given back when a class is put in its place. */
  before: string;
  after: string;
  /** The import bindings removed with the class (used by nothing else in the file). */
  removedImports: string[];
  /** Whether anything but imports and comments is left in the file. */
  hasOtherCode: boolean;
}

/** The start of the line holding `offset` when only blanks precede it there, else `offset`. */
function lineStartBefore(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i === 0 || text[i - 1] === '\n' ? i : offset;
}

/** Past the line break ending the line at `offset` when only blanks follow there, else `offset`. */
function lineEndAfter(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  if (i === text.length) return i;
  return text[i] === '\n' ? i + 1 : offset;
}

/** A statement's whole lines: from its doc comment (or its first token) to the end of its last line. */
export function statementLines(source: ts.SourceFile, node: ts.Node): { start: number; end: number } {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const first = docs[0] ? docs[0].getStart(source) : node.getStart(source);
  return { start: lineStartBefore(source.text, first), end: lineEndAfter(source.text, node.getEnd()) };
}

/**
 * The file without the class (its doc comment included) and without the import bindings only the class used, as
 * RepoClassBench removes a class "along with its associated imports". Bindings used elsewhere in the file, unused
 * ones and side-effect imports stay.
 */
export function removeClass(source: ts.SourceFile, cls: ts.ClassDeclaration): Removal {
  const text = source.text;
  const lines = statementLines(source, cls);
  let start = lines.start;
  let end = lines.end;
  // One blank line left where two meet.
  const blankAfter = /^[ \t]*\r?\n/.exec(text.slice(end))?.[0];
  if (blankAfter && (start === 0 || /\n[ \t]*\r?\n$/.test(text.slice(0, start)))) end += blankAfter.length;
  else if (end === text.length && /\n[ \t]*\r?\n$/.test(text.slice(0, start))) start = text.slice(0, start).replace(/[ \t]*\r?\n$/, '').length;
  const before = text.slice(start, lines.start);
  const after = text.slice(lines.end, end);

  const all = source.statements.filter((s) => ts.isImportDeclaration(s)).flatMap((s) => importBindings(s as ts.ImportDeclaration));
  const inClass = namesUsedIn(cls, new Set(all));
  const elsewhere = new Set<string>();
  for (const statement of source.statements) {
    if (statement === cls || ts.isImportDeclaration(statement)) continue;
    for (const name of namesUsedIn(statement, inClass)) elsewhere.add(name);
  }
  const drop = new Set([...inClass].filter((name) => !elsewhere.has(name)));

  const edits: Array<{ start: number; end: number; newText: string }> = [{ start, end, newText: '' }];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !statement.importClause) continue;
    const bindings = importBindings(statement);
    if (!bindings.some((b) => drop.has(b))) continue;
    const kept = keptImport(source, statement, drop);
    if (kept === undefined) {
      const whole = statementLines(source, statement);
      edits.push({ start: whole.start, end: whole.end, newText: '' });
    } else edits.push({ start: statement.getStart(source), end: statement.getEnd(), newText: kept });
  }
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  let insertAt = 0;
  for (const edit of edits) {
    out += text.slice(at, edit.start);
    if (edit.start === start) insertAt = out.length;
    out += edit.newText;
    at = edit.end;
  }
  out += text.slice(at);
  const rest = parseSource(source.fileName, out);
  return {
    text: out,
    insertAt,
    before,
    after,
    removedImports: [...drop].sort(),
    hasOtherCode: rest.statements.some((s) => !ts.isImportDeclaration(s) && !ts.isEmptyStatement(s)),
  };
}

/** An import statement without the dropped bindings, or undefined when none is left. */
function keptImport(source: ts.SourceFile, statement: ts.ImportDeclaration, drop: ReadonlySet<string>): string | undefined {
  const clause = statement.importClause as ts.ImportClause;
  const parts: string[] = [];
  if (clause.name && !drop.has(clause.name.text)) parts.push(clause.name.text);
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings) && !drop.has(bindings.name.text)) parts.push(`* as ${bindings.name.text}`);
  if (bindings && ts.isNamedImports(bindings)) {
    const elements = bindings.elements.filter((e) => !drop.has(e.name.text)).map((e) => e.getText(source));
    if (elements.length > 0) parts.push(`{ ${elements.join(', ')} }`);
  }
  if (parts.length === 0) return undefined;
  const attributes = statement.attributes ? ` ${statement.attributes.getText(source)}` : '';
  return `import ${clause.isTypeOnly ? 'type ' : ''}${parts.join(', ')} from ${statement.moduleSpecifier.getText(source)}${attributes};`;
}

// ---------------------------------------------------------------------------------------------------------------
// Metadata and descriptions

export interface MemberFacts {
  kind: 'constructor' | 'property' | 'method' | 'getter' | 'setter';
  name: string;
  /** The member as declared, without its body: `add(product: Product, quantity?: number): void`. */
  signature: string;
  /** The first sentence of its doc comment ('' without one). */
  summary: string;
}

/** A class's metadata, as RepoClassBench records it (Table 17), read with the compiler API. */
export interface ClassFacts {
  name: string;
  exported: 'named' | 'default' | 'no';
  abstract: boolean;
  typeParameters: string;
  decorators: string[];
  extends: string[];
  implements: string[];
  /** The doc comment's text without its tags ('' without one). */
  doc: string;
  /** Its first sentence. */
  summary: string;
  /** The public members, in declaration order. */
  members: MemberFacts[];
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text of a node's doc comment, without tags, on one line. */
function docOf(node: ts.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const doc = docs[docs.length - 1];
  return doc ? squash(ts.getTextOfJSDocComment(doc.comment) ?? '') : '';
}

/** The first sentence of a text: up to a stop followed by a capital letter or the end, never an "e.g." (all of it without one). */
export function firstSentence(text: string): string {
  return /^(.*?(?<!\b(?:e\.g|i\.e|etc|vs|cf))[.!?])(?=\s+[A-Z]|\s*$)/.exec(text)?.[1] ?? text;
}

/**
 * The facts of a class: its header (export, heritage, type parameters, decorators), its doc comment, and its public
 * members with their signatures (declared types, else the checker's inferred ones when a checker is given) and doc
 * summaries. Private, protected and `#private` members are left out; public constructor parameter properties are
 * members too.
 */
export function classFacts(source: ts.SourceFile, cls: ts.ClassDeclaration, checker?: ts.TypeChecker): ClassFacts {
  const typeOf = (node: ts.Node, annotation: ts.TypeNode | undefined): string | undefined => {
    if (annotation) return squash(annotation.getText(source));
    if (!checker) return undefined;
    try {
      return checker.typeToString(checker.getTypeAtLocation(node), undefined, ts.TypeFormatFlags.NoTruncation);
    } catch {
      return undefined;
    }
  };
  const returnOf = (node: ts.SignatureDeclaration): string | undefined => {
    if (node.type) return squash(node.type.getText(source));
    if (!checker) return undefined;
    try {
      const signature = checker.getSignatureFromDeclaration(node);
      return signature ? checker.typeToString(checker.getReturnTypeOfSignature(signature), undefined, ts.TypeFormatFlags.NoTruncation) : undefined;
    } catch {
      return undefined;
    }
  };
  const typed = (text: string, type: string | undefined): string => (type ? `${text}: ${type}` : text);
  const parameters = (node: ts.SignatureDeclaration): string =>
    node.parameters
      .filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'))
      .map((p) => typed(`${p.dotDotDotToken ? '...' : ''}${p.name.getText(source)}${p.questionToken || p.initializer ? '?' : ''}`, typeOf(p, p.type)))
      .join(', ');
  const typeParameters = (node: ts.ClassDeclaration | ts.MethodDeclaration): string => (node.typeParameters?.length ? `<${node.typeParameters.map((t) => squash(t.getText(source))).join(', ')}>` : '');
  const isPublic = (node: ts.Node): boolean => {
    const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
    const name = (node as ts.NamedDeclaration).name;
    return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !(name && ts.isPrivateIdentifier(name));
  };
  const prefix = (node: ts.Node): string => {
    const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
    return `${flags & ts.ModifierFlags.Abstract ? 'abstract ' : ''}${flags & ts.ModifierFlags.Static ? 'static ' : ''}${flags & ts.ModifierFlags.Async ? 'async ' : ''}${flags & ts.ModifierFlags.Readonly ? 'readonly ' : ''}`;
  };

  const members: MemberFacts[] = [];
  const overloaded = new Set(cls.members.filter((m) => (ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m)) && !m.body).map((m) => (ts.isConstructorDeclaration(m) ? 'constructor' : (m.name?.getText(source) ?? ''))));
  for (const member of cls.members) {
    if (!isPublic(member)) continue;
    const summary = firstSentence(docOf(member));
    if (ts.isConstructorDeclaration(member)) {
      // The implementation of overloads is not callable from outside.
      if (member.body && overloaded.has('constructor')) continue;
      members.push({ kind: 'constructor', name: 'constructor', signature: `constructor(${parameters(member)})`, summary });
      for (const parameter of member.parameters) {
        if (!ts.isParameterPropertyDeclaration(parameter, member) || !isPublic(parameter) || !ts.isIdentifier(parameter.name)) continue;
        members.push({ kind: 'property', name: parameter.name.text, signature: typed(`${prefix(parameter)}${parameter.name.text}`, typeOf(parameter, parameter.type)), summary: '' });
      }
      continue;
    }
    const name = member.name?.getText(source);
    if (!name) continue;
    if (ts.isMethodDeclaration(member)) {
      if (member.body && overloaded.has(name)) continue;
      const returns = returnOf(member);
      members.push({ kind: 'method', name, signature: `${prefix(member)}${name}${member.questionToken ? '?' : ''}${typeParameters(member)}(${parameters(member)})${returns ? `: ${returns}` : ''}`, summary });
    } else if (ts.isPropertyDeclaration(member)) {
      members.push({ kind: 'property', name, signature: typed(`${prefix(member)}${name}${member.questionToken ? '?' : ''}`, typeOf(member.name, member.type)), summary });
    } else if (ts.isGetAccessorDeclaration(member)) {
      const returns = returnOf(member);
      members.push({ kind: 'getter', name, signature: `${prefix(member)}get ${name}()${returns ? `: ${returns}` : ''}`, summary });
    } else if (ts.isSetAccessorDeclaration(member)) {
      members.push({ kind: 'setter', name, signature: `${prefix(member)}set ${name}(${parameters(member)})`, summary });
    }
  }

  const heritage = (token: ts.SyntaxKind): string[] => (cls.heritageClauses ?? []).filter((h) => h.token === token).flatMap((h) => h.types.map((t) => squash(t.getText(source))));
  const doc = docOf(cls);
  const flags = ts.getCombinedModifierFlags(cls);
  return {
    name: cls.name?.text ?? 'default',
    exported: flags & ts.ModifierFlags.Export ? (flags & ts.ModifierFlags.Default ? 'default' : 'named') : 'no',
    abstract: (flags & ts.ModifierFlags.Abstract) !== 0,
    typeParameters: typeParameters(cls),
    decorators: (ts.canHaveDecorators(cls) ? (ts.getDecorators(cls) ?? []) : []).map((d) => `@${squash(d.expression.getText(source))}`),
    extends: heritage(ts.SyntaxKind.ExtendsKeyword),
    implements: heritage(ts.SyntaxKind.ImplementsKeyword),
    doc,
    summary: firstSentence(doc),
    members,
  };
}

const quoted = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');

function exportWords(facts: ClassFacts): string {
  return facts.exported === 'named' ? 'It is exported.' : facts.exported === 'default' ? 'It is the default export of its file.' : 'It is not exported.';
}

/**
 * The detailed description: the name, the header (abstract, type parameters, decorators, heritage, export), the doc
 * comment, and every public member with its signature and doc summary.
 */
export function detailedDescription(facts: ClassFacts): string {
  const header = [
    `Write ${facts.abstract ? 'an abstract' : 'a'} class named \`${facts.name}\``,
    facts.typeParameters ? ` with the type parameters \`${facts.typeParameters}\`` : '',
    facts.decorators.length > 0 ? `, decorated with ${quoted(facts.decorators)}` : '',
    facts.extends.length > 0 ? `, extending ${quoted(facts.extends)}` : '',
    facts.implements.length > 0 ? `${facts.extends.length > 0 ? ' and' : ','} implementing ${quoted(facts.implements)}` : '',
    '.',
  ].join('');
  const lines = [`${header} ${exportWords(facts)}`];
  if (facts.doc) lines.push(facts.doc);
  if (facts.members.length > 0) {
    lines.push('', 'Its public members:');
    for (const member of facts.members) lines.push(`- \`${member.signature}\`${member.summary ? `: ${member.summary}` : ''}`);
  } else lines.push('', 'It has no public members.');
  return lines.join('\n');
}

/** The sketchy description: the name, the doc summary and the public members' names, no signatures. */
export function sketchyDescription(facts: ClassFacts): string {
  const names = [...new Set(facts.members.map((m) => m.name))];
  const lines = [`Write a class named \`${facts.name}\`. ${exportWords(facts)}${facts.summary ? ` ${facts.summary}` : ''}`];
  lines.push(names.length > 0 ? `Its public members: ${names.join(', ')}.` : 'It has no public members.');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Putting a generated class back

export interface Reinsertion {
  /** The class's file with the generated class in place of the original. */
  text: string;
  /** Import statements of the generated file the file lacked, as added (specifiers relative to the class's file). */
  addedImports: string[];
  /** Top-level declarations of the generated file the class uses, put before it (names). */
  helpers: string[];
}

/** Top-level names a file binds: its imports and declarations. */
function boundNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) for (const name of importBindings(statement)) names.add(name);
    for (const name of declaredNames(statement)) names.add(name);
  }
  return names;
}

function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) && statement.name && ts.isIdentifier(statement.name)) return [statement.name.text];
  return [];
}

/** A specifier of `fromFile` (workspace-relative) rebased for `toFile`; bare specifiers stay. */
function rebase(specifier: string, fromFile: string, toFile: string): string {
  if (!/^\.\.?\//.test(specifier)) return specifier;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  const relative = path.posix.relative(path.posix.dirname(toFile), target);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

const stem = (file: string): string => file.replace(/\.[cm]?[jt]sx?$/i, '');

/**
 * The class `className` of a generated file put in place of the original in the class's file: the class (with its doc
 * comment), preceded by the generated file's top-level declarations it uses that the file does not declare, and the
 * generated file's import bindings the file lacks added after its imports, their relative specifiers rebased onto the
 * class's file (imports of the class's own file are dropped). Undefined when the generated file has no such class.
 */
export function reinsertClass(
  target: { file: string; removal: Pick<Removal, 'text' | 'insertAt' | 'before' | 'after'> },
  generated: { file: string; text: string },
  className: string,
): Reinsertion | undefined {
  const source = parseSource(generated.file, generated.text);
  const cls = classNamed(source, className);
  if (!cls) return undefined;
  const base = parseSource(target.file, target.removal.text);
  const bound = boundNames(base);

  // Helpers: declarations the class refers to, and those they refer to in turn.
  const candidates = source.statements.filter((s) => s !== cls && !ts.isImportDeclaration(s) && declaredNames(s).some((n) => !bound.has(n)));
  const names = new Set(candidates.flatMap(declaredNames));
  const wanted = new Set(namesUsedIn(cls, names));
  for (let grew = true; grew; ) {
    grew = false;
    for (const candidate of candidates) {
      if (!declaredNames(candidate).some((n) => wanted.has(n))) continue;
      for (const name of namesUsedIn(candidate, names)) {
        if (wanted.has(name)) continue;
        wanted.add(name);
        grew = true;
      }
    }
  }
  const helpers = candidates.filter((s) => declaredNames(s).some((n) => wanted.has(n)));
  const textOf = (node: ts.Node): string => {
    const lines = statementLines(source, node);
    return source.text.slice(lines.start, node.getEnd()).replace(/^[ \t]+/, '');
  };

  const added: string[] = [];
  const specifiers = new Set(base.statements.filter(ts.isImportDeclaration).map((s) => (ts.isStringLiteral(s.moduleSpecifier) ? s.moduleSpecifier.text : '')));
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = rebase(statement.moduleSpecifier.text, generated.file, target.file);
    if (/^\.\.?\//.test(specifier) && stem(path.posix.normalize(path.posix.join(path.posix.dirname(target.file), specifier))) === stem(target.file)) continue;
    const quote = statement.moduleSpecifier.getText(source)[0] === '"' ? '"' : "'";
    const clause = statement.importClause;
    if (!clause) {
      if (!specifiers.has(specifier)) added.push(`import ${quote}${specifier}${quote};`);
      continue;
    }
    const parts: string[] = [];
    const fresh = (name: string): boolean => !bound.has(name) && (bound.add(name), true);
    if (clause.name && fresh(clause.name.text)) parts.push(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && fresh(bindings.name.text)) parts.push(`* as ${bindings.name.text}`);
    if (bindings && ts.isNamedImports(bindings)) {
      const elements = bindings.elements.filter((e) => fresh(e.name.text)).map((e) => e.getText(source));
      if (elements.length > 0) parts.push(`{ ${elements.join(', ')} }`);
    }
    if (parts.length > 0) added.push(`import ${clause.isTypeOnly ? 'type ' : ''}${parts.join(', ')} from ${quote}${specifier}${quote};`);
  }

  const { text, insertAt, before, after } = target.removal;
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const block = `${before}${[...helpers.map(textOf), textOf(cls)].join(`${nl}${nl}`)}${nl}${after}`;
  const imports = base.statements.filter(ts.isImportDeclaration);
  const lastImport = imports[imports.length - 1];
  const importAt = lastImport ? lineEndAfter(text, lastImport.getEnd()) : insertAt <= firstCodeOffset(base) ? insertAt : firstCodeOffset(base);
  // A blank line after new imports when they start the file's imports, unless the class block brings its own.
  const blank = lastImport || (importAt === insertAt && before !== '') ? '' : nl;
  const importBlock = added.length > 0 ? `${lastImport && !text.slice(0, importAt).endsWith('\n') ? nl : ''}${added.join(nl)}${nl}${blank}` : '';
  const merged = importAt <= insertAt ? `${text.slice(0, importAt)}${importBlock}${text.slice(importAt, insertAt)}${block}${text.slice(insertAt)}` : `${text.slice(0, insertAt)}${block}${text.slice(insertAt, importAt)}${importBlock}${text.slice(importAt)}`;
  return { text: merged, addedImports: added, helpers: helpers.flatMap(declaredNames) };
}

/** Where a file's first statement's line starts (after its header comments), or its end. */
function firstCodeOffset(source: ts.SourceFile): number {
  const first = source.statements[0];
  return first ? statementLines(source, first).start : source.text.length;
}
