// A side ts-morph project that sees the workspace as the editor does plus proposed files, so new files are type-checked without touching the disk.
import fs from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import { configFileNames } from '../workspace/projectConfigs.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';

/** A file as the scratch project should see it, whatever the disk holds. */
export interface ScratchFile {
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

const DEFAULT_OPTIONS: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, allowJs: true, checkJs: false };

interface Scratch {
  project: Project;
  optionsKey: string;
}

/** One scratch project per workspace project: the default library and the dependencies' types are parsed once. */
const scratches = new WeakMap<WorkspaceProject, Scratch>();

/**
 * Runs `use` on a project with the workspace's compiler options that reads everything from the disk (read-only: it
 * is never saved), overlaid with the editor's buffers the workspace project holds and with `files`. `use` must be
 * synchronous: the overlay is removed when it returns, and nothing else runs on the project meanwhile.
 */
export function withScratchProject<T>(workspace: WorkspaceProject, files: readonly ScratchFile[], use: (project: Project) => T): T {
  let options: ts.CompilerOptions = DEFAULT_OPTIONS;
  try {
    options = workspace.tsProject().getCompilerOptions();
  } catch {
    // A broken tsconfig leaves the defaults; the check still says something useful about the new file.
  }
  const buffers = editorBuffers(workspace);
  const scratch = scratchFor(workspace, options);
  const overlaid = new Set([...buffers, ...files].map((f) => path.resolve(f.path)));
  // Files read from the disk earlier may have been saved since.
  for (const file of scratch.project.getSourceFiles()) {
    if (file.isInNodeModules() || overlaid.has(path.resolve(file.getFilePath()))) continue;
    if (!fs.existsSync(file.getFilePath())) file.forget();
    else refresh(file);
  }
  for (const file of buffers) scratch.project.createSourceFile(file.path, file.text, { overwrite: true });
  const added = files.map((file) => scratch.project.createSourceFile(file.path, file.text, { overwrite: true }));
  try {
    return use(scratch.project);
  } finally {
    // Proposed files leave the project (one on the disk is read again when something imports it).
    for (const file of added) {
      if (!file.wasForgotten()) file.forget();
    }
  }
}

/** The project files the workspace project holds (the editor's texts, which may differ from the disk). */
export function editorBuffers(workspace: WorkspaceProject): ScratchFile[] {
  try {
    return workspace
      .tsProject()
      .getSourceFiles()
      .filter((file) => !file.isInNodeModules() && !file.isFromExternalLibrary())
      .map((file) => ({ path: file.getFilePath(), text: file.getFullText() }));
  } catch {
    return [];
  }
}

function refresh(file: SourceFile): void {
  try {
    file.refreshFromFileSystemSync();
  } catch {
    file.forget();
  }
}

function scratchFor(workspace: WorkspaceProject, options: ts.CompilerOptions): Scratch {
  // TypeScript finds `@types` packages from the config file's folder; without a tsconfig, from the workspace's.
  const configFilePath = typeof options.configFilePath === 'string' ? options.configFilePath : (workspace.configFile ?? path.join(workspace.root, 'tsconfig.json'));
  // TypeScript 6 no longer includes every `@types` package when `types` is unset; projects written for 5.x expect it.
  const compilerOptions: ts.CompilerOptions = { ...options, configFilePath, noEmit: true, ...(options.types === undefined ? { types: ['*'] } : {}) };
  const optionsKey = JSON.stringify(compilerOptions);
  const existing = scratches.get(workspace);
  if (existing && existing.optionsKey === optionsKey) return existing;
  const project = new Project({ compilerOptions, skipAddingFilesFromTsConfig: true });
  for (const declaration of ambientDeclarations(workspace.configFile)) {
    try {
      project.addSourceFileAtPathIfExists(declaration);
    } catch {
      // An unreadable declaration file is the project's problem, not the check's.
    }
  }
  const scratch = { project, optionsKey };
  scratches.set(workspace, scratch);
  return scratch;
}

/**
 * The `.d.ts` files the workspace's tsconfig includes (global augmentations, test-framework globals): a program
 * built from imports alone would miss them.
 */
function ambientDeclarations(config: string | undefined): string[] {
  if (!config || !ts.sys.fileExists(config)) return [];
  return configFileNames(config).filter((f) => /\.d\.[cm]?ts$/.test(f) && !/[\\/]node_modules[\\/]/.test(f)).slice(0, 200);
}

/** The syntax and type errors of one file of the project (warnings and suggestions left out). */
export function fileErrors(project: Project, filePath: string): FileDiagnostic[] {
  const program = project.getProgram().compilerObject;
  const source = program.getSourceFile(filePath);
  if (!source) return [{ line: 1, column: 1, code: 0, message: `${path.basename(filePath)} is not part of the program` }];
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  return diagnostics
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      return { line: at.line + 1, column: at.character + 1, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, ' ') };
    });
}

/** The errors of a new file, type-checked against the workspace as the editor sees it. */
export function typeCheckNewFile(workspace: WorkspaceProject, file: ScratchFile): FileDiagnostic[] {
  return withScratchProject(workspace, [file], (project) => fileErrors(project, path.resolve(file.path)));
}

/** `file.ts:3:5 TS2345 message`, one line per error, for verdict details and model feedback. */
export function formatFileErrors(fileLabel: string, errors: readonly FileDiagnostic[]): string[] {
  return errors.map((e) => `${fileLabel}:${e.line}:${e.column} TS${e.code} ${e.message}`);
}
