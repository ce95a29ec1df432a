// The whole tsconfig project of a workspace (with the projects it references) type-checked on the shared ts-morph projects, as problems a command publishes at their places.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { Range } from 'vscode-languageserver-protocol';
import { lineStarts, offsetsToRange } from '../edits/textEdits.js';
import { fileDiagnostics, toDiagnosticInfo } from '../oracle/typeCheck.js';
import { redactSecrets } from '../privacy/secrets.js';
import { listedProjectFiles } from '../workspace/workspaceProject.js';
import type { WorkspaceProject, WorkspaceProjects } from '../workspace/workspaceProject.js';
import { pathToUri } from '../workspace/documentSnapshot.js';

export interface ProblemLocation {
  uri: string;
  fsPath: string;
  range: Range;
}

/** One finding of a listener (compiler, test run, linter), shaped so the LSP layer can publish it as a diagnostic. */
export interface Problem extends ProblemLocation {
  /** Redacted: runner output and compiler messages can quote secrets from the workspace. */
  message: string;
  /** The LSP values: 1 error, 2 warning, 3 information, 4 hint. */
  severity: 1 | 2 | 3 | 4;
  code?: string | number;
  /** `typescript`, `eslint`, or the test framework (`vitest`, `jest`, `mocha`, `node:test`). */
  source: string;
  related?: { location: ProblemLocation; message: string }[];
  data?: Record<string, unknown>;
}

export interface ProjectTypeCheckResult {
  /** In file order (paths sorted), then by position; at most `maxProblems`. */
  problems: Problem[];
  /** Files checked. */
  files: number;
  /** Problems found beyond `maxProblems` and left out. */
  truncated: number;
  /** Files of the project not checked because the workspace's listing stopped at its limit (MAX_WORKSPACE_FILES). */
  filesLeftOut: number;
}

export interface ProjectTypeCheckOptions {
  maxProblems?: number;
  /** Editor buffers to put into the project first; they stay there as the editor's text, as every task's do. */
  unsaved?: readonly { fsPath: string; text: string }[];
}

const DEFAULT_MAX_PROBLEMS = 1_000;
const MAX_RELATED = 10;
/** Files refreshed or added between two turns of the event loop. */
const LOAD_CHUNK = 50;

/**
 * Syntactic and semantic diagnostics of every file of the workspace's tsconfig project and the projects it references
 * (or, without one, of its listed source files) that the workspace's listing holds, each with the options of the
 * config that governs it, as
 * `tsc -b` would report them per file, with the editor's unsaved text wherever a project holds it. Files read from
 * disk are refreshed first, so edits made outside the editor count. The event loop gets a turn between files, and an
 * abort rejects with `signal.reason` at the next one.
 */
export async function projectTypeCheck(projects: WorkspaceProjects, signal: AbortSignal, options: ProjectTypeCheckOptions = {}): Promise<ProjectTypeCheckResult> {
  signal.throwIfAborted();
  const maxProblems = Math.max(0, options.maxProblems ?? DEFAULT_MAX_PROBLEMS);
  for (const buffer of options.unsaved ?? []) {
    const fsPath = path.resolve(buffer.fsPath);
    projects.forFile(fsPath).sourceFile(fsPath, buffer.text);
  }

  const { names: chosen, truncated, left } = checkedFileNames(projects);
  // Each file is checked in the project of the config that governs it (a monorepo's packages have their own options).
  const owners = chosen.map((fileName) => projects.forFile(fileName));
  const byProject = new Map<WorkspaceProject, string[]>();
  chosen.forEach((fileName, i) => {
    const project = owners[i] as WorkspaceProject;
    const names = byProject.get(project);
    if (names) names.push(fileName);
    else byProject.set(project, [fileName]);
  });
  let count = 0;
  for (const [project, fileNames] of byProject) {
    const tsProject = project.tsProject();
    for (const file of tsProject.getSourceFiles()) {
      if (++count % LOAD_CHUNK === 0) await nextTurn(signal);
      try {
        // Only files that mirror the disk; an editor's text is newer than the disk by definition.
        if (file.isSaved()) file.refreshFromFileSystemSync();
      } catch {
        // Unreadable now: it keeps the text it had.
      }
    }
    for (const fileName of fileNames) {
      if (++count % LOAD_CHUNK === 0) await nextTurn(signal);
      try {
        if (!tsProject.getSourceFile(fileName)) tsProject.addSourceFileAtPathIfExists(fileName);
      } catch {
        // An unreadable file is left out of the check.
      }
    }
  }

  const problems: Problem[] = [];
  let total = 0;
  let files = 0;
  for (const [i, fileName] of chosen.entries()) {
    await nextTurn(signal);
    const tsProject = (owners[i] as WorkspaceProject).tsProject();
    const sourceFile = tsProject.getSourceFile(fileName);
    if (!sourceFile) continue;
    files++;
    const name = sourceFile.getFilePath();
    const service = tsProject.getLanguageService().compilerObject;
    const diagnostics = fileDiagnostics(service, name);
    total += diagnostics.length;
    for (const diagnostic of diagnostics) {
      if (problems.length >= maxProblems) break;
      problems.push(toProblem(diagnostic, name, sourceFile.getFullText()));
    }
  }
  signal.throwIfAborted();
  return { problems, files, truncated: Math.max(0, total - problems.length), filesLeftOut: truncated ? left : 0 };
}

/** A compiler diagnostic as a problem; positions come from the text the diagnostic was computed on. */
function toProblem(diagnostic: ts.Diagnostic, fileName: string, fallbackText: string): Problem {
  const text = diagnostic.file?.text ?? fallbackText;
  const info = toDiagnosticInfo(diagnostic, text, lineStarts(text));
  const fsPath = path.resolve(diagnostic.file?.fileName ?? fileName);
  const related = (diagnostic.relatedInformation ?? [])
    .filter((r) => r.file && r.start !== undefined)
    .slice(0, MAX_RELATED)
    .map((r) => {
      const file = r.file as ts.SourceFile;
      const start = Math.min(r.start ?? 0, file.text.length);
      const end = Math.min(start + (r.length ?? 0), file.text.length);
      const relatedPath = path.resolve(file.fileName);
      return { location: { uri: pathToUri(relatedPath), fsPath: relatedPath, range: offsetsToRange(file.text, start, end) }, message: redactSecrets(ts.flattenDiagnosticMessageText(r.messageText, '\n')) };
    });
  return {
    uri: pathToUri(fsPath),
    fsPath,
    range: offsetsToRange(text, info.start, info.end),
    message: redactSecrets(info.message),
    severity: clampSeverity(info.severity),
    code: diagnostic.code,
    source: 'typescript',
    ...(related.length > 0 ? { related } : {}),
  };
}

function clampSeverity(severity: number | undefined): Problem['severity'] {
  return severity === 2 || severity === 3 || severity === 4 ? severity : 1;
}

/**
 * The files `tsc -b` would check (the root tsconfig's and those of the projects it references), or, for a folder
 * without a tsconfig (or one that names no files), its listed source files; in both cases only those the workspace's
 * listing holds (`listedProjectFiles`). Sorted, so problems come in a stable order.
 */
function checkedFileNames(projects: WorkspaceProjects): { names: string[]; truncated: boolean; left: number } {
  const found = listedProjectFiles(projects.files, projects.configuredFiles());
  return { ...found, names: [...found.names].sort() };
}

function nextTurn(signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    setImmediate(() => {
      if (signal.aborted) reject(signal.reason);
      else resolve();
    });
  });
}
