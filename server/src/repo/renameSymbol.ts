// Rename over the workspace's TypeScript project: the symbol at a place, its rename locations in every file, and checks of a new name.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Project } from 'ts-morph';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import { loadWorkspaceFiles } from '../workspace/workspaceProject.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import type { DocumentEditPlan, OffsetEdit } from '../edits/textEdits.js';
import type { Proposal } from '../edits/proposal.js';

/** What a name is, for its naming convention. */
export type NameCategory = 'type' | 'type-parameter' | 'enum-member' | 'namespace' | 'function' | 'method' | 'property' | 'variable' | 'parameter' | 'other';

export type NamingStyle = 'camelCase' | 'PascalCase' | 'UPPER_CASE' | 'snake_case' | 'mixed';

/** The place a rename starts from: the declaration's name when the target has one, else the target itself. */
export interface RenameAnchorSource {
  start: number;
  end: number;
  declaration?: { nameStart: number; nameEnd: number };
}

export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Workspace files loaded for a rename at most; a larger project is renamed within its first files (a message says so). */

/** The offset of the name a target renames. */
export function renameAnchor(target: RenameAnchorSource): { start: number; end: number } {
  return target.declaration ? { start: target.declaration.nameStart, end: target.declaration.nameEnd } : { start: target.start, end: target.end };
}

// ---------------------------------------------------------------------------------------------
// Names, without a program

/** Reserved words (and strict-mode and module reserved words), read from the compiler so they follow its version. */
const RESERVED: ReadonlySet<string> = (() => {
  const words = new Set<string>(['await']);
  for (let kind = ts.SyntaxKind.FirstReservedWord; kind <= ts.SyntaxKind.LastFutureReservedWord; kind++) {
    const text = ts.tokenToString(kind);
    if (text && /^[a-z]+$/.test(text)) words.add(text);
  }
  return words;
})();

/** Names a class, interface, type or enum cannot take, because the type checker reserves them. */
const PREDEFINED_TYPES = new Set(['any', 'unknown', 'never', 'number', 'bigint', 'boolean', 'string', 'symbol', 'object', 'undefined', 'intrinsic']);

/** Whether the text is one identifier (Unicode letters, `$`, `_`, escapes excluded), as ECMAScript defines it. */
export function isIdentifierName(name: string): boolean {
  if (name.length === 0) return false;
  let first = true;
  for (const char of name) {
    const code = char.codePointAt(0) as number;
    const ok = first ? ts.isIdentifierStart(code, ts.ScriptTarget.Latest) : ts.isIdentifierPart(code, ts.ScriptTarget.Latest);
    if (!ok) return false;
    first = false;
  }
  return true;
}

export function isReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

/** A name without the decoration conventions do not judge: `#`, leading and trailing `_` or `$`. */
function bare(name: string): string {
  return name.replace(/^[#_$]+/, '').replace(/[_$]+$/, '');
}

/** The one convention a name follows, or undefined when it has no cased letters (CJK names, `_`, `$`). */
export function styleOf(name: string): NamingStyle | undefined {
  const core = bare(name);
  const hasLower = /\p{Ll}/u.test(core);
  const hasUpper = /\p{Lu}/u.test(core);
  if (!hasLower && !hasUpper) return undefined;
  if (core.includes('_')) return hasLower && hasUpper ? 'mixed' : hasLower ? 'snake_case' : 'UPPER_CASE';
  if (!hasLower) return [...core].length > 1 ? 'UPPER_CASE' : 'PascalCase';
  return /^\p{Lu}/u.test(core) ? 'PascalCase' : 'camelCase';
}

/** Every convention a name is compatible with: `total` is camelCase and snake_case, `URL` is UPPER_CASE and PascalCase. */
export function stylesOf(name: string): NamingStyle[] | undefined {
  const style = styleOf(name);
  if (!style) return undefined;
  const core = bare(name);
  if (style === 'camelCase' && !/\p{Lu}/u.test(core)) return ['camelCase', 'snake_case'];
  if (style === 'UPPER_CASE' && !core.includes('_')) return ['UPPER_CASE', 'PascalCase'];
  if (style === 'PascalCase' && [...core].length === 1) return ['PascalCase', 'UPPER_CASE'];
  return [style];
}

/** The words of an identifier: `clampAllValues` → clamp, All, Values; `MAX_SIZE` → MAX, SIZE. */
function words(name: string): string[] {
  return bare(name)
    .split(/_+/)
    .flatMap((part) => part.split(/(?<=\p{Ll}|\p{N})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u))
    .filter((word) => word.length > 0);
}

/** The name rewritten in a convention, keeping its `#`, `_` and `$` decoration. */
export function toStyle(name: string, style: NamingStyle): string {
  const prefix = /^[#_$]*/.exec(name)?.[0] ?? '';
  const suffix = /[_$]*$/.exec(name.slice(prefix.length))?.[0] ?? '';
  const parts = words(name);
  const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
  let core: string;
  switch (style) {
    case 'camelCase':
      core = parts.map((word, i) => (i === 0 ? word.toLowerCase() : capital(word))).join('');
      break;
    case 'PascalCase':
      core = parts.map(capital).join('');
      break;
    case 'UPPER_CASE':
      core = parts.map((word) => word.toUpperCase()).join('_');
      break;
    default:
      core = parts.map((word) => word.toLowerCase()).join('_');
  }
  return prefix + core + suffix;
}

const DEFAULT_STYLES: Record<NameCategory, NamingStyle[] | undefined> = {
  type: ['PascalCase'],
  'type-parameter': ['PascalCase', 'UPPER_CASE'],
  'enum-member': ['PascalCase', 'UPPER_CASE', 'camelCase'],
  namespace: ['PascalCase', 'camelCase'],
  function: ['camelCase'],
  method: ['camelCase'],
  property: ['camelCase'],
  variable: ['camelCase'],
  parameter: ['camelCase'],
  other: undefined,
};

const CATEGORY_LABEL: Record<NameCategory, string> = {
  type: 'types',
  'type-parameter': 'type parameters',
  'enum-member': 'enum members',
  namespace: 'namespaces',
  function: 'functions',
  method: 'methods',
  property: 'properties',
  variable: 'variables',
  parameter: 'parameters',
  other: 'names',
};

/**
 * The conventions a new name may follow: the category's default, the old name's own convention (a PascalCase
 * React component, an UPPER_CASE constant), and any convention that at least half of the file's declarations of
 * the same category follow (a snake_case module keeps its style).
 */
export function allowedStyles(category: NameCategory, oldName: string, siblingNames: readonly string[]): NamingStyle[] | undefined {
  const defaults = DEFAULT_STYLES[category];
  if (!defaults) return undefined;
  const allowed = new Set<NamingStyle>(defaults);
  const own = styleOf(oldName);
  if (own) allowed.add(own);
  const counts = new Map<NamingStyle, number>();
  for (const name of siblingNames) {
    const style = styleOf(name);
    if (style) counts.set(style, (counts.get(style) ?? 0) + 1);
  }
  for (const [style, count] of counts) if (count >= 2 && count * 2 >= siblingNames.length) allowed.add(style);
  return [...allowed];
}

/** Why a name does not fit the syntax, the reserved words or the convention, or undefined when it fits. */
export function checkNameSyntax(newName: string, oldName: string, category: NameCategory, siblingNames: readonly string[] = []): string | undefined {
  const privateName = oldName.startsWith('#');
  if (newName === '') return 'the new name is empty';
  if (newName.startsWith('#') !== privateName) return privateName ? `${oldName} is a private member: its new name must start with #` : `only private class members have names starting with #`;
  const core = privateName ? newName.slice(1) : newName;
  if (!isIdentifierName(core)) return `\`${newName}\` is not a valid identifier${/^\p{N}/u.test(core) ? ' (it starts with a digit)' : /[\s\-.]/u.test(core) ? ' (it holds spaces, dashes or dots)' : ''}`;
  if (newName === oldName) return `${oldName} already has that name`;
  const label = CATEGORY_LABEL[category].replace(/s$/, '').replace(/ie$/, 'y');
  if (!privateName && isReservedWord(core)) return `\`${newName}\` is a reserved word in JavaScript and cannot name a ${label}`;
  if (category === 'type' && PREDEFINED_TYPES.has(core)) return `\`${newName}\` is a predefined type name and cannot name a type`;
  if ((category === 'variable' || category === 'parameter' || category === 'function') && (core === 'arguments' || core === 'eval')) return `\`${newName}\` cannot name a binding in strict mode`;
  const allowed = allowedStyles(category, oldName, siblingNames);
  const styles = stylesOf(newName);
  if (allowed && styles && !styles.some((style) => allowed.includes(style))) {
    const wanted = allowed[0] as NamingStyle;
    return `\`${newName}\` does not follow the naming convention of ${CATEGORY_LABEL[category]} here (${allowed.join(' or ')}); for example \`${toStyle(newName, wanted)}\``;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Syntax helpers

/** The identifier (or private name) covering `offset`, or just before it when the cursor sits at its end. */
export function identifierAt(source: ts.SourceFile, offset: number): ts.Identifier | ts.PrivateIdentifier | undefined {
  const find = (at: number): ts.Node | undefined => {
    let node: ts.Node = source;
    for (;;) {
      const child: ts.Node | undefined = node.getChildren(source).find((c) => c.getStart(source) <= at && at < c.getEnd() && c.kind !== ts.SyntaxKind.JSDoc);
      if (!child) return node;
      node = child;
    }
  };
  for (const at of [offset, offset - 1]) {
    const node = at >= 0 ? find(at) : undefined;
    if (node && (ts.isIdentifier(node) || ts.isPrivateIdentifier(node))) return node;
  }
  return undefined;
}

/** Whether an identifier names a member or a label rather than a binding in lexical scope. */
function isMemberName(node: ts.Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isQualifiedName(parent)) return parent.right === node;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent) || ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent) || ts.isEnumMember(parent) || ts.isJsxAttribute(parent)) return parent.name === node;
  if (ts.isBindingElement(parent)) return parent.propertyName === node;
  if (ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return parent.propertyName === node || (ts.isExportSpecifier(parent) && parent.propertyName !== undefined);
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return true;
  return ts.isMetaProperty(parent);
}

/** The declaration an identifier names, when it is a declaration's own name. */
function declarationNamed(node: ts.Node): ts.Node | undefined {
  const parent = node.parent;
  if (!parent) return undefined;
  const named = parent as ts.Node & { name?: ts.Node };
  if (named.name !== node) return undefined;
  if (ts.isFunctionDeclaration(parent) || ts.isClassDeclaration(parent) || ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isInterfaceDeclaration(parent) || ts.isTypeAliasDeclaration(parent) || ts.isEnumDeclaration(parent) || ts.isBindingElement(parent) || ts.isModuleDeclaration(parent) || ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent) || ts.isImportEqualsDeclaration(parent) || ts.isTypeParameterDeclaration(parent)) return parent;
  return undefined;
}

/** The node whose scope a binding declared by `declaration` belongs to. */
function scopeOf(declaration: ts.Node): ts.Node {
  const functionScoped = ts.isParameter(declaration) || ts.isTypeParameterDeclaration(declaration) || (ts.isVariableDeclaration(declaration) && !(ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.BlockScoped));
  for (let node = declaration.parent; node; node = node.parent) {
    if (ts.isSourceFile(node) || ts.isModuleBlock(node)) return node;
    if (ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node)) return node;
    if (!functionScoped && (ts.isBlock(node) || ts.isCaseBlock(node) || ts.isForStatement(node) || ts.isForInStatement(node) || ts.isForOfStatement(node) || ts.isCatchClause(node))) return node;
  }
  return declaration.getSourceFile();
}

function lineOf(source: ts.SourceFile, offset: number): number {
  return source.getLineAndCharacterOfPosition(offset).line + 1;
}

// ---------------------------------------------------------------------------------------------
// Prepared renames

interface RenameSite {
  fileName: string;
  start: number;
  end: number;
  prefix: string;
  suffix: string;
}

/** The program a rename was computed on and the symbol it renames. */
interface RenameContext {
  program: ts.Program;
  symbol: ts.Symbol;
  declaration: ts.Node | undefined;
  described: ts.Node | undefined;
  root: string;
}

interface FileView {
  fileName: string;
  uri: string;
  version: number | null;
  text: string;
}

/**
 * A symbol ready to be renamed: its rename locations in every file, computed once on one program, and what a
 * new name is checked against. Later edits to the shared project do not change it (a program is immutable).
 */
export class PreparedRename {
  constructor(
    readonly oldName: string,
    readonly category: NameCategory,
    /** `function`, `class`, `property` …, for messages and prompts. */
    readonly kindLabel: string,
    private readonly sites: readonly RenameSite[],
    private readonly files: ReadonlyMap<string, FileView>,
    context: RenameContext,
    /** Set when the workspace has more files than a rename loads. */
    readonly truncated: boolean,
  ) {
    this.program = context.program;
    this.symbol = context.symbol;
    this.declaration = context.declaration;
    this.described = context.described;
    this.root = context.root;
  }

  private readonly program: ts.Program;
  private readonly symbol: ts.Symbol;
  /** The renamed symbol's own declaration (for an import alias: the import). */
  private readonly declaration: ts.Node | undefined;
  /** What the symbol stands for (for an import alias: the imported declaration), for code and conventions. */
  private readonly described: ts.Node | undefined;
  private readonly root: string;

  /** Where the symbol is declared and a few places it is used, as `path:line: code` lines; `include` can leave files out. */
  usages(max = 6, include: (fileName: string) => boolean = () => true): string[] {
    const lines: string[] = [];
    // The declaration is shown whole elsewhere; its name is not a use.
    const name = (this.described as (ts.Node & { name?: ts.Node }) | undefined)?.name;
    const declared = name ? `${name.getSourceFile().fileName}:${name.getStart()}` : undefined;
    for (const site of this.sites) {
      const file = this.files.get(site.fileName);
      if (!file || `${site.fileName}:${site.start}` === declared || !include(site.fileName)) continue;
      const lineStart = file.text.lastIndexOf('\n', site.start - 1) + 1;
      const lineEnd = file.text.indexOf('\n', site.start);
      const code = file.text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).trim();
      const line = file.text.slice(0, site.start).split('\n').length;
      const entry = `${this.relative(site.fileName)}:${line}: ${code.length > 160 ? `${code.slice(0, 157)}…` : code}`;
      if (!lines.includes(entry)) lines.push(entry);
      if (lines.length >= max) break;
    }
    return lines;
  }

  /** The file the declaration whose code `declarationCode` shows is in. */
  declarationFile(): string | undefined {
    return this.described?.getSourceFile().fileName;
  }

  /** The code of the declaration (its whole statement), for a model to read. */
  declarationCode(): string {
    const node = this.described;
    if (!node) return '';
    let shown: ts.Node = node;
    if (ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && ts.isVariableStatement(node.parent.parent)) shown = node.parent.parent;
    // A property is easier to name with its class around it, when the class is small.
    if ((ts.isPropertyDeclaration(node) || ts.isPropertySignature(node)) && node.parent.getText().length <= 4_000) shown = node.parent;
    return shown.getFullText().replace(/^\s*\n/, '').trimEnd();
  }

  /** The conventions a new name may follow here, for prompts. */
  conventions(): NamingStyle[] | undefined {
    return allowedStyles(this.category, this.oldName, this.siblingNames());
  }

  /** The number of rename locations and the files they are in. */
  size(): { edits: number; files: number } {
    return { edits: this.sites.length, files: new Set(this.sites.map((s) => s.fileName)).size };
  }

  /** Why `newName` cannot be used, or undefined when it can. */
  validate(newName: string): string | undefined {
    return checkNameSyntax(newName, this.oldName, this.category, this.siblingNames()) ?? this.clash(newName);
  }

  /** The rename to `newName` as one proposal over every file, the request's document first. */
  proposal(newName: string): Proposal {
    const byFile = new Map<string, OffsetEdit[]>();
    for (const site of this.sites) {
      const edits = byFile.get(site.fileName) ?? [];
      if (!edits.some((e) => e.start === site.start)) edits.push({ start: site.start, end: site.end, newText: `${site.prefix}${newName}${site.suffix}` });
      byFile.set(site.fileName, edits);
    }
    const documents: DocumentEditPlan[] = [];
    for (const [fileName, edits] of byFile) {
      const file = this.files.get(fileName);
      if (!file) continue;
      documents.push({ uri: file.uri, version: file.version, baseText: file.text, edits: edits.sort((a, b) => a.start - b.start) });
    }
    return { documents, creates: [] };
  }

  private relative(fileName: string): string {
    const relative = path.relative(this.root, fileName);
    // Library files (lib.es5.d.ts, @types) are named, not located: their paths mean nothing to the user.
    if (relative.startsWith('..') || path.isAbsolute(relative) || fileName.includes('/node_modules/')) return path.basename(fileName);
    return relative.split(path.sep).join('/');
  }

  private where(node: ts.Node): string {
    const source = node.getSourceFile();
    return `${this.relative(source.fileName)}:${lineOf(source, node.getStart(source))}`;
  }

  /** Names of the declarations of the same category in the declaring file, for its convention. */
  private siblingNames(): string[] {
    const source = this.described?.getSourceFile();
    if (!source) return [];
    const names: string[] = [];
    const visit = (node: ts.Node): void => {
      const named = node as ts.Node & { name?: ts.Node };
      if (named.name && (ts.isIdentifier(named.name) || ts.isPrivateIdentifier(named.name)) && categoryOfDeclaration(node) === this.category && named.name.text !== this.oldName) names.push(named.name.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
    return names;
  }

  /** A symbol already named `newName` where the renamed one is declared or used, or a use it would capture. */
  private clash(newName: string): string | undefined {
    const checker = this.program.getTypeChecker();
    if (this.category === 'property' || this.category === 'method' || this.category === 'enum-member') return this.memberClash(newName, checker);
    const meaning = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace | ts.SymbolFlags.Alias;
    const siteStarts = new Set(this.sites.map((s) => `${s.fileName}:${s.start}`));
    const bindingScopes: ts.Node[] = [];
    for (const site of this.sites) {
      const source = this.program.getSourceFile(site.fileName);
      const node = source ? identifierAt(source, site.start) : undefined;
      if (!source || !node) continue;
      const parent = node.parent;
      // `import { old as alias }` only changes the imported name; nothing in that file's scope is renamed.
      if ((ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) && parent.propertyName === node) continue;
      const declaration = declarationNamed(node);
      const location = declaration ? (declaration.parent ?? declaration) : node;
      for (const local of checker.getSymbolsInScope(location, meaning)) {
        if (local.name !== newName) continue;
        // Scopes hold the local side of exported declarations; the exported symbol says what it is.
        const visible = checker.getExportSymbolOfSymbol(local);
        if (visible === this.symbol) continue;
        const declarations = visible.declarations ?? [];
        // Globals from lib and @types files are shadowed, not broken, by a nearer declaration.
        if (declarations.length === 0 || declarations.every((d) => d.getSourceFile().isDeclarationFile)) continue;
        const first = declarations[0] as ts.Node;
        return `a ${describeSymbol(visible)} named ${newName} is already visible at ${this.where(node)} (declared at ${this.where(first)})`;
      }
      if (declaration) bindingScopes.push(scopeOf(declaration));
    }
    // A use of another `newName` inside the renamed binding's scope would start to mean the renamed symbol.
    for (const scope of bindingScopes) {
      const source = scope.getSourceFile();
      let captured: ts.Node | undefined;
      const visit = (node: ts.Node): void => {
        if (captured) return;
        if (ts.isIdentifier(node) && node.text === newName && !isMemberName(node) && !siteStarts.has(`${source.fileName}:${node.getStart(source)}`)) {
          const symbol = ts.isShorthandPropertyAssignment(node.parent) ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
          const declarations = symbol?.declarations ?? [];
          const inside = declarations.some((d) => d.getSourceFile() === source && d.getStart(source) >= scope.getStart(source) && d.getEnd() <= scope.getEnd());
          if (!inside) captured = node;
        }
        ts.forEachChild(node, visit);
      };
      visit(scope);
      if (captured) return `${newName} is already used at ${this.where(captured)} for something else; renaming would change what it refers to`;
    }
    return undefined;
  }

  /** Another member named `newName` in the same class, interface, object or enum (inherited ones included). */
  private memberClash(newName: string, checker: ts.TypeChecker): string | undefined {
    const declaration = this.declaration;
    const owner = declaration?.parent;
    if (!declaration || !owner) return undefined;
    const memberNames = (members: readonly ts.Node[]): ts.Node | undefined =>
      members.find((m) => {
        const name = (m as ts.Node & { name?: ts.Node }).name;
        return name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) && name.text === newName;
      });
    let existing: ts.Node | undefined;
    if (ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) {
      existing = memberNames(owner.members);
      if (!existing && owner.name && !newName.startsWith('#')) {
        const ownerSymbol = checker.getSymbolAtLocation(owner.name);
        if (ownerSymbol) {
          const isStatic = ts.canHaveModifiers(declaration) && (ts.getModifiers(declaration) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
          const type = isStatic ? checker.getTypeOfSymbol(ownerSymbol) : checker.getDeclaredTypeOfSymbol(ownerSymbol);
          existing = checker.getPropertyOfType(type, newName)?.declarations?.[0];
        }
      }
    } else if (ts.isTypeLiteralNode(owner) || ts.isObjectLiteralExpression(owner) || ts.isEnumDeclaration(owner)) {
      existing = memberNames(ts.isObjectLiteralExpression(owner) ? owner.properties : owner.members);
    }
    return existing ? `${newName} is already a member there (${this.where(existing)})` : undefined;
  }
}

function describeSymbol(symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Alias) return 'import';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  return 'variable';
}

function categoryOfDeclaration(node: ts.Node): NameCategory | undefined {
  if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node)) return 'type';
  if (ts.isTypeParameterDeclaration(node)) return 'type-parameter';
  if (ts.isEnumMember(node)) return 'enum-member';
  if (ts.isModuleDeclaration(node)) return 'namespace';
  if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node)) return 'function';
  if (ts.isMethodDeclaration(node) || ts.isMethodSignature(node)) return 'method';
  if (ts.isPropertyDeclaration(node) || ts.isPropertySignature(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node) || ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) return 'property';
  if (ts.isParameter(node)) return 'parameter';
  if (ts.isVariableDeclaration(node) || ts.isBindingElement(node)) return 'variable';
  return undefined;
}

function categoryOf(symbol: ts.Symbol, declaration: ts.Node | undefined): NameCategory {
  const flags = symbol.flags;
  if (flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum)) return 'type';
  if (flags & ts.SymbolFlags.TypeParameter) return 'type-parameter';
  if (flags & ts.SymbolFlags.EnumMember) return 'enum-member';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Method) return 'method';
  if (flags & (ts.SymbolFlags.Property | ts.SymbolFlags.Accessor)) return 'property';
  if (flags & ts.SymbolFlags.Variable) return declaration && ts.isParameter(declaration) ? 'parameter' : 'variable';
  if (flags & ts.SymbolFlags.Module) return 'namespace';
  return (declaration && categoryOfDeclaration(declaration)) ?? 'other';
}

const KIND_LABEL: Record<NameCategory, string> = {
  type: 'type',
  'type-parameter': 'type parameter',
  'enum-member': 'enum member',
  namespace: 'namespace',
  function: 'function',
  method: 'method',
  property: 'property',
  variable: 'variable',
  parameter: 'parameter',
  other: 'symbol',
};

function kindLabelOf(category: NameCategory, symbol: ts.Symbol): string {
  if (category !== 'type') return KIND_LABEL[category];
  if (symbol.flags & ts.SymbolFlags.Class) return 'class';
  if (symbol.flags & ts.SymbolFlags.Interface) return 'interface';
  if (symbol.flags & ts.SymbolFlags.Enum) return 'enum';
  return 'type';
}

/**
 * The declaration's name when `node` is a use of a plain import (`import { name }`, `import name`, or
 * `export { name }` without `as`) of a workspace declaration; undefined otherwise. An import with `as` has a local
 * name of its own, and renaming that alias stays local.
 */
function importedDeclarationName(node: ts.Identifier | ts.PrivateIdentifier, checker: ts.TypeChecker, root: string): ts.Identifier | undefined {
  if (!ts.isIdentifier(node)) return undefined;
  const symbol = ts.isShorthandPropertyAssignment(node.parent) ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
  if (!symbol || !(symbol.flags & ts.SymbolFlags.Alias)) return undefined;
  const alias = symbol.declarations?.[0];
  if (!alias) return undefined;
  const plain = (ts.isImportSpecifier(alias) || ts.isExportSpecifier(alias)) ? alias.propertyName === undefined : ts.isImportClause(alias) && alias.name?.text === node.text;
  if (!plain) return undefined;
  const target = checker.getAliasedSymbol(symbol);
  const declaration = target.valueDeclaration ?? target.declarations?.[0];
  const name = (declaration as (ts.Node & { name?: ts.Node }) | undefined)?.name;
  if (!declaration || !name || !ts.isIdentifier(name) || name.text !== node.text) return undefined;
  return insideWorkspace(declaration.getSourceFile().fileName, root) ? name : undefined;
}

/** The file name TypeScript uses for a document; untitled buffers get a stand-in inside the workspace. */
function fileNameOf(document: DocumentSnapshot, root: string): string {
  if (document.fsPath) return document.fsPath;
  const ext = document.languageId.startsWith('javascript') ? '.js' : '.ts';
  return path.join(root, '__assistant_untitled__', `untitled${ext}`);
}

function insideWorkspace(fileName: string, root: string): boolean {
  const relative = path.relative(root, fileName);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && !relative.split(/[\\/]/).includes('node_modules');
}

/**
 * Finds the symbol at `anchor` in the document (with the editor's text) and its rename locations across the
 * workspace's files, through the TypeScript language service. Files other than the document are as the project
 * holds them (the disk, or an editor text the server was given earlier): their plans carry no version, and
 * applying moves them onto the editor's current text or refuses.
 */
export function prepareRename(workspace: WorkspaceProject, document: DocumentSnapshot, anchor: number, signal: AbortSignal): Result<PreparedRename> {
  signal.throwIfAborted();
  const root = workspace.root;
  let requestFile: string;
  let project: Project;
  try {
    requestFile = workspace.sourceFile(fileNameOf(document, root), document.text).getFilePath();
    project = workspace.tsProject();
  } catch (error) {
    return { ok: false, reason: `the TypeScript project could not be loaded: ${(error as Error).message}` };
  }
  const { truncated } = loadWorkspaceFiles(workspace, signal);
  signal.throwIfAborted();
  const service = project.getLanguageService().compilerObject;
  const program = service.getProgram();
  const source = program?.getSourceFile(requestFile);
  if (!program || !source) return { ok: false, reason: 'the document is not part of the TypeScript program' };
  const found = identifierAt(source, anchor);
  if (!found) return { ok: false, reason: 'there is no name to rename here' };
  const checker = program.getTypeChecker();
  // From a plain import (`import { clampAll }`), the user means the function, not a local alias of it.
  const node = importedDeclarationName(found, checker, root) ?? found;
  const startFile = node.getSourceFile().fileName;
  const position = node.getStart(node.getSourceFile());
  const info = service.getRenameInfo(startFile, position, { allowRenameOfImportPath: false });
  if (!info.canRename) return { ok: false, reason: info.localizedErrorMessage };
  const locations = service.findRenameLocations(startFile, position, false, false, { providePrefixAndSuffixTextForRename: true }) ?? [];
  signal.throwIfAborted();
  if (locations.length === 0) return { ok: false, reason: `TypeScript found no references of ${node.text}` };
  const outside = locations.find((l) => l.fileName !== requestFile && !insideWorkspace(l.fileName, root));
  if (outside) return { ok: false, reason: `${node.text} is also declared in ${outside.fileName}, outside the workspace; renaming it would need edits there` };

  const files = new Map<string, FileView>();
  const sites: RenameSite[] = [];
  for (const location of locations) {
    const file = program.getSourceFile(location.fileName);
    if (!file) continue;
    if (!files.has(location.fileName)) {
      const isRequest = location.fileName === requestFile;
      files.set(location.fileName, { fileName: location.fileName, uri: isRequest ? document.uri : pathToUri(location.fileName), version: isRequest ? document.version : null, text: file.text });
    }
    sites.push({ fileName: location.fileName, start: location.textSpan.start, end: location.textSpan.start + location.textSpan.length, prefix: location.prefixText ?? '', suffix: location.suffixText ?? '' });
  }
  // The request's document first, then the others by path, so edits and messages read in a stable order.
  sites.sort((a, b) => Number(b.fileName === requestFile) - Number(a.fileName === requestFile) || a.fileName.localeCompare(b.fileName) || a.start - b.start);

  // In `{ name }` the rename is of the value the shorthand reads, not of the object's property.
  const symbol = ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node ? checker.getShorthandAssignmentValueSymbol(node.parent) : checker.getSymbolAtLocation(node);
  if (!symbol) return { ok: false, reason: `TypeScript does not know what ${node.text} is` };
  // An import's local name follows the convention, and is described by the code, of what it imports.
  const resolved = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  const resolvedDeclaration = resolved.valueDeclaration ?? resolved.declarations?.[0];
  const category = categoryOf(resolved, resolvedDeclaration);
  const context = { program, symbol, declaration, described: resolvedDeclaration, root };
  return { ok: true, value: new PreparedRename(node.text, category, kindLabelOf(category, resolved), sites, files, context, truncated) };
}

/** Prepares, validates and builds the rename in one go: what the offline agent does with a given name. */
export function planRename(workspace: WorkspaceProject, document: DocumentSnapshot, anchor: number, newName: string, signal: AbortSignal): Result<{ proposal: Proposal; prepared: PreparedRename }> {
  const prepared = prepareRename(workspace, document, anchor, signal);
  if (!prepared.ok) return prepared;
  const name = normaliseNewName(newName, prepared.value.oldName);
  const problem = prepared.value.validate(name);
  if (problem) return { ok: false, reason: problem };
  return { ok: true, value: { proposal: prepared.value.proposal(name), prepared: prepared.value } };
}

/** A new name as typed, tidied: quotes and a trailing `()` dropped, `#` added for private members. */
export function normaliseNewName(newName: string, oldName: string): string {
  let name = newName.trim().replace(/^[`'"]+|[`'"]+$/g, '').replace(/\(\)$/, '');
  if (oldName.startsWith('#') && !name.startsWith('#') && name !== '') name = `#${name}`;
  return name;
}

/** `Rename a to b` with the size of the change, as the response's text. */
export function describeRename(oldName: string, newName: string, proposal: Proposal): string {
  const edits = proposal.documents.reduce((sum, d) => sum + d.edits.length, 0);
  const files = proposal.documents.length;
  return `Rename ${oldName} to ${newName}: ${edits} edit${edits === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}`;
}
