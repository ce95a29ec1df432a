// An immutable view of one document at one version, as the core sees it (no LSP types).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface DocumentSnapshot {
  uri: string;
  /** Absolute file-system path, when the URI is a `file:` URI. */
  fsPath: string | undefined;
  languageId: string;
  /** The editor's version; null for a file read from disk that the editor does not have open. */
  version: number | null;
  text: string;
}

/** Anything that can tell the current state of a document (the editor's buffers, or the disk). */
export interface DocumentSource {
  get(uri: string): DocumentSnapshot | undefined;
  /** URIs of the documents the editor has open. */
  openUris(): string[];
}

/** The file-system path of a `file:` URI, or undefined for other schemes. */
export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  // A code-action request asks for its document's path three times: the URL is parsed once.
  if (uri === lastConverted.uri) return lastConverted.path;
  let converted: string | undefined;
  try {
    converted = fileURLToPath(uri);
  } catch {
    converted = undefined;
  }
  lastConverted = { uri, path: converted };
  return converted;
}

/** `uriToPath`'s last answer (the conversion depends on the URI alone). */
let lastConverted: { uri: string; path: string | undefined } = { uri: '', path: undefined };

export function pathToUri(fsPath: string): string {
  return pathToFileURL(fsPath).href;
}

/**
 * The file name a document's syntax trees go by: its path, or for a document that has none (an untitled buffer) a
 * stand-in made from its URI, so two such buffers never share a tree, with the extension its language parses as.
 */
export function syntaxFileName(document: Pick<DocumentSnapshot, 'uri' | 'fsPath' | 'languageId'>): string {
  if (document.fsPath) return document.fsPath;
  const extension = { typescriptreact: '.tsx', javascript: '.js', javascriptreact: '.jsx' }[document.languageId] ?? '.ts';
  return path.join('/__untitled__', `${encodeURIComponent(document.uri)}${extension}`);
}

/** The language id the editor would use for a file name, for documents read from disk. */
export function languageIdForPath(fsPath: string): string {
  if (/\.(tsx)$/i.test(fsPath)) return 'typescriptreact';
  if (/\.(ts|mts|cts)$/i.test(fsPath)) return 'typescript';
  if (/\.(jsx)$/i.test(fsPath)) return 'javascriptreact';
  if (/\.(js|mjs|cjs)$/i.test(fsPath)) return 'javascript';
  return 'plaintext';
}

/** Whether the assistant understands documents of this language. */
export function isSupportedLanguage(languageId: string): boolean {
  return ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'].includes(languageId);
}

/** The workspace folder itself as a document with no text: the context of workspace-wide tasks (questions). */
export function workspaceSnapshot(root: string): DocumentSnapshot {
  return { uri: pathToUri(root), fsPath: root, languageId: 'plaintext', version: null, text: '' };
}

/** A `/`-path with an empty, `.` or `..` segment, or a trailing `/`: one `path.resolve` would change. */
const NOT_NORMALIZED = /\/\.{0,2}(?:\/|$)/;

/**
 * `path.resolve(fsPath)`, without its work for a path that is absolute and normalized already (POSIX): the context
 * resolves the name of every source file of the program on each request.
 */
export function resolvePath(fsPath: string): string {
  return path.sep === '/' && fsPath.startsWith('/') && !NOT_NORMALIZED.test(fsPath) ? fsPath : path.resolve(fsPath);
}
