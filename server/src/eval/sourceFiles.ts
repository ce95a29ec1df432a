// The repository's own source files for building cases: the tsconfig's files (or every TypeScript and JavaScript file), minus generated, minified, ignored and secret ones.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';
import { workspaceExclusion } from '../privacy/exclusion.js';
import { isGenerated, isMinified } from '../workspace/generatedFiles.js';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
/** Folders that hold dependencies, build output or generated code by convention. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'vendor', 'generated', '__generated__', '.next', '.nuxt', '.git', '.assistant']);
/** Larger files are left out: they are data or bundles, not code a person documents or fixes. */
const MAX_FILE_BYTES = 512 * 1024;

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
 * solution-style tsconfig listing nothing falls back to the folder walk); hidden folders and conventional build
 * and dependency folders are skipped; files ignored by `.gitignore`/`.assistantignore` or looking like secrets are
 * left out (model agents would refuse them); so are declaration files and generated or minified code.
 */
export function repositorySourceFiles(root: string, skipped?: SkipCounts): SourceFile[] {
  const counts: SkipCounts = skipped ?? { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
  const exclusion = workspaceExclusion(root).view();
  const out: SourceFile[] = [];
  for (const fsPath of candidateFileNames(root)) {
    const relative = path.relative(root, fsPath).split(path.sep).join('/');
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if (/\.d\.[cm]?tsx?$/i.test(relative)) {
      counts.declaration++;
      continue;
    }
    if (relative.split('/').slice(0, -1).some((part) => SKIPPED_FOLDERS.has(part)) || /\.(min|bundle)\.[cm]?[jt]sx?$/i.test(relative)) {
      counts.generated++;
      continue;
    }
    if (exclusion.checkRelative(relative)) {
      counts.ignored++;
      continue;
    }
    let text: string;
    try {
      if (fs.statSync(fsPath).size > MAX_FILE_BYTES) {
        counts.large++;
        continue;
      }
      text = fs.readFileSync(fsPath, 'utf8');
    } catch {
      counts.unreadable++;
      continue;
    }
    if (isGenerated(text)) {
      counts.generated++;
      continue;
    }
    if (isMinified(text)) {
      counts.minified++;
      continue;
    }
    out.push({ fsPath, relative, text });
  }
  return out.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

function candidateFileNames(root: string): string[] {
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
  return ts.sys.readDirectory(root, SOURCE_EXTENSIONS, ['**/node_modules', '**/dist', '**/build', '**/out', '**/coverage'], ['**/*']).map((f) => path.resolve(f));
}
