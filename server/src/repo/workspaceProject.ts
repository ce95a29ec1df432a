// The workspace's TypeScript programs over ts-morph, one per tsconfig that governs an edited file, created on first use and fed the editor's unsaved text.
import fs from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import { ConfigLocator } from './projectConfigs.js';

/** Compiler options for files no tsconfig or jsconfig governs. */
const DEFAULT_OPTIONS: ts.CompilerOptions = { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true };

/**
 * One ts-morph project of a workspace folder, with the compiler options of one config file (by default the root's
 * tsconfig.json). Creating it reads only the compiler options; files enter when a task asks for them, and their
 * imports resolve lazily through the type checker.
 */
export class WorkspaceProject {
  private project: Project | undefined;
  private config: string | null | undefined;

  /**
   * `root` is the workspace folder (what paths in messages are relative to); `configFile` the config whose options
   * apply, `null` for none, or left out for the root's tsconfig.json when there is one.
   */
  constructor(
    readonly root: string,
    configFile?: string | null,
  ) {
    this.config = configFile;
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

  /** The source file at `fsPath` with exactly `text` as its content (the editor's buffer wins over the disk). */
  sourceFile(fsPath: string, text: string): SourceFile {
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

  constructor(root: string) {
    this.root = path.resolve(root);
    this.locator = new ConfigLocator(this.root);
    this.workspace = new WorkspaceProject(this.root);
  }

  /** The project whose compiler options apply to `fsPath` (the root's for a file without one, or outside the root). */
  forFile(fsPath: string | undefined): WorkspaceProject {
    const config = fsPath ? this.locator.configFor(fsPath) : undefined;
    if (!config || config === this.workspace.configFile) return this.workspace;
    let project = this.byConfig.get(config);
    if (!project) {
      project = new WorkspaceProject(this.root, config);
      this.byConfig.set(config, project);
    }
    return project;
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
