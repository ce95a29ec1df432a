// Reads a patch a model wrote (a unified diff, or SEARCH/REPLACE blocks) and applies it to the current files, saying exactly what went wrong when it cannot.
import path from 'node:path';
import { applyFilePatch, parseUnifiedDiff } from '../edits/unifiedDiff.js';
import { editsBetween } from '../edits/merge3.js';
import type { Proposal } from '../edits/proposal.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import { pathToUri } from '../workspace/documentSnapshot.js';

/** One file's new text after the patch. */
export interface FileChange {
  /** Workspace-relative, with forward slashes. */
  path: string;
  newText: string;
  /** The file does not exist yet. */
  created: boolean;
}

export type PatchResult = { ok: true; changes: FileChange[] } | { ok: false; reason: string };

/** Reads a workspace file's current text (the editor's buffer, else the disk); undefined when it does not exist. */
export type ReadFile = (relativePath: string) => string | undefined;

const SEARCH = /^<{5,}\s*SEARCH\s*$/;
const DIVIDER = /^={5,}\s*$/;
const REPLACE = /^>{5,}\s*REPLACE\s*$/;

/** A workspace-relative path the model wrote, cleaned of decorations; undefined when it leaves the workspace. */
export function cleanPath(raw: string): string | undefined {
  const cleaned = raw
    .trim()
    .replace(/^(?:\*{3}|#+|File:|Path:)\s*/i, '')
    .replace(/^[`'"]+|[`'":]+$/g, '')
    .replace(/^(?:a|b)\//, '')
    .replace(/^\.\//, '')
    .trim();
  if (cleaned === '' || path.isAbsolute(cleaned) || cleaned.split(/[\\/]/).includes('..')) return undefined;
  return cleaned.split(path.sep).join('/');
}

/**
 * Applies SEARCH/REPLACE blocks: each names its file on the line before `<<<<<<< SEARCH`; the SEARCH text must occur
 * exactly once in the file (compared line by line, trailing spaces ignored); an empty SEARCH creates the file or
 * appends to it.
 */
function applyBlocks(answer: string, read: ReadFile): PatchResult {
  const lines = answer.split(/\r?\n/);
  const texts = new Map<string, { text: string; created: boolean }>();
  let blocks = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!SEARCH.test(lines[i] as string)) continue;
    blocks++;
    let j = i - 1;
    while (j >= 0 && ((lines[j] as string).trim() === '' || /^```/.test((lines[j] as string).trim()))) j--;
    const file = j >= 0 ? cleanPath(lines[j] as string) : undefined;
    if (!file) return { ok: false, reason: `block ${blocks}: the line before "<<<<<<< SEARCH" must name a workspace file (a relative path inside the workspace)` };
    const divider = lines.findIndex((line, k) => k > i && DIVIDER.test(line));
    const end = lines.findIndex((line, k) => k > divider && REPLACE.test(line));
    if (divider < 0 || end < 0) return { ok: false, reason: `block ${blocks} (${file}): missing "=======" or ">>>>>>> REPLACE"` };
    const search = lines.slice(i + 1, divider);
    const replace = lines.slice(divider + 1, end);
    const current = texts.get(file) ?? (() => {
      const text = read(file);
      return { text: text ?? '', created: text === undefined };
    })();
    if (search.every((l) => l.trim() === '')) {
      const joined = replace.join('\n');
      current.text = current.text === '' ? `${joined}\n` : `${current.text.replace(/\n?$/, '\n')}${joined}\n`;
    } else {
      const replaced = replaceOnce(current.text, search, replace);
      if (typeof replaced !== 'string') return { ok: false, reason: `block ${blocks} (${file}): ${replaced.reason}` };
      current.text = replaced;
    }
    texts.set(file, current);
    i = end;
  }
  if (blocks === 0) return { ok: false, reason: 'no SEARCH/REPLACE block found' };
  return { ok: true, changes: [...texts].map(([file, { text, created }]) => ({ path: file, newText: text, created })) };
}

function replaceOnce(text: string, search: string[], replace: string[]): string | { reason: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const same = (a: string, b: string): boolean => a.trimEnd() === b.trimEnd();
  const hits: number[] = [];
  for (let i = 0; i + search.length <= lines.length; i++) {
    if (search.every((line, k) => same(lines[i + k] as string, line))) hits.push(i);
  }
  if (hits.length === 0) return { reason: `the SEARCH text was not found; its first line is ${JSON.stringify(search[0])}. Copy the lines exactly from the file` };
  if (hits.length > 1) return { reason: `the SEARCH text occurs ${hits.length} times; include more lines so it is unique` };
  const at = hits[0] as number;
  return [...lines.slice(0, at), ...replace, ...lines.slice(at + search.length)].join(eol);
}

/** Applies a unified diff (tolerant of what models write, see `unifiedDiff.ts`). */
function applyDiff(answer: string, read: ReadFile): PatchResult {
  const parsed = parseUnifiedDiff(answer);
  if (!parsed.ok) return parsed;
  const changes: FileChange[] = [];
  for (const file of parsed.files) {
    const target = file.newPath ?? file.oldPath;
    const relative = target ? cleanPath(target) : undefined;
    if (!relative) return { ok: false, reason: `the diff names a file outside the workspace (${target ?? 'no name'})` };
    if (file.isDeleted) return { ok: false, reason: `the diff deletes ${relative}; deleting files is not offered, change them instead` };
    const current = file.isNew ? undefined : read(relative);
    if (!file.isNew && current === undefined) return { ok: false, reason: `${relative} does not exist in the workspace (a new file needs "--- /dev/null")` };
    const applied = applyFilePatch(current ?? '', file);
    if (!applied.ok) return { ok: false, reason: applied.reason };
    changes.push({ path: relative, newText: applied.text, created: current === undefined });
  }
  if (changes.length === 0) return { ok: false, reason: 'the diff changes no file' };
  return { ok: true, changes };
}

/** The patch in a model's answer, applied to the current files; SEARCH/REPLACE blocks when present, else a unified diff. */
export function applyModelPatch(answer: string, read: ReadFile): PatchResult {
  const result = answer.split(/\r?\n/).some((line) => SEARCH.test(line)) ? applyBlocks(answer, read) : /^(?:@@|--- |\+\+\+ |diff --git)/m.test(answer) ? applyDiff(answer, read) : { ok: false as const, reason: 'the answer holds no patch: send a unified diff in a ```diff block' };
  if (!result.ok) return result;
  const changed = result.changes.filter((c) => c.created || read(c.path) !== c.newText);
  return changed.length > 0 ? { ok: true, changes: changed } : { ok: false, reason: 'the patch changes nothing' };
}

/** A reader of workspace files through the editor's documents (open buffers first, then the disk). */
export function workspaceReader(root: string, documents: DocumentSource): ReadFile {
  return (relative) => documents.get(pathToUri(path.join(root, relative)))?.text;
}

/** The changes as a proposal on the documents as they are now: minimal edits on existing files, new files created. */
export function proposalOf(root: string, documents: DocumentSource, changes: readonly FileChange[]): Proposal {
  const proposal: Proposal = { documents: [], creates: [] };
  for (const change of changes) {
    const uri = pathToUri(path.join(root, change.path));
    const current = documents.get(uri);
    if (!current || change.created) {
      proposal.creates.push({ uri, text: change.newText });
      continue;
    }
    proposal.documents.push({ uri, version: current.version, baseText: current.text, edits: editsBetween(current.text, change.newText) });
  }
  return proposal;
}
