// The offline Fix agent: the TypeScript language service's own code fixes at the diagnostic (missing import, spelling, add await, implement interface, infer types …), each a candidate.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import type { WorkspaceProject } from '../../workspace/workspaceProject.js';
import type { Proposal } from '../../edits/proposal.js';
import type { DocumentEditPlan } from '../../edits/textEdits.js';
import type { DiagnosticInfo } from '../../tasks/task.js';
import { diagnosticsOf, projectPathOf } from '../../oracle/typeCheck.js';
import { pathToUri } from '../../workspace/documentSnapshot.js';
import { eslintFix } from './lintFix.js';
import { editDistance } from '../../repo/lexical/terms.js';

/** An answer with the reason it is empty; the orchestrator records `error: 'the agent had nothing to offer'` until it reads `reason`. */
type ReasonedAnswer = AgentAnswer & { reason?: string };

/** Format settings that follow the file: its newline, and tabs or its smallest indentation step. */
export function formatSettingsFor(text: string): ts.FormatCodeSettings {
  const newLine = text.includes('\r\n') ? '\r\n' : '\n';
  let tabs = 0;
  let spaces = 0;
  let step = 0;
  for (const line of text.split(/\r?\n/)) {
    const indent = /^[ \t]+(?=\S)/.exec(line)?.[0];
    // Continuation lines of block comments (` * text`) say nothing about the indentation step.
    if (!indent || /^\s*\*/.test(line)) continue;
    if (indent.startsWith('\t')) tabs++;
    else {
      spaces++;
      if (step === 0 || indent.length < step) step = indent.length;
    }
  }
  const size = step > 0 && step <= 8 ? step : 2;
  return { ...ts.getDefaultFormatCodeSettings(newLine), indentSize: size, tabSize: tabs > spaces ? 4 : size, convertTabsToSpaces: tabs <= spaces, newLineCharacter: newLine, semicolons: ts.SemicolonPreference.Ignore };
}

const PREFERENCES: ts.UserPreferences = {
  quotePreference: 'auto',
  importModuleSpecifierPreference: 'shortest',
  importModuleSpecifierEnding: 'auto',
  includePackageJsonAutoImports: 'auto',
  allowTextChangesInNewFiles: true,
};

/** The TypeScript error code of a diagnostic, when it has one. */
function typeScriptCode(diagnostic: DiagnosticInfo): number | undefined {
  const fromTs = diagnostic.source === undefined || /^(ts|typescript|deno-ts|tsserver)$/i.test(diagnostic.source);
  const code = typeof diagnostic.code === 'number' ? diagnostic.code : /^(?:TS)?(\d+)$/i.exec(String(diagnostic.code ?? ''))?.[1];
  return fromTs && code !== undefined ? Number(code) : undefined;
}

/** Whether a file lies inside the workspace and outside dependencies: the only files a fix may edit or create. */
function editable(root: string, fileName: string): boolean {
  const relative = path.relative(root, fileName);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && !relative.split(/[\\/]/).includes('node_modules');
}

/** Answers Fix requests offline with the compiler's own fixes; deterministic, and checked by the oracle like any other. */
export class OfflineFixAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'fix-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['fix'];
  readonly description = "Applies the TypeScript compiler's own code fixes at a diagnostic (missing import, spelling, add await, implement interface, infer types …), and ESLint's own fix at a lint finding, without a model.";

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const diagnostic = request.target.diagnostic;
    if (!diagnostic) return nothing('there is no diagnostic to fix here');
    // ESLint's own fix first; a lint finding the compiler also explains (a missing await) may still get a compiler fix.
    if (diagnostic.source === 'eslint') {
      const lint = await eslintFix(request, signal);
      if (lint.proposal) return lint;
    }
    const { document, project } = request;
    if (!/^(typescript|javascript)(react)?$/.test(document.languageId)) return nothing(`${document.languageId} files have no TypeScript code fixes`);
    // Yield once so a cancellation that arrived with the request is seen before the synchronous compiler work.
    await new Promise((resolve) => setImmediate(resolve));
    signal.throwIfAborted();

    const fsPath = projectPathOf(project, document.uri, document.languageId);
    let fixes: readonly ts.CodeFixAction[];
    let fileName: string;
    try {
      // Auto-import fixes search the program's files, so the whole tsconfig must be in it, not just what this file imports.
      project.loadConfigFiles('all');
      fileName = project.sourceFile(fsPath, document.text).getFilePath();
      fixes = codeFixes(project, fileName, document.text, diagnostic);
    } catch (error) {
      return nothing(`the TypeScript project could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    signal.throwIfAborted();

    const answers: AgentAnswer[] = [];
    const seen = new Set<string>();
    for (const fix of fixes) {
      // Fixes that need a command run (installing @types packages) cannot be expressed as an edit.
      if (fix.commands && fix.commands.length > 0) continue;
      const proposal = toProposal(project, fix, fileName, request);
      if (!proposal) continue;
      const key = JSON.stringify(proposal);
      if (seen.has(key)) continue;
      seen.add(key);
      answers.push({ text: fix.description, proposal });
    }
    // The spelling the message suggests, or a member one typo away, goes first unless the compiler already offers a
    // spelling change: a slip is likelier than a missing member, and "Declare property" would widen the type instead.
    if (!answers.some((a) => a.text.startsWith('Change spelling to'))) {
      const spelling = (answers.length === 0 ? suggestedSpelling(project, fileName, document.text, diagnostic) : undefined) ?? nearMember(project, fileName, diagnostic);
      if (spelling) {
        const edit = { start: spelling.start, end: spelling.end, newText: spelling.name };
        answers.unshift({ text: `Change spelling to '${spelling.name}'`, proposal: { documents: [{ uri: document.uri, version: document.version, baseText: document.text, edits: [edit] }], creates: [] } });
      }
    }
    const [first, ...alternatives] = answers;
    if (!first) {
      const code = typeScriptCode(diagnostic);
      return nothing(code === undefined ? 'the diagnostic is not a TypeScript error, and the compiler reports none at its place' : `TypeScript has no code fix for TS${code} here`);
    }
    return { ...first, ...(alternatives.length > 0 ? { alternatives } : {}) };
  }
}

function nothing(reason: string): ReasonedAnswer {
  return { text: '', reason };
}

/**
 * The language service's fixes for the diagnostic's code at its span. When the client's diagnostic has no
 * TypeScript code (another source) or no fix matches its span, the compiler's own diagnostics overlapping
 * that span are asked instead.
 */
function codeFixes(project: WorkspaceProject, fileName: string, text: string, diagnostic: DiagnosticInfo): readonly ts.CodeFixAction[] {
  const service = project.tsProject().getLanguageService().compilerObject;
  const format = formatSettingsFor(text);
  const ask = (start: number, end: number, code: number): readonly ts.CodeFixAction[] => {
    try {
      return service.getCodeFixesAtPosition(fileName, start, end, [code], format, PREFERENCES);
    } catch {
      // A code the language service has no fix registered for, or a span it cannot map, means "no fix".
      return [];
    }
  };
  const code = typeScriptCode(diagnostic);
  if (code !== undefined) {
    const fixes = ask(diagnostic.start, diagnostic.end, code);
    if (fixes.length > 0) return fixes;
  }
  const own = diagnosticsOf(project, fileName, text).filter((d) => d.start <= diagnostic.end && d.end >= diagnostic.start && (code === undefined || d.code === code));
  return own.flatMap((d) => ask(d.start, d.end, Number(d.code)));
}

/** The name the compiler suggests in "Did you mean 'x'?" or "Did you mean to write 'x'?", quoted last in its message. */
const DID_YOU_MEAN = /Did you mean (?:to write )?'([A-Za-z_$][\w$]*)'\?/;

/**
 * The compiler's own spelling suggestion where it offers no code fix for it (TS2561, an object literal's unknown
 * property): the misspelt name at the diagnostic's span and the name to write instead. Only when the span holds
 * exactly the name the message quotes, so nothing but that name changes.
 */
function suggestedSpelling(project: WorkspaceProject, fileName: string, text: string, diagnostic: DiagnosticInfo): { start: number; end: number; name: string } | undefined {
  const candidates = [diagnostic, ...diagnosticsOf(project, fileName, text).filter((d) => d.start <= diagnostic.end && d.end >= diagnostic.start)];
  for (const candidate of candidates) {
    const name = DID_YOU_MEAN.exec(candidate.message)?.[1];
    const written = text.slice(candidate.start, candidate.end);
    if (name && written !== name && /^[A-Za-z_$][\w$]*$/.test(written) && candidate.message.includes(`'${written}'`)) return { start: candidate.start, end: candidate.end, name };
  }
  return undefined;
}

/**
 * The member a misspelt property access meant, where the compiler suggests none (TS2339: it skips short names, and
 * a swap of two letters counts twice in its measure): the one member of the object's type one typo away (two for
 * names of eight letters or more). Nothing when several are as near.
 */
function nearMember(project: WorkspaceProject, fileName: string, diagnostic: DiagnosticInfo): { start: number; end: number; name: string } | undefined {
  // 2339: no such property; where an index signature admits any name, the slip shows later, as a value of type
  // unknown (18046), possibly undefined (18048) or of the wrong type for an argument (2345).
  const code = typeScriptCode(diagnostic);
  if (code !== 2339 && code !== 18046 && code !== 18048 && code !== 2345) return undefined;
  const program = project.tsProject().getLanguageService().compilerObject.getProgram();
  const source = program?.getSourceFile(fileName);
  if (!program || !source) return undefined;
  let access: ts.PropertyAccessExpression | undefined;
  const find = (node: ts.Node): void => {
    if (access || diagnostic.start < node.getFullStart() || diagnostic.start >= node.getEnd()) return;
    const whole = node.getStart(source) === diagnostic.start && node.getEnd() === diagnostic.end;
    if (ts.isPropertyAccessExpression(node) && (node.name.getStart(source) === diagnostic.start || whole)) access = node;
    else ts.forEachChild(node, find);
  };
  find(source);
  if (!access || !ts.isIdentifier(access.name)) return undefined;
  const checker = program.getTypeChecker();
  const written = access.name.text;
  const type = checker.getApparentType(checker.getTypeAtLocation(access.expression));
  const members = type.getProperties().map((p) => p.getName());
  // A function's members (`apply`, `bind`, `call`) come from the global Function interface, not from its type.
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) {
    const global = checker.getSymbolsInScope(source, ts.SymbolFlags.Interface).find((symbol) => symbol.getName() === 'Function');
    if (global) members.push(...checker.getDeclaredTypeOfSymbol(global).getProperties().map((p) => p.getName()));
  }
  if (members.includes(written)) return undefined;
  const reach = written.length >= 8 ? 2 : 1;
  const scored = members.map((name) => ({ name, distance: editDistance(written, name, reach) })).filter((m) => m.distance <= reach);
  const best = Math.min(...scored.map((m) => m.distance));
  const nearest = scored.filter((m) => m.distance === best);
  if (nearest.length !== 1) return undefined;
  return { start: access.name.getStart(source), end: access.name.getEnd(), name: nearest[0]!.name };
}

/** A code fix as a proposal: the request's document on its exact text, other files on the program's text, new files as creations. */
function toProposal(project: WorkspaceProject, fix: ts.CodeFixAction, fileName: string, request: AgentRequest): Proposal | undefined {
  const program = project.tsProject().getLanguageService().compilerObject.getProgram();
  const documents: DocumentEditPlan[] = [];
  const creates: Proposal['creates'] = [];
  for (const change of fix.changes) {
    const own = change.fileName === fileName;
    if (!own && !editable(project.root, change.fileName)) return undefined;
    if (change.isNewFile) {
      creates.push({ uri: pathToUri(change.fileName), text: change.textChanges.map((c) => c.newText).join('') });
      continue;
    }
    const baseText = own ? request.document.text : program?.getSourceFile(change.fileName)?.text;
    if (baseText === undefined) return undefined;
    const edits = change.textChanges.map((c) => ({ start: c.span.start, end: c.span.start + c.span.length, newText: c.newText }));
    // Another open document's version is unknown here; applying moves the edits onto the editor's current text.
    documents.push({ uri: own ? request.document.uri : pathToUri(change.fileName), version: own ? request.document.version : null, baseText, edits });
  }
  if (documents.length === 0 && creates.length === 0) return undefined;
  return { documents, creates };
}
