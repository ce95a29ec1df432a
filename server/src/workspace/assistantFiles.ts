// Files the assistant keeps for the user under `<workspace>/.assistant/` (trace, reports, long answers), out of git unless a team opts in; never project files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToUri } from './documentSnapshot.js';

/** The first line of the `.gitignore` the server writes: one that starts otherwise is the user's and is left alone. */
const GITIGNORE_HEADER = '# Written by assistant-ls.';

/**
 * The server's `.assistant/.gitignore`: everything in the folder, the file itself included, unless `commitTrace`
 * names the trace's folder inside it, which is then left to git with this file (a team that commits its trace shares
 * the rule).
 */
export function assistantGitignore(commitTrace?: string): string {
  const lines = [GITIGNORE_HEADER, '# What the assistant keeps here (its trace, reports, long answers) stays out of git.'];
  if (commitTrace === undefined) {
    lines.push('# To commit the trace, set assistant.trace.commit to true; to manage this file yourself, remove this header.', '*');
  } else {
    const folder = commitTrace.split(path.sep).join('/');
    lines.push('# assistant.trace.commit is true: the trace is committed; to manage this file yourself, remove this header.', '*', '!.gitignore', `!${folder}/`, `!${folder}/**`);
  }
  return `${lines.join('\n')}\n`;
}

/** Where `directory` is inside `<root>/.assistant/` (a relative path), or undefined when it is not inside it. */
export function insideAssistantFolder(root: string, directory: string): string | undefined {
  const relative = path.relative(path.join(root, '.assistant'), path.resolve(root, directory));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : undefined;
}

/**
 * Makes `<root>/.assistant/` and its `.gitignore` (see `assistantGitignore`): written when there is none, and written
 * again when it is the server's own and `rewrite` is set (the setting changed); a `.gitignore` the user wrote is kept.
 */
export async function keepAssistantFolderOutOfGit(root: string, options: { commitTrace?: string; rewrite?: boolean } = {}): Promise<void> {
  const directory = path.join(root, '.assistant');
  await fs.mkdir(directory, { recursive: true });
  const file = path.join(directory, '.gitignore');
  const wanted = assistantGitignore(options.commitTrace);
  let existing: string | undefined;
  try {
    existing = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing === undefined) {
    try {
      // Exclusive: another server starting on the same workspace may be writing it too.
      await fs.writeFile(file, wanted, { encoding: 'utf8', flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return;
  }
  if (options.rewrite && existing !== wanted && existing.startsWith(GITIGNORE_HEADER)) await fs.writeFile(file, wanted, 'utf8');
}

/** Writes `<root>/.assistant/<folder>/<name>` and returns its path and URI. */
export async function writeAssistantFile(root: string, folder: string, name: string, content: string): Promise<{ path: string; uri: string }> {
  await keepAssistantFolderOutOfGit(root);
  const directory = path.join(root, '.assistant', folder);
  await fs.mkdir(directory, { recursive: true });
  const file = path.join(directory, name.replace(/[^\w.-]/g, '_'));
  await fs.writeFile(file, content, 'utf8');
  return { path: file, uri: pathToUri(file) };
}
