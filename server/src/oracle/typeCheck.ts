// The type-check oracle: texts type-checked in memory over a workspace project (a proposal's files before and after, judged by a rule; a new file's errors).
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Project } from 'ts-morph';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver-protocol';
import type { Verdict } from '../protocol.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { Proposal } from '../edits/proposal.js';
import { applyOffsetEdits, lineStarts, offsetToPosition } from '../edits/textEdits.js';
import type { DiagnosticInfo } from '../tasks/task.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

/** One compiler diagnostic of one checked file, as the rules and messages see it. */
export interface CheckedDiagnostic {
  code: number;
  /** The whole message chain, flattened. */
  message: string;
  category: 'error' | 'warning' | 'suggestion' | 'message';
  /** One-based line in the text the diagnostic was computed on. */
  line: number;
  start: number;
  end: number;
}

/** One file of a proposal: its diagnostics before and after, and the ones that are new. */
export interface FileComparison {
  uri: string;
  /** Workspace-relative path (or the URI) for messages. */
  label: string;
  before: CheckedDiagnostic[];
  after: CheckedDiagnostic[];
  /** After-diagnostics whose code and message did not occur before (counting multiplicities). */
  fresh: CheckedDiagnostic[];
}

/** What a rule judges: every checked file and the totals. */
export interface Comparison {
  files: FileComparison[];
  before: number;
  after: number;
  fresh: number;
}

/** A rule passes a comparison, or says why not in a few words. */
export type DiagnosticRule = (comparison: Comparison) => { passed: true } | { passed: false; reason: string };

/** For fixes (the Copilot harness rule): strictly fewer diagnostics in total and no new one. */
export const fixRule: DiagnosticRule = (c) => {
  if (c.fresh > 0) return { passed: false, reason: `${c.fresh} new ${plural(c.fresh, 'diagnostic')}` };
  if (c.after >= c.before) return { passed: false, reason: 'the fix must leave fewer diagnostics' };
  return { passed: true };
};

/** For tasks that add or rewrite code: nothing new may appear; existing problems may stay. */
export const noNewDiagnosticsRule: DiagnosticRule = (c) => (c.fresh > 0 ? { passed: false, reason: `${c.fresh} new ${plural(c.fresh, 'diagnostic')}` } : { passed: true });

/** Most lines of details in a verdict (they go back to the model as feedback and into the trace). */
const MAX_DETAILS = 20;

const CHECKABLE = /\.(?:[cm]?tsx?|[cm]?jsx?)$/i;

/**
 * The file name a document has in the project: its path, or, for untitled buffers, a stand-in inside the workspace
 * (so the workspace's compiler options apply) named after the URI.
 */
export function projectPathOf(project: WorkspaceProject, uri: string, languageId?: string): string {
  const fsPath = uriToPath(uri);
  if (fsPath) return fsPath;
  const ext = languageId?.startsWith('javascript') ? '.js' : '.ts';
  const stem = uri.replace(/^[a-z][\w+.-]*:/i, '').replace(/[^\w.-]+/g, '_').replace(/^_+/, '') || 'untitled';
  return path.join(project.root, '__assistant_untitled__', CHECKABLE.test(stem) ? stem : `${stem}${ext}`);
}

/**
 * Type-checks a proposal: for every edited file, the diagnostics of the plan's base text and of the edited text;
 * for every created file, the diagnostics of its content (a file that did not exist had none). Everything happens in
 * memory on the ts-morph project; the project's texts are restored afterwards, also when the check fails, and nothing
 * is written to disk. A check that cannot run is a failed verdict saying why; only cancellation throws.
 */
export function typeCheckProposal(project: WorkspaceProject, proposal: Proposal, signal: AbortSignal, rule: DiagnosticRule = noNewDiagnosticsRule): Promise<Verdict> {
  return project.inTurn(async () => {
    signal.throwIfAborted();
    let comparison: Comparison;
    try {
      comparison = compareProposal(project, proposal);
    } catch (error) {
      return { passed: false, summary: `the type check could not run: ${error instanceof Error ? error.message : String(error)}` };
    }
    signal.throwIfAborted();
    return verdictOf(comparison, rule);
  });
}

/** The file's own diagnostics (syntactic and semantic, the project's compiler options) for `text`, without changing the project. */
export function diagnosticsOf(project: WorkspaceProject, fsPath: string, text: string, onProgram?: (program: ts.Program) => void): DiagnosticInfo[] {
  return project.withOverlay([{ path: fsPath }], () => {
    const fileName = project.sourceFile(fsPath, text).getFilePath();
    const starts = lineStarts(text);
    const diagnostics = compilerDiagnostics(project, fileName).map((d) => toDiagnosticInfo(d, text, starts));
    // The program the check ran on, before the overlay is taken off (asking for it afterwards would build another).
    if (onProgram) {
      const program = project.tsProject().getLanguageService().compilerObject.getProgram();
      if (program) onProgram(program);
    }
    return diagnostics;
  });
}

/** A compiler diagnostic as the core's DiagnosticInfo, with an LSP diagnostic as `original` so a code action can carry it. */
export function toDiagnosticInfo(diagnostic: ts.Diagnostic, text: string, starts = lineStarts(text)): DiagnosticInfo {
  const start = Math.min(diagnostic.start ?? 0, text.length);
  const end = Math.min(start + (diagnostic.length ?? 0), text.length);
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const severity = severityOf(diagnostic.category);
  const original: LspDiagnostic = { range: { start: offsetToPosition(text, start, starts), end: offsetToPosition(text, end, starts) }, message, code: diagnostic.code, source: 'ts', severity: severity as LspDiagnostic['severity'] };
  return { start, end, message, code: diagnostic.code, source: 'ts', severity, original };
}

function severityOf(category: ts.DiagnosticCategory): number {
  switch (category) {
    case ts.DiagnosticCategory.Error:
      return 1;
    case ts.DiagnosticCategory.Warning:
      return 2;
    case ts.DiagnosticCategory.Suggestion:
      return 4;
    default:
      return 3;
  }
}

function categoryOf(category: ts.DiagnosticCategory): CheckedDiagnostic['category'] {
  switch (category) {
    case ts.DiagnosticCategory.Error:
      return 'error';
    case ts.DiagnosticCategory.Warning:
      return 'warning';
    case ts.DiagnosticCategory.Suggestion:
      return 'suggestion';
    default:
      return 'message';
  }
}

/**
 * "File is not listed within the file list of project": a composite project's program must hold every file of its
 * config, and ours holds only the files asked for and what they import; a file of a referenced project is one too,
 * where a build would read that project's output and an editor's language server its sources.
 */
const NOT_LISTED_IN_COMPOSITE_PROJECT = 6307;

/** Syntactic plus semantic diagnostics of one file, as the language service computes them, less those of our partial programs. */
export function fileDiagnostics(service: ts.LanguageService, fileName: string): ts.Diagnostic[] {
  return [...service.getSyntacticDiagnostics(fileName), ...service.getSemanticDiagnostics(fileName)].filter((d) => d.code !== NOT_LISTED_IN_COMPOSITE_PROJECT);
}

function compilerDiagnostics(project: WorkspaceProject, fileName: string): ts.Diagnostic[] {
  return fileDiagnostics(project.tsProject().getLanguageService().compilerObject, fileName);
}

function checked(project: WorkspaceProject, fileName: string, text: string): CheckedDiagnostic[] {
  const starts = lineStarts(text);
  return compilerDiagnostics(project, fileName).map((d) => {
    const start = Math.min(d.start ?? 0, text.length);
    return {
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      category: categoryOf(d.category),
      line: offsetToPosition(text, start, starts).line + 1,
      start,
      end: Math.min(start + (d.length ?? 0), text.length),
    };
  });
}

/** The before/after comparison of every TypeScript or JavaScript file a proposal touches. */
function compareProposal(project: WorkspaceProject, proposal: Proposal): Comparison {
  const root = project.root;
  const label = (uri: string, fsPath: string): string => (uriToPath(uri) ? path.relative(root, fsPath).split(path.sep).join('/') : uri);
  const edited = proposal.documents
    .map((plan) => ({ plan, fsPath: projectPathOf(project, plan.uri) }))
    .filter(({ fsPath }) => CHECKABLE.test(fsPath))
    .map(({ plan, fsPath }) => ({ uri: plan.uri, fsPath, before: plan.baseText, after: applyOffsetEdits(plan.baseText, plan.edits) }));
  const created = proposal.creates.map((c) => ({ uri: c.uri, fsPath: projectPathOf(project, c.uri), text: c.text })).filter(({ fsPath }) => CHECKABLE.test(fsPath));
  const files = [...edited.map((e) => e.fsPath), ...created.map((c) => c.fsPath)];

  return project.withOverlay(files.map((file) => ({ path: file })), () => {
    // Before: every edited file at its base text; created files are absent (a file that does not exist has no diagnostics).
    for (const c of created) {
      const existing = project.tsProject().getSourceFile(c.fsPath);
      if (existing) project.tsProject().removeSourceFile(existing);
    }
    const names = edited.map((e) => project.sourceFile(e.fsPath, e.before).getFilePath());
    const before = edited.map((e, i) => checked(project, names[i] as string, e.before));
    // After: all edits at once, since a change in one file (an export) can be what another file's fix needs.
    for (const e of edited) project.sourceFile(e.fsPath, e.after);
    const createdNames = created.map((c) => project.sourceFile(c.fsPath, c.text).getFilePath());
    const comparisons: FileComparison[] = edited.map((e, i) => compareFile(e.uri, label(e.uri, e.fsPath), before[i] ?? [], checked(project, names[i] as string, e.after)));
    created.forEach((c, i) => comparisons.push(compareFile(c.uri, label(c.uri, c.fsPath), [], checked(project, createdNames[i] as string, c.text))));
    const total = (pick: (f: FileComparison) => unknown[]): number => comparisons.reduce((n, f) => n + pick(f).length, 0);
    return { files: comparisons, before: total((f) => f.before), after: total((f) => f.after), fresh: total((f) => f.fresh) };
  });
}

/** New diagnostics: those whose code and message occur more often after than before. */
function compareFile(uri: string, label: string, before: CheckedDiagnostic[], after: CheckedDiagnostic[]): FileComparison {
  const key = (d: CheckedDiagnostic): string => `${d.code}\u0000${d.message}`;
  const remaining = new Map<string, number>();
  for (const d of before) remaining.set(key(d), (remaining.get(key(d)) ?? 0) + 1);
  const fresh: CheckedDiagnostic[] = [];
  for (const d of after) {
    const left = remaining.get(key(d)) ?? 0;
    if (left > 0) remaining.set(key(d), left - 1);
    else fresh.push(d);
  }
  return { uri, label, before, after, fresh };
}

/** The verdict: a one-line summary ("2 errors before, 0 after"), and as details the new diagnostics, or, when too few went away, the ones left. */
export function verdictOf(comparison: Comparison, rule: DiagnosticRule): Verdict {
  const judged = rule(comparison);
  const all = comparison.files.flatMap((f) => [...f.before, ...f.after]);
  const noun = all.every((d) => d.category === 'error') ? 'error' : 'diagnostic';
  const counts = `${comparison.before} ${plural(comparison.before, noun)} before, ${comparison.after} after`;
  const line = (f: FileComparison, d: CheckedDiagnostic, tag: string): string => `${tag}: ${f.label}:${d.line}: ${d.category} TS${d.code}: ${d.message.split('\n').join(' ')}`;
  const details = [
    ...comparison.files.flatMap((f) => f.fresh.map((d) => line(f, d, 'new'))),
    // When nothing new appeared but the count did not drop, what is still there is the useful feedback.
    ...(judged.passed || comparison.fresh > 0 ? [] : comparison.files.flatMap((f) => f.after.map((d) => line(f, d, 'still')))),
  ];
  const clipped = details.length > MAX_DETAILS ? [...details.slice(0, MAX_DETAILS), `… and ${details.length - MAX_DETAILS} more`] : details;
  return {
    passed: judged.passed,
    summary: judged.passed ? counts : `${counts}: ${judged.reason}`,
    ...(clipped.length > 0 ? { details: clipped } : {}),
  };
}

function plural(n: number, noun: string): string {
  return n === 1 ? noun : `${noun}s`;
}

/** A file as a check should see it, whatever the disk holds. */
export interface CheckedFile {
  path: string;
  text: string;
}

/** One error in a file, located for people (1-based line and column). */
export interface FileDiagnostic {
  line: number;
  column: number;
  code: number;
  message: string;
}

/** The syntax and type errors of one file of the project (warnings and suggestions left out). */
export function fileErrors(project: Project, filePath: string): FileDiagnostic[] {
  // The program, not the language service: a file removed and created again between two checks would otherwise be
  // taken for the same version, and checked as its old text.
  const program = project.getProgram().compilerObject;
  const source = program.getSourceFile(filePath);
  if (!source) return [{ line: 1, column: 1, code: 0, message: `${path.basename(filePath)} is not part of the program` }];
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
    .filter((d) => d.category === ts.DiagnosticCategory.Error && d.code !== NOT_LISTED_IN_COMPOSITE_PROJECT)
    .map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      return { line: at.line + 1, column: at.character + 1, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, ' ') };
    });
}

/** The errors of a new file, type-checked over the workspace project as the editor sees it (its buffers over the disk). */
export function typeCheckNewFile(project: WorkspaceProject, file: CheckedFile): FileDiagnostic[] {
  return project.withOverlay([file], (tsProject) => fileErrors(tsProject, path.resolve(file.path)));
}

/** `file.ts:3:5 TS2345 message`, one line per error, for verdict details and model feedback. */
export function formatFileErrors(fileLabel: string, errors: readonly FileDiagnostic[]): string[] {
  return errors.map((e) => `${fileLabel}:${e.line}:${e.column} TS${e.code} ${e.message}`);
}

/** The project files the workspace project holds (the editor's texts, which may differ from the disk). */
export function editorBuffers(project: WorkspaceProject): CheckedFile[] {
  try {
    return project
      .tsProject()
      .getSourceFiles()
      .filter((file) => !file.isInNodeModules() && !file.isFromExternalLibrary())
      .map((file) => ({ path: file.getFilePath(), text: file.getFullText() }));
  } catch {
    return [];
  }
}
