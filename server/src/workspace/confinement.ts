// Where the assistant may write: only inside the workspace folder once symlinks and `..` are resolved, and sensitive places (version control, secrets, CI, editor settings) only after the user confirms.
import fs from 'node:fs';
import path from 'node:path';
import { uriToPath } from './documentSnapshot.js';

/** A proposal's files judged: refused with a reason, or allowed with the sensitive ones that need a confirmation. */
export type Confinement = { ok: true; sensitive: string[] } | { ok: false; reason: string };

/** Workspace-relative paths (`/`-separated) that an edit may touch only with the user's explicit consent. */
const SENSITIVE: readonly { test: RegExp; what: string }[] = [
  { test: /(^|\/)\.git(\/|$)/, what: 'version control' },
  { test: /(^|\/)\.(hg|svn)(\/|$)/, what: 'version control' },
  { test: /(^|\/)\.env[^/]*$/i, what: 'environment secrets' },
  { test: /(^|\/)\.npmrc$|(^|\/)\.yarnrc(\.yml)?$|(^|\/)\.netrc$/i, what: 'credentials' },
  { test: /(^|\/)\.github\/(workflows|actions)\//, what: 'CI configuration' },
  { test: /(^|\/)(\.gitlab-ci\.ya?ml|\.travis\.ya?ml|azure-pipelines\.ya?ml|Jenkinsfile|bitbucket-pipelines\.ya?ml|\.drone\.ya?ml)$/i, what: 'CI configuration' },
  { test: /(^|\/)\.(circleci|buildkite|ci)\//, what: 'CI configuration' },
  { test: /(^|\/)\.(vscode|idea|helix|zed|fleet)\//, what: 'editor settings' },
  { test: /(^|\/)(\.nvim\.lua|\.nvimrc|\.exrc|\.dir-locals\.el|\.editorconfig)$/, what: 'editor settings' },
  { test: /(^|\/)\.assistant\//, what: "the assistant's own data" },
];

/** Why a workspace-relative path is sensitive, or undefined. */
export function sensitivity(relativePath: string): string | undefined {
  return SENSITIVE.find((rule) => rule.test.test(relativePath))?.what;
}

/** The real path of a file that may not exist yet: its nearest existing ancestor resolved, the rest appended. */
export function realPathOf(filePath: string): string {
  const absolute = path.resolve(filePath);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative);
}

/**
 * Where the trace of a workspace goes: the configured folder (relative to the root) when it is inside the workspace
 * or inside the user's data folder once `..` and symlinks are resolved, else the default with the reason. A
 * workspace's own settings file is data anyone can commit: it must not make the server write anywhere else.
 */
export function traceDirectoryOf(root: string, configured: string, fallback: string, dataDirectory: string): { directory: string; problem?: string } {
  const wanted = path.resolve(root, configured);
  const real = realPathOf(wanted);
  const realRoot = realPathOf(root);
  if (inside(real, realRoot) || inside(real, realPathOf(dataDirectory))) return { directory: wanted };
  const directory = path.resolve(root, fallback);
  const shown = real === wanted ? wanted : `${wanted} (really ${real})`;
  return { directory, problem: `trace.directory: ${shown} is outside the workspace ${root} and the user's data folder ${dataDirectory}, so the trace stays in ${directory}` };
}

/**
 * Judges the files an edit touches: each must be a `file:` URI inside the workspace root after resolving `..` and
 * symlinks (an unsaved `untitled:` buffer may be edited, never created); `.git/`, `.env*`, CI configuration and
 * editor settings are allowed only with a confirmation.
 */
export function confine(root: string, edited: readonly string[], created: readonly string[]): Confinement {
  const realRoot = realPathOf(root);
  const sensitive: string[] = [];
  for (const [uri, creating] of [...edited.map((u) => [u, false] as const), ...created.map((u) => [u, true] as const)]) {
    if (!creating && /^untitled:/i.test(uri)) continue;
    const fsPath = uriToPath(uri);
    if (!fsPath) return { ok: false, reason: `${uri} is not a file in the workspace` };
    const real = realPathOf(fsPath);
    if (!inside(real, realRoot)) {
      const shown = real === path.resolve(fsPath) ? fsPath : `${fsPath} (really ${real})`;
      return { ok: false, reason: `${shown} is outside the workspace ${root}` };
    }
    const relative = path.relative(realRoot, real).split(path.sep).join('/');
    const what = sensitivity(relative) ?? sensitivity(path.relative(path.resolve(root), path.resolve(fsPath)).split(path.sep).join('/'));
    if (what) sensitive.push(`${relative} (${what})`);
  }
  return { ok: true, sensitive };
}
