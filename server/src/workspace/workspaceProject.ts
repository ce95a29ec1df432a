// The workspace's TypeScript programs over ts-morph, one per tsconfig that governs an edited file, created on first use and fed the editor's unsaved text.
import fs from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import { MAX_WORKSPACE_FILES, WorkspaceFiles } from './workspaceFiles.js';
import type { FileEvent } from './workspaceFiles.js';
import { ConfigLocator, ambientFileNames, configFileNames } from './projectConfigs.js';

/** Compiler options for files no tsconfig or jsconfig governs. */
const DEFAULT_OPTIONS: ts.CompilerOptions = { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true };

/**
 * One ts-morph project of a workspace folder, with the compiler options of one config file (by default the root's
 * tsconfig.json). Creating it reads only the compiler options. Its program grows in two steps:
 * - a file's program, which answers for the files in it as the config's whole program would: the files tasks asked
 *   for (`sourceFile`), what they import, the config's files that declare for every file (`ambientFileNames`:
 *   declaration files, `declare global` or `declare module`, scripts) and what the options' `types` name;
 * - the whole program (`loadWorkspaceFiles`, `loadConfigFiles('all')`), for answers about other files: references,
 *   renames across files, auto-imports, the project's type check. Once loaded, every task uses it.
 */
export class WorkspaceProject {
  private project: Project | undefined;
  private config: string | null | undefined;
  /** The proposal checks queued on the project (`inTurn`). */
  private checks: Promise<unknown> = Promise.resolve();
  /** Which of the config's files were added (`loadConfigFiles`), so each kind is read once. */
  private readonly loaded = new Set<'ambient' | 'all'>();
  /** The workspace's listing: the files a project without a tsconfig's list loads. */
  readonly files: WorkspaceFiles;

  /**
   * `root` is the workspace folder (what paths in messages are relative to); `configFile` the config whose options
   * apply, `null` for none, or left out for the root's tsconfig.json when there is one; `files` the workspace's
   * listing (its owner's, `Workspace.files`).
   */
  constructor(
    readonly root: string,
    configFile?: string | null,
    files?: WorkspaceFiles,
  ) {
    this.config = configFile;
    this.files = files ?? new WorkspaceFiles(root);
  }

  /** The config file whose compiler options and files the project follows, if any. */
  get configFile(): string | undefined {
    if (this.config === undefined) {
      const tsconfig = path.join(this.root, 'tsconfig.json');
      this.config = fs.existsSync(tsconfig) ? tsconfig : null;
    }
    return this.config ?? undefined;
  }

  private get(): Project {
    if (this.project) return this.project;
    const configFile = this.configFile;
    this.project = new Project({
      ...(configFile ? { tsConfigFilePath: configFile } : { compilerOptions: DEFAULT_OPTIONS }),
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
    });
    return this.project;
  }

  /**
   * The source file at `fsPath` with exactly `text` as its content (the editor's buffer wins over the disk), in a
   * program that holds at least the file's program (the class comment).
   */
  sourceFile(fsPath: string, text: string): SourceFile {
    this.loadConfigFiles('ambient');
    const project = this.get();
    const existing = project.getSourceFile(fsPath);
    if (existing) {
      if (existing.getFullText() !== text) existing.replaceWithText(text);
      return existing;
    }
    return project.createSourceFile(fsPath, text, { overwrite: true });
  }

  /** The underlying ts-morph project, for repository tools. */
  tsProject(): Project {
    return this.get();
  }

  /**
   * Adds the config's files to the project: those that declare for every file (`ambient`: what any file's types and
   * diagnostics may depend on without importing it) or all of them (what auto-import fixes search). Files already in
   * the project keep their (editor) text. Does nothing without a config.
   */
  loadConfigFiles(which: 'ambient' | 'all'): void {
    if (this.loaded.has(which) || this.loaded.has('all')) return;
    this.loaded.add(which);
    const config = this.configFile;
    if (!config || !ts.sys.fileExists(config)) return;
    const project = this.get();
    for (const fileName of which === 'ambient' ? ambientFileNames(config, MAX_WORKSPACE_FILES) : configFileNames(config)) {
      if (project.getSourceFile(fileName)) continue;
      project.addSourceFileAtPathIfExists(fileName);
    }
  }

  /**
   * Files came, changed or went on disk: a file the project read from the disk is read again, or leaves it; one that
   * holds the editor's text keeps it (the editor's buffer wins until the document closes).
   */
  filesChanged(events: readonly FileEvent[]): void {
    if (!this.project) return;
    for (const event of events) {
      const file = this.project.getSourceFile(event.fsPath);
      if (!file?.isSaved()) continue;
      try {
        if (event.type === 'deleted') this.project.removeSourceFile(file);
        else file.refreshFromFileSystemSync();
      } catch {
        // Unreadable now: it keeps the text it had, and the next event or close reads it again.
      }
    }
  }

  /**
   * Runs proposal checks one after another: each overlays texts on the project (`withOverlay`), so two at once would
   * see each other's overlays. One that fails does not fail the next.
   */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.checks.then(work, work);
    this.checks = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** A document closed in the editor: the project's text of its file, if it holds one, is the disk's again. */
  documentClosed(fsPath: string): void {
    try {
      this.project?.getSourceFile(fsPath)?.refreshFromFileSystemSync();
    } catch {
      // Unreadable now: the next task that needs it reads it again.
    }
  }

  /**
   * The one type-check overlay: runs `use` with `files` in place of the texts the project holds (the editor's
   * buffers over the disk), new files added, then puts each file back as the project had it: its earlier text, or
   * out of the project. A file that `use` itself sets (`sourceFile`) must be among `files` (a text may be undefined:
   * the file is only freed for `use` to set). `use` must be synchronous, so no other code sees the overlay; restoring
   * never throws, so `use`'s own error surfaces.
   */
  withOverlay<T>(files: readonly OverlayText[], use: (project: Project) => T): T {
    // The file's program, for files the overlay frees without setting (`use` sets them through `sourceFile`).
    this.loadConfigFiles('ambient');
    const project = this.get();
    const saved = files.map(({ path: fsPath }) => {
      const file = project.getSourceFile(fsPath);
      return { fsPath, text: file?.getFullText(), fromDisk: file?.isSaved() ?? false };
    });
    try {
      for (const file of files) if (file.text !== undefined) this.sourceFile(file.path, file.text);
      return use(project);
    } finally {
      let removed = false;
      for (const { fsPath, text, fromDisk } of saved) {
        try {
          const current = project.getSourceFile(fsPath);
          if (text === undefined) {
            if (current) {
              project.removeSourceFile(current);
              removed = true;
            }
          } else if (!current || current.getFullText() !== text) {
            // A file read from the disk is read again, so file events keep refreshing it (its text was the disk's).
            if (current && fromDisk) current.refreshFromFileSystemSync();
            else this.sourceFile(fsPath, text);
          }
        } catch {
          // A file that cannot be restored is left for the next user of the project to overlay again (sourceFile always does).
        }
      }
      // The language service learns of the removal now: a file added again under the same path starts at the same
      // version ("0"), and a service that never saw it go would take its program as up to date, with the old text.
      if (removed) {
        try {
          project.getLanguageService().compilerObject.getProgram();
        } catch {
          // The next check builds the program anyway.
        }
      }
    }
  }
}

/** A file's text laid over a project for one check; no text frees the file for the check to set. */
export interface OverlayText {
  path: string;
  text?: string;
}

/**
 * The workspace's projects: the root's (its tsconfig.json, or defaults) and one per other config that governs a file
 * asked for, as in a monorepo whose packages have their own tsconfig, or a root tsconfig that only lists references.
 */
export class WorkspaceProjects {
  private readonly locator: ConfigLocator;
  private readonly byConfig = new Map<string, WorkspaceProject>();
  /** The root's project: its tsconfig.json's options (or defaults), for files no other config governs. */
  readonly workspace: WorkspaceProject;

  readonly root: string;
  /** The workspace's listing, which its projects share. */
  readonly files: WorkspaceFiles;

  constructor(root: string, files?: WorkspaceFiles) {
    this.root = path.resolve(root);
    this.files = files ?? new WorkspaceFiles(this.root);
    this.locator = new ConfigLocator(this.root);
    this.workspace = new WorkspaceProject(this.root, undefined, this.files);
  }

  /** The project whose compiler options apply to `fsPath` (the root's for a file without one, or outside the root). */
  forFile(fsPath: string | undefined): WorkspaceProject {
    const config = fsPath ? this.locator.configFor(fsPath) : undefined;
    if (!config || config === this.workspace.configFile) return this.workspace;
    let project = this.byConfig.get(config);
    if (!project) {
      project = new WorkspaceProject(this.root, config, this.files);
      this.byConfig.set(config, project);
    }
    return project;
  }

  /** Files came, changed or went on disk (the editor's file watcher): every project hears it. */
  filesChanged(events: readonly FileEvent[]): void {
    for (const project of [this.workspace, ...this.byConfig.values()]) project.filesChanged(events);
  }

  /** A document closed in the editor: every project holding its file takes the disk's text again. */
  documentClosed(fsPath: string): void {
    for (const project of [this.workspace, ...this.byConfig.values()]) project.documentClosed(fsPath);
  }

  /**
   * The files of the root's tsconfig and of the projects it references, transitively (a solution-style tsconfig lists
   * only references); empty without a root tsconfig.
   */
  configuredFiles(): string[] {
    const config = this.workspace.configFile;
    return config ? this.locator.filesWithReferences(config) : [];
  }
}

/** How much of the workspace a project holds: the file limit may leave files out. */
export interface WorkspaceScope {
  files: number;
  truncated: boolean;
}

/**
 * Adds the workspace's files to the project, so references in files nobody opened are found and a rename reaches
 * them: the tsconfig's files (what the compiler loads, ignored ones too: a rename must reach every use, though no
 * model reads them), or, without a tsconfig that names files, the workspace's listed source files; at most
 * MAX_WORKSPACE_FILES either way. Files holding an editor's text keep it; files read from disk are refreshed, so
 * callers added since are found and deleted files are forgotten.
 */
export function loadWorkspaceFiles(workspace: WorkspaceProject, signal?: AbortSignal): WorkspaceScope {
  const project = workspace.tsProject();
  for (const file of project.getSourceFiles()) {
    signal?.throwIfAborted();
    try {
      if (file.isSaved()) file.refreshFromFileSystemSync();
    } catch {
      // Unreadable now: it keeps the text it had.
    }
  }
  const { names, truncated } = compilerFileNames(workspace);
  for (const file of names) {
    signal?.throwIfAborted();
    try {
      if (!project.getSourceFile(file)) project.addSourceFileAtPathIfExists(file);
    } catch {
      // An unreadable file is left out; only what it would have told is missing.
    }
  }
  return { files: names.length, truncated };
}

/** The files the compiler loads for a project: its config's list, else the listed source files; within the file limit. */
function compilerFileNames(workspace: WorkspaceProject): { names: string[]; truncated: boolean } {
  const configured = workspace.configFile ? configFileNames(workspace.configFile) : [];
  if (configured.length > 0) return { names: configured.slice(0, MAX_WORKSPACE_FILES), truncated: configured.length > MAX_WORKSPACE_FILES };
  const listing = workspace.files.list('source');
  return { names: listing.files.map((file) => file.fsPath), truncated: listing.truncated };
}

/**
 * The workspace's listed source files that a project's config leaves out (tests a tsconfig excludes, scripts beside
 * its `include`), which the compiler does not load with the config's files but which may still use them; none when
 * the project has no config that names files (its files are then the listing's). `truncated`: the listing stopped at
 * its limit.
 */
export function filesOutsideConfig(workspace: WorkspaceProject): { names: string[]; truncated: boolean } {
  const configured = workspace.configFile ? configFileNames(workspace.configFile) : [];
  if (configured.length === 0) return { names: [], truncated: false };
  const inConfig = new Set(configured.map((name) => path.resolve(name)));
  const listing = workspace.files.list('source');
  return { names: listing.files.map((file) => file.fsPath).filter((name) => !inConfig.has(path.resolve(name))), truncated: listing.truncated };
}

/**
 * The files a feature lists or shows from a project (type-check problems): those of its configs (`configured`) that
 * the workspace's listing holds, or, when the configs name none (a solution-style tsconfig, or no tsconfig), the
 * listed source files. `left`: configured files the listing does not hold.
 */
export function listedProjectFiles(files: WorkspaceFiles, configured: readonly string[]): { names: string[]; truncated: boolean; left: number } {
  if (configured.length > 0) {
    const { files: names, left } = files.filter(configured.map((name) => path.resolve(name)));
    return { names, truncated: left > 0 && files.list('script').truncated, left };
  }
  const listing = files.list('source');
  return { names: listing.files.map((file) => file.fsPath), truncated: listing.truncated, left: 0 };
}
