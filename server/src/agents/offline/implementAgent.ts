// The offline Implement agent: a new class file implementing an interface or extending an abstract class, filled by TypeScript's own code fixes.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Project } from 'ts-morph';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import type { DeclarationTarget } from '../../repo/declarations.js';
import { moduleSpecifier } from '../../repo/testFramework.js';
import type { Workspace } from '../../workspace/workspace.js';
import { fileErrors } from '../../oracle/typeCheck.js';
import type { FileDiagnostic } from '../../oracle/typeCheck.js';
import { freeClassName, implementableAt, implementationName, implementationPath, memberNames } from '../../tasks/implementTask.js';
import type { Implementable } from '../../tasks/implementTask.js';
import { pathToUri } from '../../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../../workspace/documentSnapshot.js';

/** Answers Implement requests offline: the members TypeScript's "implement interface / abstract members" fixes write. */
export class OfflineImplementAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'implement-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['implement'];
  readonly description = "Creates a class implementing an interface or extending an abstract class, with every member written by TypeScript's own implement fixes.";

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const target = request.target.declaration;
    if (!target || !request.document.fsPath) return { text: '' };
    const skeleton = implementSkeleton(request.workspace, request.document, target, request.parameters.className);
    signal.throwIfAborted();
    if (!skeleton) return { text: '' };
    // The proposal marks the answer as computed here; the task builds the one it offers from the text.
    return { text: skeleton.text, proposal: { documents: [], creates: [{ uri: pathToUri(skeleton.filePath), text: skeleton.text }] } };
  }
}

export interface Skeleton {
  className: string;
  filePath: string;
  text: string;
  kind: Implementable['kind'];
  /** The class's members once TypeScript's fixes ran. */
  members: string[];
  /** Errors the fixes could not remove (the task's check will reject the skeleton with them). */
  errors: FileDiagnostic[];
}

/** Error codes TypeScript has a fix for that the skeleton needs, with the fix to take among those it offers. */
const FIXES: ReadonlyMap<number, (fixes: readonly ts.CodeFixAction[]) => ts.CodeFixAction | undefined> = new Map([
  // Class incorrectly implements interface.
  [2420, named('fixClassIncorrectlyImplementsInterface')],
  // Non-abstract class does not implement inherited abstract member(s).
  [2515, named('fixClassDoesntImplementInheritedAbstractMember')],
  [2653, named('fixClassDoesntImplementInheritedAbstractMember')],
  [2654, named('fixClassDoesntImplementInheritedAbstractMember')],
  [2655, named('fixClassDoesntImplementInheritedAbstractMember')],
  [18052, named('fixClassDoesntImplementInheritedAbstractMember')],
  // A property without initializer under strictPropertyInitialization: an initializer when TypeScript knows one, else `!`.
  [2564, (fixes) => fixes.find((f) => / = /.test(newTexts(f))) ?? fixes.find((f) => /!:/.test(newTexts(f)))],
  // A type the copied signatures name but the new file does not import.
  [2304, named('import')],
  [2552, named('import')],
  // noImplicitOverride.
  [4114, named('fixOverrideModifier')],
  [4116, named('fixOverrideModifier')],
  // noUnusedParameters: the parameters of members that only throw are unused until someone writes them.
  [6133, (fixes) => fixes.find((f) => /^_/.test(newTexts(f)))],
]);

function named(fixName: string): (fixes: readonly ts.CodeFixAction[]) => ts.CodeFixAction | undefined {
  return (fixes) => fixes.find((f) => f.fixName === fixName);
}

function newTexts(fix: ts.CodeFixAction): string {
  return fix.changes.flatMap((c) => c.textChanges.map((t) => t.newText)).join('');
}

/**
 * The new class for the interface or abstract class at `target`: an `implements`/`extends` declaration in a file
 * beside it, which TypeScript's code fixes then fill (members that throw "Method not implemented.", imports of the
 * types they name, initializers, `override`), in the project's type-check overlay, which never touches the disk.
 */
export function implementSkeleton(workspace: Workspace, document: DocumentSnapshot, target: DeclarationTarget, requestedName?: string): Skeleton | undefined {
  const sourcePath = document.fsPath;
  if (!sourcePath) return undefined;
  const found = implementableAt(document, target.start, target.start);
  if (!found) return undefined;
  const { implementable } = found;
  const wanted = requestedName && /^[A-Za-z_$][\w$]*$/.test(requestedName) ? requestedName : implementationName(implementable.name, implementable.kind);
  const className = freeClassName(sourcePath, document.text, wanted);
  const filePath = implementationPath(sourcePath, className);
  const style = codeStyle(document.text);
  const suffix = workspace.testConvention(sourcePath).importSuffix;
  const specifier = moduleSpecifier(filePath, sourcePath, suffix);
  const source = implementable.node.getSourceFile();
  const typeParameters = implementable.node.typeParameters;
  const declared = typeParameters ? `<${typeParameters.map((p) => p.getText(source)).join(', ')}>` : '';
  const applied = typeParameters ? `<${typeParameters.map((p) => p.name.text).join(', ')}>` : '';
  const q = style.quote;
  const binding = implementable.defaultExport ? implementable.name : `{ ${implementable.name} }`;
  const importLine = implementable.kind === 'interface' ? `import type ${binding} from ${q}${specifier}${q};` : `import ${binding} from ${q}${specifier}${q};`;
  const heritage = implementable.kind === 'interface' ? `implements ${implementable.name}${applied}` : `extends ${implementable.name}${applied}`;
  const initial = `${importLine}\n\nexport class ${className}${declared} ${heritage} {\n}\n`;

  return workspace.projects.forFile(sourcePath).withOverlay([{ path: sourcePath, text: document.text }, { path: filePath, text: initial }], (project) => {
    const file = project.getSourceFileOrThrow(filePath);
    applyFixes(project, filePath, style);
    // After the members, which TypeScript inserts at the top of the class; its parameter types may need imports too.
    if (implementable.kind === 'abstract-class' && addPublicConstructor(project, filePath, sourcePath, implementable.name, style.indent)) applyFixes(project, filePath, style);
    file.formatText({ indentSize: style.indent.length, tabSize: style.indent.length, convertTabsToSpaces: !style.indent.includes('\t') });
    // The fixes insert members after the opening brace with a blank line; classes here open without one.
    const text = `${file.getFullText().replace(/(\bclass\b[^{]*\{)\n\s*\n/, '$1\n').trimEnd()}\n`;
    file.replaceWithText(text);
    return { className, filePath, text, kind: implementable.kind, members: memberNames(text).all, errors: fileErrors(project, filePath) };
  });
}

/**
 * A subclass of a class whose constructor is protected would inherit it and could not be created either, so the
 * skeleton gets a public constructor that passes its parameters on.
 */
function addPublicConstructor(project: Project, filePath: string, sourcePath: string, baseName: string, indent: string): boolean {
  const program = project.getProgram().compilerObject;
  const checker = program.getTypeChecker();
  const base = program.getSourceFile(sourcePath)?.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === baseName);
  if (!base?.name) return false;
  const symbol = checker.getSymbolAtLocation(base.name);
  if (!symbol) return false;
  const signature = checker.getTypeOfSymbolAtLocation(symbol, base).getConstructSignatures()[0];
  const declaration = signature?.getDeclaration();
  if (!declaration || !ts.isConstructorDeclaration(declaration)) return false;
  const modifiers = ts.getModifiers(declaration) ?? [];
  if (!modifiers.some((m) => m.kind === ts.SyntaxKind.ProtectedKeyword)) return false;
  const declarationSource = declaration.getSourceFile();
  const parameters = declaration.parameters.map((p) => {
    const name = p.name.getText(declarationSource);
    const optional = p.questionToken !== undefined || p.initializer !== undefined;
    const type = p.type ? p.type.getText(declarationSource) : checker.typeToString(checker.getTypeAtLocation(p));
    return { text: `${p.dotDotDotToken ? '...' : ''}${name}${optional && !p.dotDotDotToken ? '?' : ''}: ${type}`, pass: `${p.dotDotDotToken ? '...' : ''}${name}` };
  });
  const file = project.getSourceFileOrThrow(filePath);
  const text = file.getFullText();
  const open = text.indexOf('{', text.indexOf(' class ')) + 1;
  const constructor = `\n${indent}constructor(${parameters.map((p) => p.text).join(', ')}) {\n${indent}${indent}super(${parameters.map((p) => p.pass).join(', ')});\n${indent}}`;
  file.replaceWithText(`${text.slice(0, open)}${constructor}${text.slice(open)}`);
  return true;
}

/** Applies TypeScript's fixes for the errors in FIXES one at a time, re-checking after each, until none is left. */
function applyFixes(project: Project, filePath: string, style: CodeStyle): void {
  const service = project.getLanguageService().compilerObject;
  const file = project.getSourceFileOrThrow(filePath);
  const format: ts.FormatCodeSettings = { ...ts.getDefaultFormatCodeSettings('\n'), indentSize: style.indent.length, tabSize: style.indent.length, convertTabsToSpaces: !style.indent.includes('\t') };
  const preferences: ts.UserPreferences = {
    quotePreference: style.quote === "'" ? 'single' : 'double',
    importModuleSpecifierPreference: 'relative',
    importModuleSpecifierEnding: 'auto',
    includePackageJsonAutoImports: 'off',
  };
  const tried = new Set<string>();
  for (let round = 0; round < 60; round++) {
    const program = project.getProgram().compilerObject;
    const compiled = program.getSourceFile(filePath);
    if (!compiled) return;
    const diagnostics = [...program.getSyntacticDiagnostics(compiled), ...program.getSemanticDiagnostics(compiled)];
    const text = file.getFullText();
    const next = diagnostics.find((d) => d.start !== undefined && FIXES.has(d.code) && !tried.has(`${d.code}:${d.start}:${text.length}`));
    if (!next || next.start === undefined) return;
    tried.add(`${next.code}:${next.start}:${text.length}`);
    const fixes = service.getCodeFixesAtPosition(filePath, next.start, next.start + (next.length ?? 0), [next.code], format, preferences);
    const fix = FIXES.get(next.code)?.(fixes);
    const changes = fix?.changes.filter((c) => path.resolve(c.fileName) === path.resolve(filePath)).flatMap((c) => c.textChanges) ?? [];
    if (changes.length === 0) continue;
    file.replaceWithText(applyTextChanges(text, changes));
  }
}

/** Applies text changes made on one text; changes at the same offset keep their order. */
function applyTextChanges(text: string, changes: readonly ts.TextChange[]): string {
  const ordered = changes.map((change, index) => ({ change, index })).sort((a, b) => b.change.span.start - a.change.span.start || b.index - a.index);
  let out = text;
  for (const { change } of ordered) out = out.slice(0, change.span.start) + change.newText + out.slice(change.span.start + change.span.length);
  return out;
}

interface CodeStyle {
  indent: string;
  quote: "'" | '"';
}

/** The indentation and quotes of the interface's own file, so the new class looks like its neighbours. */
function codeStyle(text: string): CodeStyle {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const indent = indented.includes('\t') ? '\t' : indented.length >= 4 ? '    ' : '  ';
  const single = (text.match(/from\s+'/g) ?? []).length;
  const double = (text.match(/from\s+"/g) ?? []).length;
  return { indent, quote: double > single ? '"' : "'" };
}
