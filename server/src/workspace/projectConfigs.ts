// Which tsconfig governs a file of the workspace, chosen as tsserver chooses: the nearest one up from the file, or, through project references, the project that includes it.
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';

/** What one config file says about which files it governs; `fileNames` is listed only when needed (it walks folders). */
interface ConfigInfo {
  references: string[];
  fileNames?: Set<string>;
  /** When `fileNames` was listed (performance.now()). */
  listedAt?: number;
}

/** Most references followed from one config, so a cycle or a huge solution cannot stall a lookup. */
const MAX_REFERENCES_VISITED = 200;
/** A file no project's list holds may be new: the lists are listed again for it, then not again for this long. */
const MISS_RETRY_MS = 30_000;

/**
 * Finds the config file (tsconfig.json, else jsconfig.json) that governs a file inside the workspace root. The
 * nearest config up from the file decides, unless it has project references: then the first project along them (the
 * config itself first) whose files include the file wins, then the configs further up, and when none includes it the
 * nearest is the best guess. Which configs exist and what they reference is kept for the session (a config added or
 * edited meanwhile is seen by a new locator); their lists of files are listed again when a file is in none of them
 * (for the same file at most every MISS_RETRY_MS), so a file created since is placed.
 */
export class ConfigLocator {
  private readonly configs = new Map<string, ConfigInfo | undefined>();
  private readonly nearestByFolder = new Map<string, string[]>();
  /** Files no project's list held when last listed, and when. */
  private readonly misses = new Map<string, number>();

  constructor(readonly root: string) {}

  /**
   * The governing config's absolute path, or undefined when the file is outside the root, inside `node_modules` (a
   * package's own tsconfig is not the workspace's) or no config governs it.
   */
  configFor(fsPath: string): string | undefined {
    const file = path.resolve(fsPath);
    if (path.relative(this.root, file).split(path.sep).includes('node_modules')) return undefined;
    const candidates = this.candidates(path.dirname(file));
    const nearest = candidates[0];
    if (nearest === undefined) return undefined;
    if ((this.info(nearest)?.references.length ?? 0) === 0) return nearest;
    const start = performance.now();
    const found = this.search(candidates, file, Infinity);
    if (found) return found;
    const now = performance.now();
    const missed = this.misses.get(file);
    if (missed === undefined || now - missed > MISS_RETRY_MS) {
      // Lists made by the search above are current; only older ones are listed again.
      const listedAgain = this.search(candidates, file, now - start);
      if (listedAgain) {
        this.misses.delete(file);
        return listedAgain;
      }
      this.misses.set(file, now);
    }
    return nearest;
  }

  /** The first project along the candidates and their references whose list holds the file. */
  private search(candidates: readonly string[], file: string, maxAgeMs: number): string | undefined {
    const visited = new Set<string>();
    for (const config of candidates) {
      const found = this.including(config, file, visited, maxAgeMs);
      if (found) return found;
    }
    return undefined;
  }

  /** Config files from `folder` up to the root, nearest first; none for a folder outside the root. */
  private candidates(folder: string): string[] {
    const cached = this.nearestByFolder.get(folder);
    if (cached) return cached;
    const relative = path.relative(this.root, folder);
    let found: string[] = [];
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) {
      const own = ['tsconfig.json', 'jsconfig.json'].map((name) => path.join(folder, name)).find((file) => ts.sys.fileExists(file));
      const parent = path.dirname(folder);
      found = [...(own ? [own] : []), ...(folder === parent || relative === '' ? [] : this.candidates(parent))];
    }
    this.nearestByFolder.set(folder, found);
    return found;
  }

  /** The config itself when it includes the file, else the first project along its references that does. */
  private including(config: string, file: string, visited: Set<string>, maxAgeMs: number): string | undefined {
    if (visited.has(config) || visited.size >= MAX_REFERENCES_VISITED) return undefined;
    visited.add(config);
    if (this.filesOf(config, maxAgeMs).has(file)) return config;
    for (const reference of this.info(config)?.references ?? []) {
      const found = this.including(reference, file, visited, maxAgeMs);
      if (found) return found;
    }
    return undefined;
  }

  /** The files a config includes itself (not through its references), listed again when older than `maxAgeMs`. */
  private filesOf(config: string, maxAgeMs: number): ReadonlySet<string> {
    const info = this.info(config);
    if (!info) return new Set();
    const now = performance.now();
    if (!info.fileNames || info.listedAt === undefined || now - info.listedAt > maxAgeMs) {
      info.fileNames = listFiles(config);
      info.listedAt = now;
    }
    return info.fileNames;
  }

  /** The files of a config and of every project it references, transitively, in that order, listed now. */
  filesWithReferences(config: string): string[] {
    const out = new Set<string>();
    const visit = (at: string, visited: Set<string>): void => {
      if (visited.has(at) || visited.size >= MAX_REFERENCES_VISITED) return;
      visited.add(at);
      for (const file of this.filesOf(at, 0)) out.add(file);
      for (const reference of this.info(at)?.references ?? []) visit(reference, visited);
    };
    visit(path.resolve(config), new Set());
    return [...out];
  }

  /** The config's references (absolute config paths); undefined for a config that cannot be read. */
  private info(config: string): ConfigInfo | undefined {
    if (this.configs.has(config)) return this.configs.get(config);
    let info: ConfigInfo | undefined;
    const read = ts.readConfigFile(config, (file) => ts.sys.readFile(file));
    if (!read.error && read.config && typeof read.config === 'object') {
      const references = Array.isArray(read.config.references) ? (read.config.references as unknown[]) : [];
      info = {
        references: references
          .map((r) => (r && typeof r === 'object' && typeof (r as { path?: unknown }).path === 'string' ? (r as { path: string }).path : undefined))
          .filter((p): p is string => p !== undefined)
          .map((p) => ts.resolveProjectReferencePath({ path: path.resolve(path.dirname(config), p) }))
          .filter((p) => ts.sys.fileExists(p)),
      };
    }
    this.configs.set(config, info);
    return info;
  }
}

/** The files a config includes (its `files`, `include` and `exclude`, after `extends`); none when it cannot be read. */
export function configFileNames(config: string): string[] {
  return ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })?.fileNames ?? [];
}

function listFiles(config: string): Set<string> {
  return new Set(configFileNames(config).map((f) => path.resolve(f)));
}

/** A TypeScript file that may be a script: one whose declarations are globals when it has no import or export. */
const SCRIPT_CAPABLE = /\.tsx?$/i;
const DECLARATION_FILE = /\.d\.[cm]?ts$/i;

/**
 * Whether a file of a config declares for files that do not import it, so a file's program must hold it to answer
 * as the config's whole program does: a declaration file, a TypeScript file with `declare global` or `declare module`
 * (an augmentation, or an ambient module), or a script (no top-level import or export: its declarations are globals).
 * A text scan, no parse: a false positive only adds a file the whole program holds anyway.
 */
export function declaresForOtherFiles(fileName: string, text: string): boolean {
  if (DECLARATION_FILE.test(fileName)) return true;
  if (/\bdeclare\s+(?:global|module)\b/.test(text)) return true;
  // Top-level imports and exports start their line; an indented `export` is inside a namespace or a block.
  return SCRIPT_CAPABLE.test(fileName) && !/^(?:import|export)\b/m.test(text);
}

/**
 * The config's files (at most `limit`) that declare for files that do not import them (`declaresForOtherFiles`).
 * Declaration files are taken by name; other TypeScript files are read; unreadable ones are left out.
 */
export function ambientFileNames(config: string, limit: number): string[] {
  return configFileNames(config)
    .slice(0, limit)
    .filter((fileName) => {
      if (DECLARATION_FILE.test(fileName)) return true;
      if (!/\.[cm]?tsx?$/i.test(fileName)) return false;
      try {
        return declaresForOtherFiles(fileName, fs.readFileSync(fileName, 'utf8'));
      } catch {
        return false;
      }
    });
}
