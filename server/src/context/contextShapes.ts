// The shapes of a request's context: what it is built from, and what it holds.
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { Workspace } from '../workspace/workspace.js';
import type { VisitedPosition } from './recentPositions.js';

/** A piece of a workspace file. */
export interface ContextSnippet {
  /** Workspace-relative, `/`-separated. */
  file: string;
  /** 0-based, inclusive: the lines of the file the text comes from (a cut or an outline shows fewer). */
  startLine: number;
  endLine: number;
  text: string;
  /** The declaration the snippet is in (`Account.transfer`), when that helps a reader place it. */
  label?: string;
}

export interface ContextSymbol {
  /** Display name: `Ledger.balance`. */
  name: string;
  /** `class`, `method`, `function`, `interface`, `type`, `enum`, `property`, `variable`. */
  kind: string;
  declaration: ContextSnippet;
  references: ContextSnippet[];
}

export interface RequestContext {
  /** The declaration around the target; absent when the target is itself top-level and whole. */
  enclosing?: { name: string; kind: string } & ContextSnippet;
  /** A few lines around each recently visited position, the target excluded. */
  recent: ContextSnippet[];
  /** The most relevant part of each other open document. */
  openDocuments: ContextSnippet[];
  /** What the request text names and the target code uses, declared elsewhere, with a few references. */
  symbols: ContextSymbol[];
  /** Estimated tokens of `renderRequestContext(this)`: characters / 4, rounded up. */
  tokens: number;
  /** What was left out, for the budget or for privacy, in words; excluded files by path only. */
  omitted: string[];
}

export interface RequestContextInput {
  /** The workspace: its exclusion rule, index and secrets. */
  workspace: Workspace;
  document: DocumentSnapshot;
  /** What the request is about, as offsets into `document.text`, with its display name. */
  target: { start: number; end: number; name: string };
  /** The user's words. */
  text: string;
  /** The documents the editor has open (the target's own may be among them). */
  openDocuments: readonly DocumentSnapshot[];
  /** Most recent first. */
  recent: readonly VisitedPosition[];
  project: WorkspaceProject;
  /**
   * Spans of the document the prompt carries besides the target (a fix's imports): what lies in them is not
   * repeated in the context.
   */
  shown?: readonly { start: number; end: number }[];
  /** Most tokens the rendered context may take. */
  budgetTokens: number;
  /**
   * How symbols are resolved: `checker` (the default) through the type checker, following imports, with the lexical
   * index for what it leaves; `index` through the lexical index alone, which needs no program rebuild after an edit
   * and so keeps the context cheap enough for every task.
   */
  resolve?: 'checker' | 'index';
  /** The values to redact wherever they appear (`protectedValues` of the document), when the caller has them. */
  knownSecrets?: ReadonlyMap<string, string>;
}
