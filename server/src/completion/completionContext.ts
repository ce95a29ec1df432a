// What an inline completion sends: windows of the text before and after the cursor, and snippets of the files the document imports and of the places the user worked at last, within a token budget and through the privacy gate.
import path from 'node:path';
import { describeExclusion } from '../privacy/exclusion.js';
import { protectedValues } from '../privacy/workspaceSecrets.js';
import type { VisitedPosition } from '../context/recentPositions.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';

/** One piece of another file, as the model is shown it. */
export interface CompletionSnippet {
  /** Workspace-relative path. */
  file: string;
  text: string;
}

export interface CompletionContext {
  /** The document's workspace-relative path (or its URI's last segment). */
  fileName: string;
  /** The text before the cursor, from a line start, and after it, to a line end, within the budget. */
  prefix: string;
  suffix: string;
  snippets: CompletionSnippet[];
  /** Values to redact wherever they appear (the workspace's .env values, literals of ignored files it imports). */
  knownSecrets: ReadonlyMap<string, string>;
}

export interface CompletionContextInput {
  workspace: Workspace;
  document: DocumentSnapshot;
  offset: number;
  budgetTokens: number;
  /** The places the user worked at last, most recent first (where they asked for completions, actions, tasks). */
  recent: readonly VisitedPosition[];
}

/** Estimated characters per token, as the rest of the server counts them. */
const CHARS_PER_TOKEN = 4;
/** Shares of the budget: the text after the cursor, then the other files; the text before the cursor takes the rest. */
const SUFFIX_SHARE = 0.25;
const SNIPPET_SHARE = 0.25;
/** Exported declarations shown per imported file, and imported files looked at. */
const MAX_EXPORT_LINES = 12;
const MAX_IMPORTED_FILES = 6;
const MAX_RECENT = 3;
const RECENT_AROUND = 3;

/** Why a document is never sent (ignored, a secrets file, outside the workspace), or undefined. */
export function documentExclusion(workspace: Workspace, document: DocumentSnapshot): string | undefined {
  const excluded = document.fsPath ? workspace.exclusion.check(document.fsPath) : undefined;
  return excluded ? describeExclusion(excluded) : undefined;
}

/** The context of a completion at `offset`; the caller has checked that the document itself may be sent. */
export function gatherCompletionContext(input: CompletionContextInput): CompletionContext {
  const { workspace, document, offset } = input;
  const text = document.text;
  const budget = Math.max(64, input.budgetTokens) * CHARS_PER_TOKEN;
  const suffixChars = Math.floor(budget * SUFFIX_SHARE);
  const snippetChars = Math.floor(budget * SNIPPET_SHARE);
  const snippets = otherFiles(input, snippetChars);
  const used = snippets.reduce((n, s) => n + s.file.length + s.text.length + 16, 0);
  const prefixChars = budget - suffixChars - used;
  // Whole lines: a window that starts or ends mid-line reads to a model like broken code.
  let prefixStart = Math.max(0, offset - prefixChars);
  if (prefixStart > 0) prefixStart = text.indexOf('\n', prefixStart) + 1 || offset;
  let suffixEnd = Math.min(text.length, offset + suffixChars);
  if (suffixEnd < text.length) suffixEnd = Math.max(offset, text.lastIndexOf('\n', suffixEnd));
  return {
    fileName: relativeName(workspace, document.fsPath) ?? document.uri.slice(document.uri.lastIndexOf('/') + 1),
    prefix: text.slice(prefixStart, offset),
    suffix: text.slice(offset, suffixEnd),
    snippets,
    knownSecrets: protectedValues(workspace, document),
  };
}

function relativeName(workspace: Workspace, fsPath: string | undefined): string | undefined {
  if (!fsPath || !workspace.contains(fsPath)) return undefined;
  return path.relative(workspace.root, fsPath).split(path.sep).join('/');
}

/**
 * The exported declarations of the files the document imports (what the code being written most likely calls), then
 * a few lines around the places the user worked at last in other files; excluded files are left out, whatever led to them.
 */
function otherFiles(input: CompletionContextInput, maxChars: number): CompletionSnippet[] {
  const { workspace, document } = input;
  const view = workspace.exclusion.view();
  const snippets: CompletionSnippet[] = [];
  let left = maxChars;
  const add = (fsPath: string, text: string): void => {
    const file = relativeName(workspace, fsPath);
    if (!file || text.trim() === '') return;
    const cost = file.length + text.length + 16;
    if (cost > left) return;
    left -= cost;
    snippets.push({ file, text });
  };
  if (document.fsPath) {
    for (const fsPath of workspace.secrets.importedFiles(document.fsPath, document.text).slice(0, MAX_IMPORTED_FILES)) {
      if (!workspace.contains(fsPath) || view.check(fsPath)) continue;
      const text = workspace.text(fsPath);
      if (text !== undefined) add(fsPath, exportedLines(text));
    }
  }
  const seen = new Set(snippets.map((s) => s.file));
  for (const visit of input.recent.filter((v) => v.uri !== document.uri).slice(0, MAX_RECENT)) {
    const fsPath = uriToPath(visit.uri);
    if (!fsPath || !workspace.contains(fsPath) || view.check(fsPath)) continue;
    const text = workspace.text(fsPath);
    if (text === undefined) continue;
    const lines = text.split('\n');
    const from = Math.max(0, visit.range.start.line - RECENT_AROUND);
    const snippet = lines.slice(from, Math.min(lines.length, visit.range.end.line + RECENT_AROUND + 1)).join('\n');
    const file = relativeName(workspace, fsPath);
    if (file && seen.has(file)) continue;
    add(fsPath, snippet);
  }
  return snippets;
}

/** The first line of each exported declaration: the names and signatures code elsewhere calls. */
function exportedLines(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (!/^export\s/.test(line)) continue;
    lines.push(line.replace(/\s*\{\s*$/, '').trimEnd());
    if (lines.length >= MAX_EXPORT_LINES) break;
  }
  return lines.join('\n');
}

/** The snippets as comment lines above the code, the way code models are shown neighbouring files. */
export function snippetHeader(snippets: readonly CompletionSnippet[]): string {
  return snippets.map((s) => `// Path: ${s.file}\n${s.text.split('\n').map((line) => `// ${line}`).join('\n')}\n`).join('');
}
