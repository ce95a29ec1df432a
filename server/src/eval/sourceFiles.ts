// The repository's own source files for building cases: the tsconfig's files (or the listed source files) that the workspace's listing holds, minus declaration, generated and minified ones.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { toolMadeKind } from '../workspace/generatedFiles.js';
import type { Workspace } from '../workspace/workspace.js';

/** A source file chosen for cases, with its text. */
export interface SourceFile {
  fsPath: string;
  /** Workspace-relative, `/` separators. */
  relative: string;
  text: string;
}

/** Why files were left out, counted, for the run's notes. */
export type SkipCounts = Record<'generated' | 'minified' | 'ignored' | 'declaration' | 'large' | 'unreadable', number>;

/**
 * The files cases are built from, sorted by path. The tsconfig's `include` decides when there is one (a
 * solution-style tsconfig listing nothing falls back to the listed source files), filtered by the workspace's
 * listing (ignored, secret-looking, built, vendored and hidden-folder files, and files reached
 * through a symlink out of the workspace are never listed; model agents would refuse most of them); declaration
 * files and generated or minified code are left out too.
 */
export function repositorySourceFiles(workspace: Workspace, skipped?: SkipCounts): SourceFile[] {
  const counts: SkipCounts = skipped ?? { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
  const root = workspace.root;
  const files = workspace.files;
  const listing = files.list('script');
  const tooLarge = new Set(listing.tooLarge);
  const out: SourceFile[] = [];
  for (const fsPath of candidateFileNames(workspace)) {
    const relative = path.relative(root, fsPath).split(path.sep).join('/');
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (/\.d\.[cm]?tsx?$/i.test(relative)) {
      counts.declaration++;
      continue;
    }
    if (!files.listed(fsPath)) {
      if (tooLarge.has(relative)) counts.large++;
      else counts.ignored++;
      continue;
    }
    const text = workspace.text(fsPath);
    if (text === undefined) {
      counts.unreadable++;
      continue;
    }
    const made = toolMadeKind(relative, text);
    if (made) {
      counts[made]++;
      continue;
    }
    out.push({ fsPath, relative, text });
  }
  return out.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

function candidateFileNames(workspace: Workspace): string[] {
  const root = workspace.root;
  const tsconfig = path.join(root, 'tsconfig.json');
  if (fs.existsSync(tsconfig)) {
    const read = ts.readConfigFile(tsconfig, (file) => ts.sys.readFile(file));
    if (!read.error) {
      const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, tsconfig);
      if (parsed.fileNames.length > 0) {
        // The files the tsconfig names and every repository file they import (a tsconfig may name only an entry point).
        const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
        const inside = (file: string): boolean => {
          const relative = path.relative(root, file);
          return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && !relative.split(path.sep).includes('node_modules');
        };
        const reached = program.getSourceFiles().map((f) => path.resolve(f.fileName)).filter(inside);
        return [...new Set([...parsed.fileNames.map((f) => path.resolve(f)), ...reached])];
      }
    }
  }
  return workspace.files.list('source').files.map((file) => file.fsPath);
}
