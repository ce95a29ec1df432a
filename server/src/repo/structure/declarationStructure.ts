// The structure of a declaration: modifiers, signature, documentation, returns, members, and what its code calls, branches on and throws.
import { ts } from 'ts-morph';
import { parseJsDoc } from '../../edits/jsdoc.js';
import { overloadsOf } from '../../agents/offline/declarationLocator.js';
import type { LocatedDeclaration } from '../../agents/offline/declarationLocator.js';
import type { DeclarationTarget } from '../declarations.js';
import { callsOf } from './callSummary.js';
import type { CodeStructure, MemberSummary } from './codeStructure.js';
import { branchesOf, throwsOf } from './controlFlow.js';
import { referencesOf } from './referenceSummary.js';
import { MAX_SITES, type Analysis } from './structureAnalysis.js';
import { clip, lineOf, NO_VALUE, oneLine, quote } from './structureText.js';

export function describeDeclaration(a: Analysis, target: DeclarationTarget, located: LocatedDeclaration, signal: AbortSignal | undefined): CodeStructure {
  const node = located.node;
  const structure: CodeStructure = {
    subject: 'declaration',
    name: target.name,
    kind: target.kind,
    file: a.displayName,
    line: lineOf(a.source, target.start),
    endLine: lineOf(a.source, target.end),
    modifiers: modifiersOf(node),
    typed: a.checker !== undefined,
    calls: [],
    callSites: 0,
    branches: branchesOf(a.source, [node]),
    throws: throwsOf(a, [node]),
    awaits: 0,
  };
  if (target.existingDoc) structure.documentation = documentationOf(target.existingDoc.text);
  if (located.kind === 'class' || located.kind === 'interface') {
    structure.signature = headerOf(a.source, located.node);
    structure.members = located.kind === 'class' ? classMembers(a, located.node) : interfaceMembers(a, located.node);
  } else {
    const fn = located.fn;
    if (fn.asteriskToken) structure.modifiers.push('generator');
    if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) structure.modifiers.push('async');
    // An overloaded function is called through its overloads: the implementation's signature is not one a caller can
    // use (`(a: any, b: any)` behind `(a: QueryKey, b: QueryKey)`).
    const overloads = overloadsOf(fn);
    const more = overloads.length > 1 ? ` (and ${overloads.length - 1} more overload${overloads.length > 2 ? 's' : ''})` : '';
    structure.signature = `${functionSignature(a, overloads[0] ?? fn, target.simpleName)}${more}`;
    structure.awaits = awaitsOf(fn);
    if (located.kind !== 'constructor' && located.kind !== 'setter') structure.returns = returnsOf(a, fn, overloads.length === 1 ? overloads[0] : undefined);
  }
  if (located.kind !== 'interface') Object.assign(structure, callsOf(a, [node]));
  signal?.throwIfAborted();
  if (a.service && a.program) structure.references = referencesOf(a, target, located.kind === 'class' || located.kind === 'interface');
  else structure.referencesUnavailable = a.untyped ?? 'no type information';
  return structure;
}

function modifiersOf(node: ts.Node): string[] {
  const flags = ts.getCombinedModifierFlags(node as ts.Declaration);
  const out: string[] = [];
  if (flags & ts.ModifierFlags.Export) out.push('exported');
  if (flags & ts.ModifierFlags.Default) out.push('default');
  if (flags & ts.ModifierFlags.Abstract) out.push('abstract');
  if (flags & ts.ModifierFlags.Static) out.push('static');
  if (flags & ts.ModifierFlags.Private || (ts.isClassElement(node) && node.name !== undefined && ts.isPrivateIdentifier(node.name))) out.push('private');
  if (flags & ts.ModifierFlags.Protected) out.push('protected');
  if (flags & ts.ModifierFlags.Readonly) out.push('readonly');
  return out;
}

/** `name(params): Return` from the checker, or the declaration's own header text when there is no checker. */
function functionSignature(a: Analysis, fn: ts.SignatureDeclaration, name: string): string {
  const signature = a.checker?.getSignatureFromDeclaration(fn);
  if (a.checker && signature) {
    const text = withSourceTypeParameters(a.source, fn, a.checker.signatureToString(signature, fn, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope));
    if (ts.isConstructorDeclaration(fn)) return `constructor${text.replace(/\):[^():]*$/, ')')}`;
    if (ts.isGetAccessorDeclaration(fn)) return `get ${name}${text}`;
    if (ts.isSetAccessorDeclaration(fn)) return `set ${name}${text.replace(/\):[^():]*$/, ')')}`;
    return `${name}${text}`;
  }
  if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) {
    // `const name = (…) => …`: the header starts at the type parameters or parameters, and the name is the variable's.
    const from = (fn.typeParameters ?? fn.parameters).pos - 1;
    return `${name}${oneLine(a.source.text.slice(from, fn.body.getStart(a.source)).replace(/=>\s*$/, ''), 160)}`;
  }
  return headerOf(a.source, fn);
}

/**
 * The checker's signature with the type parameters as the source writes them: it prints a default or constraint
 * resolved (`TError = Error` where the code says `TError = DefaultError`, an alias a user's registration can change).
 */
function withSourceTypeParameters(source: ts.SourceFile, fn: ts.SignatureDeclaration, text: string): string {
  if (!fn.typeParameters?.length || !text.startsWith('<')) return text;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '<') depth++;
    else if (char === '>' && text[i - 1] !== '=') depth--;
    if (depth === 0) return `<${oneLine(fn.typeParameters.map((parameter) => parameter.getText(source)).join(', '), 200)}>${text.slice(i + 1)}`;
  }
  return text;
}

/** The declaration's text up to its body, on one line: what a reader sees of its signature. */
function headerOf(source: ts.SourceFile, node: ts.Node): string {
  const bodyStart = ts.isClassLike(node) || ts.isInterfaceDeclaration(node) ? node.members.pos - 1 : (node as ts.FunctionLikeDeclaration).body?.getStart(source);
  const text = source.text.slice(node.getStart(source), bodyStart ?? node.getEnd());
  return oneLine(text.replace(/=>\s*$/, '').replace(/\{\s*$/, ''), 160);
}

/** What `fn` returns and where; its type from `overload` when the one overload is what callers see. */
function returnsOf(a: Analysis, fn: ts.SignatureDeclaration, overload?: ts.SignatureDeclaration): CodeStructure['returns'] {
  const returns: NonNullable<CodeStructure['returns']> = { points: [] };
  const typed = overload ?? fn;
  const signature = a.checker?.getSignatureFromDeclaration(typed);
  if (a.checker && signature) returns.type = a.checker.typeToString(a.checker.getReturnTypeOfSignature(signature), typed, ts.TypeFormatFlags.NoTruncation);
  else if (typed.type) returns.type = oneLine(typed.type.getText(a.source), 120);
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (!body) return returns;
  if (!ts.isBlock(body)) {
    returns.points.push({ line: lineOf(a.source, body.getStart(a.source)), text: quote(body, a.source) });
    return returns;
  }
  forOwnCode(body, (node) => {
    if (ts.isReturnStatement(node) && returns.points.length < MAX_SITES) returns.points.push({ line: lineOf(a.source, node.getStart(a.source)), text: node.expression ? quote(node.expression, a.source) : NO_VALUE });
  });
  return returns;
}

export function awaitsOf(fn: ts.Node): number {
  let count = 0;
  forOwnCode(fn, (node) => {
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) count++;
  });
  return count;
}

/** Visits the code that runs as part of `root` itself: not the bodies of functions and classes declared inside it. */
function forOwnCode(root: ts.Node, visit: (node: ts.Node) => void): void {
  const walk = (node: ts.Node): void => {
    visit(node);
    if (node !== root && (ts.isFunctionLike(node) || ts.isClassLike(node))) return;
    ts.forEachChild(node, walk);
  };
  ts.forEachChild(root, walk);
}

function documentationOf(block: string): NonNullable<CodeStructure['documentation']> {
  const parsed = parseJsDoc(block);
  const summary = parsed.description.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  const deprecated = parsed.tags.find((t) => t.tag === 'deprecated');
  return {
    summary: clip(summary, 300),
    tags: [...new Set(parsed.tags.map((t) => `@${t.tag}`))],
    ...(deprecated ? { deprecated: clip(deprecated.text.replace(/\s+/g, ' ').trim(), 200) } : {}),
  };
}

function classMembers(a: Analysis, node: ts.ClassDeclaration | ts.ClassExpression): MemberSummary[] {
  const members: MemberSummary[] = [];
  for (const member of node.members) {
    const name = member.name ? member.name.getText(a.source) : '';
    const line = lineOf(a.source, member.getStart(a.source));
    const modifiers = modifiersOf(member).filter((m) => m !== 'exported');
    if (ts.isConstructorDeclaration(member)) {
      members.push({ name: 'constructor', kind: 'constructor', signature: functionSignature(a, member, 'constructor'), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
      // Parameter properties are fields too.
      for (const parameter of member.parameters) {
        if (!ts.isParameterPropertyDeclaration(parameter, member)) continue;
        members.push({ name: parameter.name.getText(a.source), kind: 'property', signature: propertySignature(a, parameter), line: lineOf(a.source, parameter.getStart(a.source)), modifiers: modifiersOf(parameter) });
      }
    } else if (ts.isMethodDeclaration(member)) {
      members.push({ name, kind: 'method', signature: functionSignature(a, member, name), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
    } else if (ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)) {
      members.push({ name, kind: ts.isGetAccessorDeclaration(member) ? 'getter' : 'setter', signature: functionSignature(a, member, name), line, modifiers, complexity: branchesOf(a.source, [member]).complexity });
    } else if (ts.isPropertyDeclaration(member)) {
      const fn = member.initializer && (ts.isArrowFunction(member.initializer) || ts.isFunctionExpression(member.initializer)) ? member.initializer : undefined;
      if (fn) members.push({ name, kind: 'method', signature: functionSignature(a, fn, name), line, modifiers, complexity: branchesOf(a.source, [fn]).complexity });
      else members.push({ name, kind: 'property', signature: propertySignature(a, member), line, modifiers });
    } else if (ts.isIndexSignatureDeclaration(member)) {
      members.push({ name: '[index]', kind: 'index', signature: oneLine(member.getText(a.source), 120), line, modifiers });
    }
  }
  return members;
}

function propertySignature(a: Analysis, node: ts.PropertyDeclaration | ts.ParameterDeclaration): string {
  const name = node.name.getText(a.source);
  const optional = node.questionToken ? '?' : '';
  let type = node.type ? node.type.getText(a.source) : undefined;
  if (a.checker) type = a.checker.typeToString(a.checker.getTypeAtLocation(node), node, ts.TypeFormatFlags.NoTruncation);
  return oneLine(`${name}${optional}${type ? `: ${type}` : ''}`, 140);
}

function interfaceMembers(a: Analysis, node: ts.InterfaceDeclaration): MemberSummary[] {
  return node.members.map((member): MemberSummary => {
    const kind: MemberSummary['kind'] = ts.isMethodSignature(member) || ts.isCallSignatureDeclaration(member) || ts.isConstructSignatureDeclaration(member) ? 'method' : ts.isIndexSignatureDeclaration(member) ? 'index' : 'property';
    // The interface's own words are its signature: the checker would only expand aliases.
    return { name: member.name?.getText(a.source) ?? '[index]', kind, signature: oneLine(member.getText(a.source).replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '').replace(/[;,]\s*$/, ''), 140), line: lineOf(a.source, member.getStart(a.source)), modifiers: modifiersOf(member) };
  });
}
