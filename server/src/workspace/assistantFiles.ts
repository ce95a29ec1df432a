// Files the assistant keeps for the user under `<workspace>/.assistant/` (reports, long answers); never project files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToUri } from './documentSnapshot.js';

/** Writes `<root>/.assistant/<folder>/<name>` and returns its path and URI. */
export async function writeAssistantFile(root: string, folder: string, name: string, content: string): Promise<{ path: string; uri: string }> {
  const directory = path.join(root, '.assistant', folder);
  await fs.mkdir(directory, { recursive: true });
  const file = path.join(directory, name.replace(/[^\w.-]/g, '_'));
  await fs.writeFile(file, content, 'utf8');
  return { path: file, uri: pathToUri(file) };
}
