// The Implement task: offered on exported interfaces and abstract classes; its answer becomes a new file holding a class that implements or extends it, checked to type-check.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Verdict } from '../protocol.js';
import { declarationStartingAt, listDeclarations, parseDocument, topLevelStatementAround, withSyntaxTree } from '../repo/declarations.js';
import type { DeclarationTarget } from '../repo/declarations.js';
import { formatAnnotation } from '../edits/annotation.js';
import type { Proposal } from '../edits/proposal.js';
import { formatFileErrors, typeCheckNewFile } from '../oracle/typeCheck.js';
import { pathToUri, syntaxFileName, uriToPath } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationTarget } from './documentTask.js';
import { extractCode } from './testTask.js';
import type { TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';

/**
 * Skeletons an agent computed with TypeScript's own fixes (the offline agent): their members may still throw "not
 * implemented", which is what they promise; an answer a model wrote must have every member written.
 */
const skeletons = new WeakSet<Proposal>();

/** What can be implemented in a new file: an exported interface, or an exported abstract class. */
export interface Implementable {
  kind: 'interface' | 'abstract-class';
  node: ts.InterfaceDeclaration | ts.ClassDeclaration;
  name: string;
  /** `export default`: imported without braces. */
  defaultExport: boolean;
}

/** The implementable declaration a statement is, if any (syntax only). */
export function implementableOf(statement: ts.Statement): Implementable | undefined {
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return undefined;
  const defaultExport = modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
  if (ts.isInterfaceDeclaration(statement)) return { kind: 'interface', node: statement, name: statement.name.text, defaultExport };
  if (ts.isClassDeclaration(statement) && statement.name && modifiers.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword)) return { kind: 'abstract-class', node: statement, name: statement.name.text, defaultExport };
  return undefined;
}

/** The top-level implementable declaration whose lines the range lies in, with its target; its node stays valid. */
export function implementableAt(document: DocumentSnapshot, start: number, end: number): { implementable: Implementable; declaration: DeclarationTarget } | undefined {
  const fileName = syntaxFileName(document);
  return implementable(fileName) ? implementableIn(parseDocument(fileName, document.text), fileName, document, start, end) : undefined;
}

/** JavaScript has no interfaces or abstract classes; a declaration file's types are implemented where they are used. */
function implementable(fileName: string): boolean {
  return !/\.[cm]?jsx?$/i.test(fileName) && !/\.d\.[cm]?ts$/i.test(fileName);
}

function implementableIn(source: ts.SourceFile, fileName: string, document: DocumentSnapshot, start: number, end: number): { implementable: Implementable; declaration: DeclarationTarget } | undefined {
  const statement = topLevelStatementAround(source, start, end);
  const implementable = statement && implementableOf(statement);
  if (!statement || !implementable) return undefined;
  const declaration = declarationStartingAt(fileName, document.text, statement.getStart(source), ['interface', 'class']);
  return declaration ? { implementable, declaration } : undefined;
}

/**
 * The class name for an implementation: `IStore` → `Store`, `Store` → `StoreImpl` (an interface);
 * `AbstractShape`, `BaseShape` or `ShapeBase` → `Shape`, `Shape` → `ConcreteShape` (an abstract class).
 */
export function implementationName(name: string, kind: Implementable['kind']): string {
  if (kind === 'interface') return /^I[A-Z][a-z]/.test(name) ? name.slice(1) : `${name}Impl`;
  if (/^Abstract[A-Z]/.test(name)) return name.slice('Abstract'.length);
  if (/^Base[A-Z]/.test(name)) return name.slice('Base'.length);
  if (/[a-z0-9]Base$/.test(name)) return name.slice(0, -'Base'.length);
  return `Concrete${name}`;
}

/** `<dir>/<ClassName>.ts` beside the declaration (`.mts`/`.cts` for modules that are). */
export function implementationPath(sourcePath: string, className: string): string {
  const ext = /\.([cm])ts$/.exec(sourcePath)?.[1];
  return path.join(path.dirname(sourcePath), `${className}.${ext ? `${ext}ts` : 'ts'}`);
}

/** A class name not yet used by a file beside the source or a declaration in it: `Name`, `Name2`, `Name3` … */
export function freeClassName(sourcePath: string, sourceText: string, wanted: string): string {
  const taken = new Set(listDeclarations(sourcePath, sourceText).map((d) => d.simpleName));
  for (let n = 1; n < 100; n++) {
    const name = n === 1 ? wanted : `${wanted}${n}`;
    if (!taken.has(name) && !fs.existsSync(implementationPath(sourcePath, name))) return name;
  }
  return `${wanted}${Date.now()}`;
}

const CLASS_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * The new class's name when the request gives one: "as Circle", "named X", "called X", or the name before "that
 * implements" / "extending" ("a class InMemoryRepo that implements Repo", "a Square that extends Shape").
 */
export function requestedClassName(text: string): string | undefined {
  return (
    /\b(?:as|named|called)\s+(?:class\s+)?`?([A-Z][\w$]*)`?/.exec(text)?.[1] ??
    /`?([A-Z][\w$]*)`?\s+(?:(?:that|which)\s+)?(?:implements|extends|implementing|extending)\b/.exec(text)?.[1]
  );
}

export const implementTask: TaskDefinition = {
  id: 'implement',

  offersAt({ document, start, end }): TaskOffer[] {
    if (!document.fsPath) return [];
    const fileName = syntaxFileName(document);
    if (!implementable(fileName)) return [];
    // Only the name and the target leave the tree, which is lent for this call only.
    const found = withSyntaxTree(fileName, document.text, (source) => {
      const at = implementableIn(source, fileName, document, start, end);
      return at && { name: at.implementable.name, declaration: at.declaration };
    });
    if (!found) return [];
    // A refactoring, not a source action: it adds a declaration built from the one under the cursor.
    return [{ task: 'implement', title: `Assistant: Implement ${found.name} in a new class`, kind: 'refactor.assistant.implement', target: declarationTarget(found.declaration) }];
  },

  askTarget(document, start, end, text): { target: TaskTarget; parameters?: Record<string, string> } | undefined {
    const offer = implementTask.offersAt({ document, start, end, diagnostics: [] })[0];
    if (!offer) return undefined;
    const named = requestedClassName(text);
    const usable = named !== undefined && named !== offer.target.declaration?.simpleName ? named : undefined;
    return { target: offer.target, ...(usable ? { parameters: { className: usable } } : {}) };
  },

  convertAnswer(answer, run, annotation): TaskAnswer {
    const sourcePath = run.document.fsPath;
    const declaration = run.target.declaration;
    if (!sourcePath || !declaration) return { ok: false, reason: 'a class can only be added beside a file on disk' };
    const code = extractCode(answer.text);
    if (!code) return { ok: false, reason: 'the answer holds no code' };
    const clean = code.split('\n').filter((line) => !/^\s*(\/\/|\*)\s*@assistant\b/.test(line)).join('\n').trimEnd();
    const source = ts.createSourceFile('answer.ts', clean, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const syntax = ts.transpileModule(clean, { fileName: 'answer.ts', reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022 } }).diagnostics?.find((d) => d.category === ts.DiagnosticCategory.Error);
    if (syntax) return { ok: false, reason: `the class does not parse: ${ts.flattenDiagnosticMessageText(syntax.messageText, ' ')}` };
    const implementing = source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name !== undefined && heritageNames(s).includes(declaration.simpleName));
    if (!implementing?.name) return { ok: false, reason: `the answer holds no class that implements or extends ${declaration.simpleName}` };
    const className = implementing.name.text;
    if (!CLASS_NAME.test(className)) return { ok: false, reason: `${className} cannot name a file` };
    const filePath = implementationPath(sourcePath, className);
    if (fs.existsSync(filePath)) return { ok: false, reason: `${path.basename(filePath)} already exists` };
    let text = clean;
    if (annotation) {
      // On its own line right above the class, where the code-to-interaction lookup reads line comments.
      let at = implementing.getStart(source);
      while (at > 0 && text[at - 1] !== '\n') at--;
      text = `${text.slice(0, at)}// ${formatAnnotation(annotation)}\n${text.slice(at)}`;
    }
    text = `${text}\n`;
    const proposal: Proposal = { documents: [], creates: [{ uri: pathToUri(filePath), text }] };
    // An answer that comes with its own proposal was computed by its agent from TypeScript's fixes.
    if (answer.proposal) skeletons.add(proposal);
    return { ok: true, kind: 'edit', proposal, text };
  },

  async check(proposal, _run, context, signal): Promise<Verdict> {
    signal.throwIfAborted();
    const created = proposal.creates[0];
    const filePath = created ? uriToPath(created.uri) : undefined;
    if (!created || !filePath) return { passed: false, summary: 'the proposal creates no file' };
    const label = path.relative(context.root, filePath).split(path.sep).join('/');
    const errors = typeCheckNewFile(context.project, { path: filePath, text: created.text });
    signal.throwIfAborted();
    if (errors.length > 0) return { passed: false, summary: `${errors.length} type error${errors.length > 1 ? 's' : ''} in ${label}`, details: formatFileErrors(label, errors).slice(0, 30) };
    const members = memberNames(created.text);
    if (skeletons.has(proposal)) return { passed: true, summary: `${label} type-checks; ${members.all.length} members, to be written` };
    if (members.placeholders.length > 0) {
      return { passed: false, summary: `${members.placeholders.length} member${members.placeholders.length > 1 ? 's are' : ' is'} not written yet`, details: members.placeholders.map((m) => `${m} still throws "not implemented": write its body`) };
    }
    return { passed: true, summary: `${label} type-checks; ${members.all.length} members written` };
  },
};

/** The names a class's `implements` and `extends` clauses mention (without type arguments or qualifiers). */
function heritageNames(node: ts.ClassDeclaration): string[] {
  return (node.heritageClauses ?? []).flatMap((clause) =>
    clause.types.map((type) => {
      let expression: ts.Expression = type.expression;
      while (ts.isPropertyAccessExpression(expression)) expression = expression.name;
      return ts.isIdentifier(expression) ? expression.text : expression.getText();
    }),
  );
}

/** Every member of the file's classes, and those whose body only throws a "not implemented" error. */
export function memberNames(text: string): { all: string[]; placeholders: string[] } {
  const source = ts.createSourceFile('class.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const all: string[] = [];
  const placeholders: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement)) continue;
    for (const member of statement.members) {
      const name = member.name ? member.name.getText(source) : ts.isConstructorDeclaration(member) ? 'constructor' : ts.isIndexSignatureDeclaration(member) ? '[index]' : undefined;
      if (!name) continue;
      all.push(name);
      const body = ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member) || ts.isConstructorDeclaration(member) ? member.body : undefined;
      if (body && ts.isBlock(body) && body.statements.length === 1 && ts.isThrowStatement(body.statements[0] as ts.Statement) && /not implemented/i.test(body.getText(source))) placeholders.push(name);
    }
  }
  return { all, placeholders };
}
