// What code calls: each call resolved to its declaration in the workspace, a library, or a value known only at run time; by syntax alone without types.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { CallSummary, SourceLocation } from './codeStructure.js';
import type { Analysis } from './structureAnalysis.js';
import { lineOf, oneLine, relativePath } from './structureText.js';

/** Most distinct callees listed, so a huge function stays cheap to describe. */
const MAX_CALLS = 200;

export function callsOf(a: Analysis, roots: readonly ts.Node[]): { calls: CallSummary[]; callSites: number } {
  const byKey = new Map<string, CallSummary>();
  let callSites = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      callSites++;
      const { key, call } = resolveCall(a, node);
      const known = byKey.get(key);
      if (known) known.count++;
      else if (byKey.size < MAX_CALLS) byKey.set(key, call);
    }
    ts.forEachChild(node, visit);
  };
  roots.forEach(visit);
  return { calls: [...byKey.values()], callSites };
}

function resolveCall(a: Analysis, call: ts.CallExpression | ts.NewExpression): { key: string; call: CallSummary } {
  const construct = ts.isNewExpression(call);
  const callee = skipOuterExpressions(call.expression);
  const nameNode = calleeName(callee);
  const text = nameNode && ts.isIdentifier(nameNode) ? nameNode.text : oneLine(callee.getText(a.source), 40);
  const unresolved = (): { key: string; call: CallSummary } => ({ key: `?${construct}:${text}`, call: { name: text, construct, count: 1, unresolved: true } });
  if (!a.checker) {
    // Without types, a plain name still leads to a declaration of this file or to the module it is imported from.
    const found = nameNode && ts.isIdentifier(callee) ? syntaxIndex(a).get(callee.text) : undefined;
    return found ? { key: `${found.external ?? ''}:${found.line ?? ''}:${text}`, call: { name: text, construct, count: 1, ...(found.line !== undefined ? { declaredAt: { file: a.displayName, line: found.line } } : { external: found.external as string }) } } : unresolved();
  }
  if (callee.kind === ts.SyntaxKind.SuperKeyword) {
    const declaration = a.checker.getResolvedSignature(call as ts.CallExpression)?.declaration;
    const owner = declaration && ts.isConstructorDeclaration(declaration) ? declaration.parent.name?.text : undefined;
    if (!declaration || ts.isJSDocSignature(declaration)) return unresolved();
    return { key: keyOf(declaration), call: { name: owner ? `super (${owner})` : 'super', construct: false, count: 1, ...placeOf(a, declaration) } };
  }
  let symbol = nameNode ? a.checker.getSymbolAtLocation(nameNode) : undefined;
  let importedFrom: string | undefined;
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
    importedFrom = moduleOfImport(symbol.declarations?.[0]);
    symbol = a.checker.getAliasedSymbol(symbol);
  }
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (!symbol || !declaration) {
    // An import the checker could not follow (no types installed) still says where it comes from.
    if (importedFrom && !importedFrom.startsWith('.')) return { key: `${importedFrom}:${text}`, call: { name: text, construct, count: 1, external: importedFrom } };
    return unresolved();
  }
  const name = qualifiedName(declaration, symbol.name);
  return { key: keyOf(declaration), call: { name, construct, count: 1, ...placeOf(a, declaration) } };
}

const syntaxIndexes = new WeakMap<ts.SourceFile, Map<string, { line?: number; external?: string }>>();

/** Names declared at the top level of the file (their lines) and names imported from packages (their modules). */
function syntaxIndex(a: Analysis): Map<string, { line?: number; external?: string }> {
  const known = syntaxIndexes.get(a.source);
  if (known) return known;
  const index = new Map<string, { line?: number; external?: string }>();
  for (const statement of a.source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.importClause) {
      const module = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      const names = [clause.name, ...(clause.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements.map((e) => e.name) : [])];
      for (const name of names) if (name) index.set(name.text, { external: module });
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      index.set(statement.name.text, { line: lineOf(a.source, statement.name.getStart(a.source)) });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) index.set(declaration.name.text, { line: lineOf(a.source, declaration.name.getStart(a.source)) });
      }
    }
  }
  syntaxIndexes.set(a.source, index);
  return index;
}

export function skipOuterExpressions(node: ts.Expression): ts.Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current) || ts.isNonNullExpression(current) || ts.isAsExpression(current) || ts.isTypeAssertionExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
  return current;
}

function calleeName(callee: ts.Expression): ts.Node | undefined {
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isElementAccessExpression(callee)) return callee.argumentExpression;
  return undefined;
}

function moduleOfImport(declaration: ts.Declaration | undefined): string | undefined {
  for (let node: ts.Node | undefined = declaration; node; node = node.parent) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) return node.moduleReference.expression.text;
  }
  return undefined;
}

function keyOf(declaration: ts.Node): string {
  return `${declaration.getSourceFile().fileName}:${declaration.pos}`;
}

/** `Class.member` for members of classes and interfaces (`JSON.parse`, `Map.get`), the plain name otherwise. */
function qualifiedName(declaration: ts.Node, name: string): string {
  const parent = declaration.parent;
  if (parent && (ts.isClassLike(parent) || ts.isInterfaceDeclaration(parent)) && parent.name) return `${parent.name.text}.${name}`;
  return name;
}

/** Where a declaration is: a workspace file and line, a library, or a parameter/variable known only at run time. */
function placeOf(a: Analysis, declaration: ts.Node): Pick<CallSummary, 'declaredAt' | 'external' | 'holder'> {
  const file = declaration.getSourceFile();
  const external = externalSource(a, file);
  if (external) return { external };
  const named = (declaration as ts.NamedDeclaration).name ?? declaration;
  const at: SourceLocation = { file: file.fileName === a.fileName ? a.displayName : relativePath(a.root, file.fileName), line: lineOf(file, named.getStart(file)) };
  if (ts.isParameter(declaration)) return { declaredAt: at, holder: 'parameter' };
  if ((ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration) || ts.isPropertySignature(declaration)) && !isFunctionValued(declaration)) return { declaredAt: at, holder: ts.isVariableDeclaration(declaration) ? 'variable' : 'property' };
  return { declaredAt: at };
}

function isFunctionValued(declaration: ts.VariableDeclaration | ts.PropertyDeclaration | ts.PropertySignature): boolean {
  const initializer = 'initializer' in declaration ? declaration.initializer : undefined;
  return initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer) || ts.isClassExpression(initializer));
}

/** The library a file belongs to, or undefined for workspace code. */
export function externalSource(a: Analysis, file: ts.SourceFile): string | undefined {
  if (a.program?.isSourceFileDefaultLibrary(file)) return 'TypeScript lib';
  const normalized = file.fileName.split(path.sep).join('/');
  const at = normalized.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const parts = normalized.slice(at + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? 'a library');
  }
  if (a.program?.isSourceFileFromExternalLibrary(file)) return 'a library';
  const relative = path.relative(a.root, file.fileName);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'outside the workspace';
  return undefined;
}
