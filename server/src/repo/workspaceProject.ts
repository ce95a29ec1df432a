// The workspace's TypeScript program over ts-morph, created on first use and fed the editor's unsaved text.
import fs from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import type { SourceFile } from 'ts-morph';

/**
 * One ts-morph project per workspace folder. Creating it reads only the compiler options;
 * files enter when a task asks for them, and their imports resolve lazily through the type checker.
 */
export class WorkspaceProject {
  private project: Project | undefined;

  constructor(readonly root: string) {}

  private get(): Project {
    if (this.project) return this.project;
    const tsconfig = path.join(this.root, 'tsconfig.json');
    const hasConfig = fs.existsSync(tsconfig);
    this.project = new Project({
      ...(hasConfig ? { tsConfigFilePath: tsconfig } : { compilerOptions: { allowJs: true, checkJs: false, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true } }),
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
