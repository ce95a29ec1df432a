// What the program says about a class or interface beyond its declaration: what the types it extends or implements are documented as, where it is constructed, which classes implement it.
import { ts } from 'ts-morph';
import { addsToSignature, identifierWords } from './docEvidence.js';
import { backticked } from './identifierProse.js';
import { joinList } from './docSummaries.js';

/** Words of a factory's name that say only that it makes something: `ZodNever.create`, `Query.constructor`. */
const FACTORY_WORDS = new Set(['create', 'constructor', 'new', 'make', 'build', 'from', 'of', 'init']);

/** Places named per sentence before `and N more`. */
const MAX_NAMED = 3;
/** Longest first sentence quoted from another declaration's documentation. */
const MAX_QUOTED = 160;

/**
 * A summary of a class or interface from evidence only: the documentation of each type it extends or implements
 * (`Extends \`QueryObserver\`, documented as “…”.`), the functions and methods of the program that construct it, and
 * the classes that implement an interface. Undefined when the checker is unavailable or none of these exists: the
 * declaration's own name and heritage clause say the rest, and a comment repeating them says nothing.
 */
export function typeSummary(node: ts.ClassLikeDeclaration | ts.InterfaceDeclaration, checker: ts.TypeChecker | undefined, program: ts.Program | undefined): string | undefined {
  if (!checker) return undefined;
  try {
    const sentences: Array<{ text: string; names: string }> = [];
    for (const clause of node.heritageClauses ?? []) {
      const verb = clause.token === ts.SyntaxKind.ExtendsKeyword ? 'Extends' : 'Implements';
      for (const type of clause.types) {
        const documented = firstSentence(documentationOf(type.expression, checker));
        // What the quoted documentation says is the evidence, not the name of the type, which the header has.
        if (documented) sentences.push({ text: `${verb} ${backticked(type.expression.getText())}, documented as “${documented}”`, names: backticked(documented.replace(/`/g, '')) });
      }
    }
    const symbol = node.name ? checker.getSymbolAtLocation(node.name) : undefined;
    // `ZodBoolean.create` constructing `ZodBoolean`, `ZodMiniPrefault` made by `prefault`: names the header already says.
    const header = identifierWords(node.getSourceFile().text.slice(node.getStart(), node.members.pos));
    const telling = (name: string): boolean => [...identifierWords(name)].some((word) => !header.has(word) && !FACTORY_WORDS.has(word));
    if (symbol && program) {
      const found = usesOf(symbol, node, checker, program);
      const uses = { constructedIn: found.constructedIn.filter(telling), implementedBy: found.implementedBy.filter(telling), extendedBy: found.extendedBy.filter(telling) };
      const said = (text: string): void => {
        sentences.push({ text, names: text });
      };
      if (uses.constructedIn.length > 0) said(`Constructed by ${named(uses.constructedIn)}`);
      if (uses.implementedBy.length > 0) said(`Implemented by ${named(uses.implementedBy)}`);
      if (uses.extendedBy.length > 0) said(`Extended by ${named(uses.extendedBy)}`);
    }
    const said = sentences.filter((sentence) => addsToSignature(sentence.names, header));
    return said.length > 0 ? said.map((sentence) => (/[.!?]”$/.test(sentence.text) ? sentence.text : `${sentence.text}.`)).join(' ') : undefined;
  } catch {
    return undefined;
  }
}

function named(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMED).map(backticked);
  return names.length > MAX_NAMED ? `${shown.join(', ')} and ${names.length - MAX_NAMED} more` : joinList(shown);
}

/** The documentation of the declaration an expression names (through imports), or `''`. */
function documentationOf(expression: ts.Expression, checker: ts.TypeChecker): string {
  let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expression) ? expression.name : expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol ? ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() : '';
}

/** The first sentence of a documentation text, on one line, when it is short enough to quote. */
function firstSentence(text: string): string | undefined {
  const paragraph = text.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  if (!paragraph || /^[@{]/.test(paragraph)) return undefined;
  const end = /[.!?](\s|$)/.exec(paragraph);
  const sentence = (end ? paragraph.slice(0, end.index + 1) : paragraph).trim();
  return sentence.length <= MAX_QUOTED && !sentence.includes('“') && !sentence.includes('”') ? sentence : undefined;
}

interface TypeUses {
  /** The functions, methods and variables whose code runs `new` on the class. */
  constructedIn: string[];
  /** Classes that implement the interface (or the class). */
  implementedBy: string[];
  /** Classes and interfaces that extend it. */
  extendedBy: string[];
}

/** Where the program's own sources (not declaration files or dependencies) construct, implement or extend the type. */
function usesOf(symbol: ts.Symbol, declaration: ts.Node, checker: ts.TypeChecker, program: ts.Program): TypeUses {
  const uses: TypeUses = { constructedIn: [], implementedBy: [], extendedBy: [] };
  const name = symbol.getName();
  const resolves = (identifier: ts.Node): boolean => {
    let target = checker.getSymbolAtLocation(identifier);
    if (target && target.flags & ts.SymbolFlags.Alias) target = checker.getAliasedSymbol(target);
    return target === symbol;
  };
  const add = (list: string[], item: string | undefined): void => {
    if (item && !list.includes(item)) list.push(item);
  };
  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || program.isSourceFileFromExternalLibrary(source) || !source.text.includes(name)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && lastName(node.expression) === name && resolves(nameNode(node.expression))) add(uses.constructedIn, enclosingName(node));
      if (ts.isHeritageClause(node) && node.parent !== declaration) {
        for (const type of node.types) {
          if (lastName(type.expression) !== name || !resolves(nameNode(type.expression))) continue;
          const owner = node.parent.name?.text;
          if (node.token === ts.SyntaxKind.ImplementsKeyword) add(uses.implementedBy, owner);
          else add(uses.extendedBy, owner);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return uses;
}

function lastName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

function nameNode(expression: ts.Expression): ts.Node {
  return ts.isPropertyAccessExpression(expression) ? expression.name : expression;
}

/** `QueryClient.fetchQuery`, `createStore`, `defaultCache`: the named declaration a `new` is in; undefined at a module's top level. */
function enclosingName(node: ts.Node): string | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (ts.isFunctionDeclaration(current) && current.name) return current.name.text;
    if ((ts.isMethodDeclaration(current) || ts.isPropertyDeclaration(current) || ts.isGetAccessorDeclaration(current)) && ts.isIdentifier(current.name)) {
      const owner = ts.isClassLike(current.parent) ? current.parent.name?.text : undefined;
      return owner ? `${owner}.${current.name.text}` : current.name.text;
    }
    if (ts.isConstructorDeclaration(current)) {
      const owner = current.parent.name?.text;
      return owner ? `${owner}.constructor` : undefined;
    }
    // A module's variable is a name the reader can find; a function's own is not.
    if (ts.isVariableDeclaration(current) && ts.isIdentifier(current.name) && ts.isVariableStatement(current.parent.parent) && (ts.isSourceFile(current.parent.parent.parent) || ts.isModuleBlock(current.parent.parent.parent))) return current.name.text;
  }
  return undefined;
}
