// The one listing of a workspace folder's files: one walk under one exclusion rule and one pair of limits, kept per folder and walked again when file events or its folders' stamps say it changed.
import fs from 'node:fs';
import path from 'node:path';
import { isSecretPath, WorkspaceExclusion } from '../privacy/exclusion.js';
import type { ExclusionView } from '../privacy/exclusion.js';
import { isUnsettled } from './fileTimes.js';
import { realPathOf } from './confinement.js';
import { compiledCopies } from './builtOutput.js';
import { resolvePath } from './documentSnapshot.js';

/** Most files one listing holds; the walk stops there and the listing says so (`truncated`). */
export const MAX_WORKSPACE_FILES = 5_000;
/** Larger files are not listed (the listing names them in `tooLarge`): bundles and data, not code anyone reads. */
export const MAX_WORKSPACE_FILE_BYTES = 1_000_000;

/**
 * Folders of built output and vendored code by convention, never walked whatever the ignore files say. Hidden folders
 * (`.git`, `.assistant`, `.next`, `.nuxt`, `.yarn`, …) are never walked either.
 */
export const BUILT_OR_VENDORED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', 'bower_components', 'jspm_packages', 'web_modules', 'vendor', 'third_party', 'third-party',
  'dist', 'build', 'out', 'coverage', 'lib-cov', 'storybook-static',
]);

/** The files listed: TypeScript and JavaScript, declaration files among them. */
const SCRIPT_FILE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;
const DECLARATION_FILE = /\.d\.[cm]?ts$/i;
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;
/** The ignore files of a folder; the root also has `.git/info/exclude`. */
const IGNORE_FILES = ['.gitignore', '.assistantignore'] as const;

/**
 * Without file events, how long a listing is used before its folders' stamps are checked again; callers that keep
 * their own interval (the lexical index) pass theirs.
 */
export const UNWATCHED_CHECK_MS = 1_000;
/** With file events, how long a listing is trusted before its stamps are checked anyway (a watcher can miss events). */
const WATCHED_CHECK_MS = 30_000;
/** Longest stretch an asynchronous walk keeps the event loop (milliseconds). */
const WALK_SLICE_MS = 4;

/**
 * Which listed files a feature wants: `source` (scripts, tests among them, not declaration files), `declaration`
 * (`.d.ts` and the like), `test` (`*.test.*`, `*.spec.*`), `script` (all of them).
 */
export type FileKind = 'source' | 'declaration' | 'test' | 'script';

/** A file's times, size and inode when it was listed. */
export type FileStamp = Pick<fs.Stats, 'mtimeMs' | 'ctimeMs' | 'size' | 'ino'>;

/** One listed file. */
export interface ListedFile {
  /** Workspace-relative, `/`-separated; for a file reached through a symlink, the link's path. */
  relative: string;
  fsPath: string;
  declaration: boolean;
  test: boolean;
  /** As the walk found it; a caller that got the listing from a walk it waited for may take it instead of a stat. */
  stamp: FileStamp;
}

/** The files of one kind in a workspace folder, with what the limits left out. */
export interface WorkspaceListing {
  root: string;
  /** Sorted by relative path. */
  files: readonly ListedFile[];
  /** The walk stopped at MAX_WORKSPACE_FILES: some files (the deepest folders' first) are not listed. */
  truncated: boolean;
  /** Files left out for their size (relative paths). */
  tooLarge: readonly string[];
  /** Symlinks left out because they lead outside the workspace (relative paths). */
  outside: readonly string[];
  /** When the walk behind the listing ended (Date.now()). */
  walkedAt: number;
}

/** A change the editor reported on a file or folder. */
export interface FileEvent {
  fsPath: string;
  type: 'created' | 'changed' | 'deleted';
}

/** Why a path is never listed, by the rule every listing applies; undefined when it may be. */
export type Unlisted = 'not-in-workspace' | 'hidden-folder' | 'built-or-vendored' | 'not-a-script' | 'secret' | 'ignored' | 'outside';

/**
 * The rule for one workspace path, as the walk applies it (the limits aside): for files that come from elsewhere than
 * a walk, such as an open document or a tsconfig's list. Symlinks on the path are resolved.
 */
export function unlistedReason(fsPath: string, view: ExclusionView): Unlisted | undefined {
  const relative = view.relative(fsPath);
  if (relative === undefined) return 'not-in-workspace';
  const folders = relative.split('/').slice(0, -1);
  if (folders.some(isHiddenName)) return 'hidden-folder';
  if (folders.some((name) => BUILT_OR_VENDORED_FOLDERS.has(name))) return 'built-or-vendored';
  if (!SCRIPT_FILE.test(relative)) return 'not-a-script';
  const excluded = view.check(fsPath);
  if (excluded) return excluded.why;
  const target = view.realPlace(fsPath).relative;
  return target !== undefined && target !== relative && throughSkippedFolder(target) ? 'built-or-vendored' : undefined;
}

function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

function skippedFolder(name: string): boolean {
  return isHiddenName(name) || BUILT_OR_VENDORED_FOLDERS.has(name);
}

/** Whether a relative path passes through a folder the walk never enters. */
function throughSkippedFolder(relative: string): boolean {
  return relative.split('/').slice(0, -1).some(skippedFolder);
}

interface Limits {
  maxFiles: number;
  maxFileBytes: number;
}

/** How a listing is made: its limits (tests lower them), its workspace's ignore rules, and where it says what the limits left out. */
export interface ListingOptions extends Partial<Limits> {
  /** The workspace's ignore rules; a listing of its own when left out. */
  exclusion?: WorkspaceExclusion;
  /** Told, in a sentence, what the limits and the symlink rule left out, each time that changes (the server's log). */
  report?: (message: string) => void;
}

/** A folder to read: its path as listed, relative and absolute, and where it really is. */
interface Folder {
  relative: string;
  absolute: string;
  real: string;
}

/** `folder/name` for a normalized folder path: what `path.join` gives, without its work on every entry of a walk. */
function child(folder: string, name: string): string {
  return folder.endsWith(path.sep) ? folder + name : folder + path.sep + name;
}

/** What a finished walk found, and the stamps that tell when it is out of date. */
interface Walked {
  files: ListedFile[];
  /** Compiled copies of listed sources, left out (`builtOutput.ts`). */
  compiled: ReadonlySet<string>;
  /** Folders holding a package.json (workspace-relative, '' for the root). */
  packages: ReadonlySet<string>;
  truncated: boolean;
  tooLarge: string[];
  outside: string[];
  /** Folders and ignore files read, with their stamps ('-' for an ignore file that did not exist). */
  stamps: Map<string, string>;
  /** A folder or ignore file changed so recently that its next change may leave its stamp as it is. */
  unsettled: boolean;
  checkedAt: number;
  walkedAt: number;
}

function stampOf(fsPath: string): string {
  try {
    const stat = fs.statSync(fsPath, { throwIfNoEntry: false });
    return stat ? `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}` : '-';
  } catch {
    return '-';
  }
}

/**
 * One walk of a workspace folder, a step at a time so that it can hand the event loop back. Folders are read level
 * by level, each one's names sorted, so a walk cut short by the file limit keeps the shallower files. Symlinks are
 * followed last, once each: one leading out of the workspace is left out (and named in `outside`), one into a
 * folder already walked (a cycle, or a second way to the same place) is skipped, and a linked path is listed only
 * when both the link's path and the target's pass the rule.
 */
class Walk {
  readonly files: ListedFile[] = [];
  readonly tooLarge: string[] = [];
  readonly outside: string[] = [];
  readonly stamps = new Map<string, string>();
  /** Folders holding a package.json (workspace-relative, '' for the root): where compiled copies are told from sources. */
  readonly packages = new Set<string>();
  truncated = false;
  unsettled = false;
  done = false;
  private readonly folders: Folder[] = [];
  private readonly links: Folder[] = [];
  private readonly visited = new Set<string>();
  private readonly listedReal = new Set<string>();
  private readonly realRoot: string;
  private readonly startedAt = Date.now();

  constructor(
    private readonly root: string,
    private readonly view: ExclusionView,
    private readonly limits: Limits,
  ) {
    this.realRoot = realPathOf(root);
    this.visited.add(this.realRoot);
    this.folders.push({ relative: '', absolute: root, real: this.realRoot });
    this.stamp(path.join(root, '.git', 'info', 'exclude'));
  }

  /** Walks until done or past `deadline` (performance.now()); true when done. */
  step(deadline: number): boolean {
    while (!this.done) {
      const folder = this.folders.shift();
      if (folder) this.readFolder(folder);
      else {
        const link = this.links.shift();
        if (link) this.follow(link);
        else this.done = true;
      }
      if (performance.now() >= deadline) break;
    }
    return this.done;
  }

  /** Records a folder's or an ignore file's stamp ('-' when it does not exist). */
  private stamp(fsPath: string): void {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(fsPath, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat && isUnsettled(stat, this.startedAt)) this.unsettled = true;
    this.stamps.set(fsPath, stat ? `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}` : '-');
  }

  private readFolder(folder: Folder): void {
    const absolute = folder.absolute;
    this.stamp(absolute);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absolute, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // An ignore file that comes or goes moves the folder's stamp; one edited in place moves only its own.
    for (const entry of entries) if ((IGNORE_FILES as readonly string[]).includes(entry.name)) this.stamp(child(absolute, entry.name));
    for (const entry of entries) {
      const relative = folder.relative ? `${folder.relative}/${entry.name}` : entry.name;
      let kind: 'folder' | 'file' | 'link' | undefined = entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : undefined;
      if (kind === undefined) {
        // Some file systems do not say what an entry is in the listing.
        const stat = fs.lstatSync(path.join(absolute, entry.name), { throwIfNoEntry: false });
        kind = stat?.isDirectory() ? 'folder' : stat?.isFile() ? 'file' : stat?.isSymbolicLink() ? 'link' : undefined;
      }
      if (kind === 'folder') {
        if (skippedFolder(entry.name) || this.view.ignores(relative, true)) continue;
        const real = child(folder.real, entry.name);
        this.visited.add(real);
        this.folders.push({ relative, absolute: child(absolute, entry.name), real });
      } else if (kind === 'file') {
        if (entry.name === 'package.json') this.packages.add(folder.relative);
        this.addFile(relative, child(absolute, entry.name), child(folder.real, entry.name), relative);
      } else if (kind === 'link') {
        this.links.push({ relative, absolute: child(absolute, entry.name), real: child(folder.real, entry.name) });
      }
      if (this.done) return;
    }
  }

  /** Lists a file that passed its folders' part of the rule, when its own part and the limits allow. */
  private addFile(relative: string, fsPath: string, real: string, realRelative: string): void {
    if (!SCRIPT_FILE.test(relative) || isSecretPath(relative) || this.view.ignores(relative)) return;
    if (realRelative !== relative && (isSecretPath(realRelative) || throughSkippedFolder(realRelative) || this.view.ignores(realRelative))) return;
    if (this.listedReal.has(real)) return;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(fsPath, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (!stat) return;
    if (stat.size > this.limits.maxFileBytes) {
      this.tooLarge.push(relative);
      return;
    }
    if (this.files.length >= this.limits.maxFiles) {
      this.truncated = true;
      this.done = true;
      return;
    }
    this.listedReal.add(real);
    const stamp = { mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, size: stat.size, ino: stat.ino };
    this.files.push({ relative, fsPath, declaration: DECLARATION_FILE.test(relative), test: TEST_FILE.test(relative), stamp });
  }

  /** A symlink met on the walk: followed once, when the rule lets its path through and it stays inside the workspace. */
  private follow(link: Folder): void {
    const name = path.posix.basename(link.relative);
    let real: string;
    let stat: fs.Stats | undefined;
    try {
      // `link.real` is the link itself in its real folder; resolving it says where it leads.
      real = fs.realpathSync.native(link.real);
      stat = fs.statSync(real, { throwIfNoEntry: false });
    } catch {
      return;
    }
    const folder = stat?.isDirectory() === true;
    if (folder ? skippedFolder(name) || this.view.ignores(link.relative, true) : !stat?.isFile() || !SCRIPT_FILE.test(name) || isSecretPath(link.relative) || this.view.ignores(link.relative)) return;
    const realRelative = path.relative(this.realRoot, real);
    if (realRelative === '..' || realRelative.startsWith(`..${path.sep}`) || path.isAbsolute(realRelative)) {
      this.outside.push(link.relative);
      return;
    }
    const target = realRelative.split(path.sep).join('/');
    if (!folder) {
      this.addFile(link.relative, link.absolute, real, target);
      return;
    }
    if (this.visited.has(real)) return;
    if (target !== '' && (skippedFolder(path.posix.basename(target)) || throughSkippedFolder(target) || this.view.ignores(target, true))) return;
    this.visited.add(real);
    this.folders.push({ relative: link.relative, absolute: link.absolute, real });
  }
}

/**
 * The files of one workspace folder, listed by one walk (see `Walk`) and kept until the server's file events say
 * files came or went or an ignore file changed, or, where no events arrive, until its folders' stamps move (checked
 * at most every UNWATCHED_CHECK_MS). Every feature that learns the workspace's files asks this.
 */
export class WorkspaceFiles {
  readonly root: string;
  /** The one exclusion rule its walk applies (its owner's, `Workspace.exclusion`). */
  readonly exclusion: WorkspaceExclusion;
  private readonly limits: Limits;
  private readonly report: ((message: string) => void) | undefined;
  private walked: Walked | undefined;
  private walk: Walk | undefined;
  private walking: Promise<void> | undefined;
  private stale = false;
  private watched = false;
  private readonly byKind = new Map<FileKind, WorkspaceListing>();
  private byPath: Map<string, ListedFile> | undefined;
  /** What the last report said about the limits, so a walk that hits them the same way says nothing new. */
  private reported = '';

  /** Limits are for tests; the server's listings all use MAX_WORKSPACE_FILES and MAX_WORKSPACE_FILE_BYTES. */
  constructor(root: string, options: ListingOptions = {}) {
    this.root = resolvePath(root);
    this.exclusion = options.exclusion ?? new WorkspaceExclusion(this.root);
    this.limits = { maxFiles: options.maxFiles ?? MAX_WORKSPACE_FILES, maxFileBytes: options.maxFileBytes ?? MAX_WORKSPACE_FILE_BYTES };
    this.report = options.report ?? ((message) => limitsListener?.(this.root, message));
  }

  /** The files of a kind, walking now when the listing is out of date. `maxAgeMs`: see UNWATCHED_CHECK_MS. */
  list(kind: FileKind = 'source', maxAgeMs = UNWATCHED_CHECK_MS): WorkspaceListing {
    if (!this.current(maxAgeMs)) {
      const walk = this.walk ?? this.startWalk();
      walk.step(Infinity);
      this.finish(walk);
    }
    return this.listing(kind);
  }

  /** Like `list`, but a walk hands the event loop back every few milliseconds; concurrent callers share one walk. */
  async listAsync(kind: FileKind = 'source', signal?: AbortSignal, maxAgeMs = UNWATCHED_CHECK_MS): Promise<WorkspaceListing> {
    signal?.throwIfAborted();
    if (!this.current(maxAgeMs)) {
      this.walking ??= this.walkAsync().finally(() => {
        this.walking = undefined;
      });
      await untilAborted(this.walking, signal);
    }
    return this.listing(kind);
  }

  /**
   * The folders holding a package.json (workspace-relative, '' for the root), where compiled copies are told from
   * sources (`builtOutput.ts`); walks first when the listing is out of date.
   */
  packageFolders(): ReadonlySet<string> {
    this.list('source');
    return (this.walked as Walked).packages;
  }

  /** The listed file at a path, if the current listing has it (no walk). */
  listed(fsPath: string): ListedFile | undefined {
    if (!this.walked) return undefined;
    this.byPath ??= new Map(this.walked.files.map((file) => [file.fsPath, file]));
    return this.byPath.get(resolvePath(fsPath));
  }

  /** Why a path is never listed (see `unlistedReason`), or undefined. */
  unlisted(fsPath: string): Unlisted | undefined {
    const view = this.exclusion.view();
    const relative = this.walked?.compiled.size ? view.relative(fsPath) : undefined;
    return relative !== undefined && this.walked?.compiled.has(relative) ? 'built-or-vendored' : unlistedReason(fsPath, view);
  }

  /**
   * Of some files named elsewhere (a tsconfig's list), those the listing holds, in their order: the rule and the
   * limits are the listing's. Walks first when the listing is out of date.
   */
  filter(fsPaths: readonly string[]): { files: string[]; left: number } {
    const listing = this.list('script');
    let files = fsPaths.filter((file) => this.listed(file) !== undefined);
    if (files.length < fsPaths.length && !listing.truncated && fsPaths.some((file) => this.cameSinceWalk(file, listing))) {
      // Faster than the stamp check (UNWATCHED_CHECK_MS): walk again rather than leave out a file just created.
      this.invalidate();
      this.list('script');
      files = fsPaths.filter((file) => this.listed(file) !== undefined);
    }
    return { files, left: fsPaths.length - files.length };
  }

  /** Whether a file the listing lacks would be listed by the rule and the limits: it must have come since the walk. */
  private cameSinceWalk(fsPath: string, listing: WorkspaceListing): boolean {
    if (this.listed(fsPath) !== undefined || this.unlisted(fsPath) !== undefined) return false;
    const stat = fs.statSync(fsPath, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > this.limits.maxFileBytes) return false;
    const relative = this.exclusion.relative(fsPath);
    return relative !== undefined && !listing.tooLarge.includes(relative);
  }

  /** Makes the next listing walk again. */
  invalidate(): void {
    this.stale = true;
  }

  /** Whether the listing walked again, or must, since the walk of `walkedAt`: what was made from that one is behind. */
  changedSince(walkedAt: number): boolean {
    return this.stale || !this.walked || this.walked.walkedAt !== walkedAt;
  }

  /** Says whether the editor reports file events for this folder; without them the listing checks its stamps. */
  setWatched(watched: boolean): void {
    this.watched = watched;
  }

  /**
   * File events from the editor: a changed ignore file, a script file that came or went, or a folder that came or
   * went make the listing stale; anything else (a file's contents, files in folders never walked) leaves it.
   */
  filesChanged(events: readonly FileEvent[]): void {
    for (const event of events) {
      if (this.stale) return;
      const relative = this.exclusion.relative(event.fsPath);
      if (relative === '.git/info/exclude') this.invalidate();
      if (relative === undefined || throughSkippedFolder(relative)) continue;
      const name = path.posix.basename(relative);
      if ((IGNORE_FILES as readonly string[]).includes(name)) this.invalidate();
      else if (event.type === 'changed') continue;
      else if (SCRIPT_FILE.test(name)) {
        const listed = this.listed(event.fsPath) !== undefined;
        if (event.type === 'deleted' ? listed : !listed && this.unlisted(event.fsPath) === undefined) this.invalidate();
      } else if (!skippedFolder(name)) {
        // A folder: one that was walked went, or one came (a move or a checkout may report only the folder).
        const fsPath = path.join(this.root, relative);
        if (event.type === 'deleted' ? this.walked?.stamps.has(fsPath) : isFolder(fsPath)) this.invalidate();
      }
    }
  }

  /** A document the editor opened or saved: when it is a file the listing should hold and does not, it walks again. */
  documentSeen(fsPath: string): void {
    if (!this.walked || this.listed(fsPath)) return;
    if (this.unlisted(fsPath) === undefined) this.invalidate();
  }

  private current(maxAgeMs: number): boolean {
    const walked = this.walked;
    if (!walked || this.stale) return false;
    const now = Date.now();
    const interval = this.watched ? WATCHED_CHECK_MS : maxAgeMs;
    if (now - walked.checkedAt < interval) return true;
    if (walked.unsettled) return false;
    for (const [fsPath, stamp] of walked.stamps) if (stampOf(fsPath) !== stamp) return false;
    walked.checkedAt = now;
    return true;
  }

  private startWalk(): Walk {
    this.stale = false;
    this.walk = new Walk(this.root, this.exclusion.view(), this.limits);
    return this.walk;
  }

  private async walkAsync(): Promise<void> {
    const walk = this.walk ?? this.startWalk();
    while (!walk.step(performance.now() + WALK_SLICE_MS)) await yieldToEventLoop();
    // A synchronous listing meanwhile may have finished it already.
    if (this.walk === walk) this.finish(walk);
  }

  private finish(walk: Walk): void {
    if (this.walk === walk) this.walk = undefined;
    // Built output beside its sources is left out whatever the ignore files say (none, in a published package).
    const compiled = compiledCopies(walk.files.map((f) => f.relative), walk.packages);
    const files = walk.files.filter((f) => !compiled.has(f.relative));
    files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    const now = Date.now();
    this.walked = { compiled, packages: walk.packages, files, truncated: walk.truncated, tooLarge: walk.tooLarge, outside: walk.outside, stamps: walk.stamps, unsettled: walk.unsettled, checkedAt: now, walkedAt: now };
    this.byKind.clear();
    this.byPath = undefined;
    const report = limitsReport(this.walked, this.limits);
    if (report !== this.reported) {
      this.reported = report;
      if (report) this.report?.(report);
    }
  }

  private listing(kind: FileKind): WorkspaceListing {
    let listing = this.byKind.get(kind);
    if (listing) return listing;
    const walked = this.walked as Walked;
    const wanted = kind === 'script' ? () => true : kind === 'declaration' ? (f: ListedFile) => f.declaration : kind === 'test' ? (f: ListedFile) => f.test : (f: ListedFile) => !f.declaration;
    listing = { root: this.root, files: walked.files.filter(wanted), truncated: walked.truncated, tooLarge: walked.tooLarge, outside: walked.outside, walkedAt: walked.walkedAt };
    this.byKind.set(kind, listing);
    return listing;
  }
}

/** Says, in a sentence or two, what the limits and the symlink rule left out of a listing; empty when nothing. */
function limitsReport(walked: Walked, limits: Limits): string {
  const few = (paths: readonly string[]): string => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? `, and ${paths.length - 5} more` : ''}`;
  const parts: string[] = [];
  if (walked.truncated) parts.push(`the workspace has more than ${limits.maxFiles} script files: only the first ${limits.maxFiles} (nearest the root first) are searched, indexed, checked and linted`);
  if (walked.tooLarge.length > 0) parts.push(`${walked.tooLarge.length} file${walked.tooLarge.length === 1 ? ' is' : 's are'} larger than ${limits.maxFileBytes} bytes and left out: ${few(walked.tooLarge)}`);
  if (walked.outside.length > 0) parts.push(`${walked.outside.length} symlink${walked.outside.length === 1 ? ' leads' : 's lead'} outside the workspace and ${walked.outside.length === 1 ? 'is' : 'are'} not followed: ${few(walked.outside)}`);
  return parts.join('; ');
}

function isFolder(fsPath: string): boolean {
  try {
    return fs.statSync(fsPath, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Rejects as soon as `signal` aborts, leaving the shared work running for others. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

let limitsListener: ((root: string, message: string) => void) | undefined;

/** Where listings say what their limits left out (the server's log); each listing says it when it changes. */
export function reportListingLimits(listener: ((root: string, message: string) => void) | undefined): void {
  limitsListener = listener;
}
