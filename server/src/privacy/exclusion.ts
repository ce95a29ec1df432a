// Which workspace files never reach a model: secret-looking files, files reached through a symlink out of the workspace, and what .gitignore, .git/info/exclude and .assistantignore match, at any depth.
import fs from 'node:fs';
import path from 'node:path';
import { realPathOf } from '../workspace/confinement.js';
import { resolvePath } from '../workspace/documentSnapshot.js';

/** Names of files that hold or look like they hold credentials; never indexed or sent, whatever their extension. */
export function isSecretPath(relativePath: string): boolean {
  const posix = relativePath.split(path.sep).join('/');
  const base = path.posix.basename(posix).toLowerCase();
  return (
    base.startsWith('.env') ||
    /\.(pem|key|p12|pfx|keystore|jks|crt|cer|der|asc|gpg|kdbx|tfvars|tfstate|ovpn)$/.test(base) ||
    /^id_(rsa|dsa|ecdsa|ed25519)/.test(base) ||
    ['.npmrc', '.netrc', '.pypirc', '.htpasswd', '.pgpass', '.git-credentials', '.dockercfg'].includes(base) ||
    (/(^|[._-])(secrets?|credentials?|passwords?)([._-]|$)/.test(base) && !isCodeAboutSecrets(base)) ||
    /^service[-_]?account.*\.json$/.test(base) ||
    /(^|\/)\.(aws|ssh|gnupg|docker)\//.test(posix.toLowerCase())
  );
}

/** Extensions of source code: a file of code named for what it handles is code, not a store of what it names. */
const CODE_EXTENSION = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|swift)$/;

/**
 * `password-reset.ts`, `secret_scanner.py`, `credentials-provider.js`: code whose name joins the word to others with
 * `-` or `_` is about secrets (it resets passwords, scans for secrets); values it holds are redacted like any code's.
 * `secrets.ts`, `credentials.js` and dotted variants (`secrets.prod.ts`) are named as stores and stay out.
 */
function isCodeAboutSecrets(base: string): boolean {
  const extension = CODE_EXTENSION.exec(base);
  if (!extension) return false;
  const stem = base.slice(0, extension.index);
  return !stem.includes('.') && /[-_]/.test(stem) && stem.split(/[-_]/).some((word) => word !== '' && !/^(secrets?|credentials?|passwords?)$/.test(word));
}

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
  /** The pattern as written, and the file it is in, for messages. */
  pattern: string;
  source?: string;
}

/** The glob subset of .gitignore: `*`, `?`, `**`, `[…]`, `!` negation, trailing `/` for directories, `/` anchoring. */
function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        out += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) {
        out += '\\[';
      } else {
        out += `[${glob.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else {
      out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return out;
}

/** Parsed ignore patterns of one directory (its `.gitignore` and `.assistantignore`); the last matching rule wins. */
export class IgnoreRules {
  private readonly rules: IgnoreRule[] = [];

  /** `sources`: the texts of ignore files, or `{ name, text }` to name the file in messages. */
  constructor(...sources: (string | { name: string; text: string })[]) {
    for (const source of sources) {
      const { name, text } = typeof source === 'string' ? { name: undefined, text: source } : source;
      for (const raw of text.split(/\r?\n/)) {
        const line = raw.replace(/(?<!\\)\s+$/, '');
        if (line === '' || line.startsWith('#')) continue;
        const negate = line.startsWith('!');
        let pattern = negate ? line.slice(1) : line;
        if (pattern.startsWith('\\')) pattern = pattern.slice(1);
        const dirOnly = pattern.endsWith('/');
        if (dirOnly) pattern = pattern.replace(/\/+$/, '');
        if (pattern === '') continue;
        // A slash anywhere but at the end anchors the pattern to the directory; otherwise it matches at any depth.
        const anchored = pattern.includes('/');
        pattern = pattern.replace(/^\/+/, '');
        const body = globToRegex(pattern);
        this.rules.push({ negate, dirOnly, regex: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), pattern: line, ...(name !== undefined ? { source: name } : {}) });
      }
    }
  }

  /** Reads a directory's ignore files (missing ones are empty). */
  static load(root: string): IgnoreRules {
    return new IgnoreRules(...['.gitignore', '.assistantignore'].map((name) => ({ name, text: readOrEmpty(path.join(root, name)) })));
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The last rule matching a path relative to this directory: true (ignored), false (re-included) or undefined (no rule). */
  decide(relativePath: string, isDirectory: boolean): { ignored: boolean; pattern: string; source?: string } | undefined {
    let decided: { ignored: boolean; pattern: string; source?: string } | undefined;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDirectory) continue;
      if (rule.regex.test(relativePath)) decided = { ignored: !rule.negate, pattern: rule.pattern, ...(rule.source !== undefined ? { source: rule.source } : {}) };
    }
    return decided;
  }

  /** Whether a path relative to this directory (`/`-separated) is ignored, itself or through a parent directory. */
  ignores(relativePath: string, isDirectory = false): boolean {
    const parts = relativePath.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (this.decide(parts.slice(0, i).join('/'), true)?.ignored) return true;
    }
    return this.decide(relativePath, isDirectory)?.ignored ?? false;
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function stampOf(file: string): string {
  try {
    // Most ignore files do not exist: `throwIfNoEntry` spares building an exception for each (stats run per request).
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : '-';
  } catch {
    return '-';
  }
}

/** Why a file is kept from models. */
export interface Exclusion {
  /** The workspace-relative path, `/`-separated. */
  path: string;
  /** `outside`: the path is in the workspace, but a symlink on it leads out (`target`: where it really is). */
  why: 'secret' | 'ignored' | 'outside';
  /** For an ignored file: the ignore file and the pattern that matched, e.g. `.gitignore` and `private/`. */
  source?: string;
  pattern?: string;
  target?: string;
}

/** A sentence for the user on why a file was not sent. */
export function describeExclusion(exclusion: Exclusion): string {
  if (exclusion.why === 'secret') return `${exclusion.path} looks like a file of secrets (by its name), so it is never sent to a model`;
  if (exclusion.why === 'outside') return `${exclusion.path} leads outside the workspace (it is really ${exclusion.target ?? 'elsewhere'}), so it is never sent to a model`;
  return `${exclusion.path} is matched by ${exclusion.source ?? 'an ignore file'}${exclusion.pattern ? ` (${exclusion.pattern})` : ''}, so it is never sent to a model`;
}

const IGNORE_FILES = ['.gitignore', '.assistantignore'] as const;

/**
 * The ignore rules of one workspace as they are on disk: the root's `.gitignore`, `.git/info/exclude` and
 * `.assistantignore`, and the `.gitignore`/`.assistantignore` of every directory below, each relative to its
 * directory, deeper ones winning, as git does. A directory's files are re-read when they change; a `view()`
 * checks each directory at most once, so a walk over thousands of files costs a few stats per directory.
 */
export class WorkspaceExclusion {
  readonly root: string;
  private readonly cache = new Map<string, { stamp: string; rules: IgnoreRules }>();

  /** The root with one trailing separator: a normalized path that starts with it is inside. */
  private readonly prefix: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.prefix = this.root.endsWith(path.sep) ? this.root : this.root + path.sep;
  }

  /** The root once symlinks are resolved (the folder an editor names may itself be reached through one). */
  realRoot(): string {
    return realPathOf(this.root);
  }

  /** The workspace-relative `/`-path of a file, or undefined when it is outside the workspace. */
  relative(fsPath: string): string | undefined {
    const resolved = resolvePath(fsPath);
    // A resolved path under the root is the part after it, without `path.relative`'s work. POSIX only: Windows
    // compares paths without regard to case.
    if (path.sep === '/' && resolved.startsWith(this.prefix) && resolved.length > this.prefix.length) {
      const rest = resolved.slice(this.prefix.length);
      return rest.startsWith('..') ? undefined : rest;
    }
    const relative = path.relative(this.root, resolved);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
    return relative.split(path.sep).join('/');
  }

  /** A consistent view of the rules for one walk or one question; take a new one to see later changes. */
  view(): ExclusionView {
    return new ExclusionView(this);
  }

  /** Why `fsPath` is kept from models, or undefined when it may be sent (also for files outside the workspace that do not look secret). */
  check(fsPath: string): Exclusion | undefined {
    return this.view().check(fsPath);
  }

  /** The rules of one directory (workspace-relative, '' for the root), re-read when its files changed. */
  rulesOf(directory: string): IgnoreRules {
    const names = directory === '' ? [...IGNORE_FILES, '.git/info/exclude'] : [...IGNORE_FILES];
    const files = names.map((name) => ({ name: directory === '' ? name : `${directory}/${name}`, file: path.join(this.root, directory, name) }));
    const stamps = files.map((f) => stampOf(f.file));
    const stamp = stamps.join('|');
    const cached = this.cache.get(directory);
    if (cached && cached.stamp === stamp) return cached.rules;
    const rules = new IgnoreRules(...files.map((f, i) => ({ name: f.name, text: stamps[i] === '-' ? '' : readOrEmpty(f.file) })));
    this.cache.set(directory, { stamp, rules });
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
    return rules;
  }
}

/** The ignore rules of a workspace at one moment. */
export class ExclusionView {
  private readonly rules = new Map<string, IgnoreRules>();
  private readonly relatives = new Map<string, string | undefined>();
  private readonly directories = new Map<string, Exclusion | undefined>();
  /** Real paths of the folders asked about, and of the root, for this view (a request asks about few folders, often). */
  private readonly realFolders = new Map<string, string>();
  private readonly places = new Map<string, { real: string; relative: string | undefined }>();
  private realRootPath: string | undefined;

  constructor(private readonly workspace: WorkspaceExclusion) {}

  /** The workspace-relative `/`-path of a file, or undefined when it is outside the workspace. */
  relative(fsPath: string): string | undefined {
    // A request asks about the same few files many times.
    let relative = this.relatives.get(fsPath);
    if (relative !== undefined || this.relatives.has(fsPath)) return relative;
    relative = this.workspace.relative(fsPath);
    this.relatives.set(fsPath, relative);
    return relative;
  }

  /**
   * Why a file (absolute path) is kept from models, or undefined. A file of the workspace is checked by its path and,
   * when a symlink on that path leads elsewhere in the workspace, by where it really is too.
   */
  check(fsPath: string): Exclusion | undefined {
    const relative = this.relative(fsPath);
    if (relative === undefined) return isSecretPath(fsPath) ? { path: path.basename(fsPath), why: 'secret' } : undefined;
    const byPath = this.checkRelative(relative);
    if (byPath) return byPath;
    const place = this.realPlace(fsPath);
    if (place.relative === undefined) return { path: relative, why: 'outside', target: place.real };
    if (place.relative === relative) return undefined;
    const byTarget = this.checkRelative(place.relative);
    return byTarget ? { ...byTarget, path: relative } : undefined;
  }

  /**
   * Where a file really is once symlinks are resolved (a file that does not exist yet: its nearest existing folder),
   * and that place relative to the workspace's real root (`/`-separated), undefined when it is outside.
   */
  realPlace(fsPath: string): { real: string; relative: string | undefined } {
    let place = this.places.get(fsPath);
    if (place) return place;
    const real = this.realPath(resolvePath(fsPath));
    this.realRootPath ??= this.workspace.realRoot();
    const relative = path.relative(this.realRootPath, real);
    const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
    place = { real, relative: outside ? undefined : relative.split(path.sep).join('/') };
    this.places.set(fsPath, place);
    return place;
  }

  /** The real path of a file: its folder's (asked once per folder in this view) and, when it is a symlink itself, its own. */
  private realPath(fsPath: string): string {
    const folder = path.dirname(fsPath);
    let realFolder = this.realFolders.get(folder);
    if (realFolder === undefined) {
      realFolder = realPathOf(folder);
      this.realFolders.set(folder, realFolder);
    }
    let link: boolean;
    try {
      link = fs.lstatSync(fsPath, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    } catch {
      link = false;
    }
    return link ? realPathOf(fsPath) : path.join(realFolder, path.basename(fsPath));
  }

  /** Why a workspace-relative file is kept from models, or undefined. */
  checkRelative(relative: string, isDirectory = false): Exclusion | undefined {
    if (!isDirectory && isSecretPath(relative)) return { path: relative, why: 'secret' };
    return this.ignored(relative, isDirectory);
  }

  /** Whether a workspace-relative path is matched by an ignore file (itself or through a parent directory). */
  ignores(relative: string, isDirectory = false): boolean {
    return this.ignored(relative, isDirectory) !== undefined;
  }

  private ignored(relative: string, isDirectory: boolean): Exclusion | undefined {
    const parts = relative.split('/');
    // A file inside an ignored directory is ignored, whatever a deeper rule says (git cannot re-include it either).
    for (let i = 1; i < parts.length; i++) {
      const directory = this.directory(parts.slice(0, i).join('/'));
      if (directory) return { ...directory, path: relative };
    }
    return this.decide(relative, isDirectory);
  }

  private directory(relative: string): Exclusion | undefined {
    if (this.directories.has(relative)) return this.directories.get(relative);
    const parent = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : undefined;
    const result = (parent !== undefined ? this.directory(parent) : undefined) ?? this.decide(relative, true);
    this.directories.set(relative, result);
    return result;
  }

  /** The deepest directory's last matching rule decides, as in git. */
  private decide(relative: string, isDirectory: boolean): Exclusion | undefined {
    const parts = relative.split('/');
    let decided: Exclusion | undefined;
    for (let depth = 0; depth < parts.length; depth++) {
      const rules = this.rulesOf(parts.slice(0, depth).join('/'));
      if (rules.empty) continue;
      const verdict = rules.decide(parts.slice(depth).join('/'), isDirectory);
      if (verdict === undefined) continue;
      decided = verdict.ignored ? { path: relative, why: 'ignored', pattern: verdict.pattern, ...(verdict.source !== undefined ? { source: verdict.source } : {}) } : undefined;
    }
    return decided;
  }

  private rulesOf(directory: string): IgnoreRules {
    let rules = this.rules.get(directory);
    if (!rules) {
      rules = this.workspace.rulesOf(directory);
      this.rules.set(directory, rules);
    }
    return rules;
  }
}
