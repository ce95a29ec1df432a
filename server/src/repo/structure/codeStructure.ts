// The structure of a declaration or a selection, read from the syntax and the type checker (what Explain shows offline and what a model is told): its shape, computed once per document snapshot.
import { locateDeclaration } from '../../agents/offline/declarationLocator.js';
import type { DocumentSnapshot } from '../../workspace/documentSnapshot.js';
import type { DeclarationKind, DeclarationTarget } from '../declarations.js';
import type { WorkspaceProject, WorkspaceScope } from '../../workspace/workspaceProject.js';
import { describeDeclaration } from './declarationStructure.js';
import { describeSelection } from './selectionStructure.js';
import { openAnalysis } from './structureAnalysis.js';

/** What to describe: a declaration (with its syntax-only target) or a range of code. Offsets are UTF-16 into the text. */
export interface StructureTarget {
  name: string;
  start: number;
  end: number;
  declaration?: DeclarationTarget;
}

/** A place in the workspace: a workspace-relative path with forward slashes and a 1-based line. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** One function (or constructor) the code calls, with every call site of it counted once. */
export interface CallSummary {
  /** `parseEntries`, `JSON.parse`, `Map.get`; for an unresolved callee, its text. */
  name: string;
  /** A `new` expression. */
  construct: boolean;
  count: number;
  /** The declaration in the workspace it resolves to. */
  declaredAt?: SourceLocation;
  /** What declares it when that is not workspace code, e.g. `TypeScript lib`, `@types/node`, `node:fs`. */
  external?: string;
  /** What the callee is when it is only known at run time: `parameter`, `variable`. */
  holder?: string;
  /** The callee was not resolved (no type information, or no declaration found). */
  unresolved?: boolean;
}

/** Where the code is used: references found by the TypeScript language service, grouped by file. */
export interface ReferenceSummary {
  total: number;
  calls: number;
  files: ReferenceFile[];
  /** How much of the workspace was searched (a large workspace is searched within its first files). */
  scope: WorkspaceScope;
  /** What the search covered, beside `scope`: absent when it covered only the program as it was. */
  searched?: ReferenceScope;
  /** References found through compiled declarations of the file (`v4/core/errors.d.cts`), which the workspace's code imports. */
  through?: { file: string; count: number }[];
}

/** The files a reference search covered. */
export interface ReferenceScope {
  /** The config whose files were searched (workspace-relative), if any; else the workspace's listed source files were. */
  config?: string;
  /** How many files that is (`WorkspaceScope.files`). */
  files: number;
  /** Workspace files outside the config that name the declaration, searched too. */
  others: number;
  /** More files outside the config name it than were searched, or the listing stopped at its limit. */
  othersTruncated: boolean;
  /** The name searched for in the files outside the config. */
  name: string;
}

export interface ReferenceFile {
  file: string;
  count: number;
  /** References by the declaration they are in, in order of appearance. */
  users: ReferenceUser[];
}

export interface ReferenceUser {
  /** `run`, `ConfigStore.load`; absent for code at the top level of the file. */
  name?: string;
  lines: number[];
  /** Some of these references are not calls (the function passed as a value, a type annotation). */
  asValue: boolean;
}

export type BranchLabel = 'if' | 'case' | '?:' | 'loop' | 'catch' | '&&' | '||' | '??' | '&&=' | '||=' | '??=';

/** The decision points in the code and the cyclomatic complexity they make (1 + one per decision point). */
export interface BranchSummary {
  counts: Partial<Record<BranchLabel, number>>;
  /** The conditions of `if`s, `case`s, ternaries, loops and `catch`es, in source order. */
  sites: { label: BranchLabel; line: number; text: string }[];
  complexity: number;
}

export interface ThrowSummary {
  line: number;
  /** `RangeError`, or `the caught error`. */
  type?: string;
  /** `when \`x < 0\``, `unless …`, `in the catch block`. */
  when?: string;
}

export interface MemberSummary {
  name: string;
  kind: 'method' | 'property' | 'constructor' | 'getter' | 'setter' | 'index';
  /** The member's signature or type: `load(): Promise<Config>`, `cached: Config | undefined`. */
  signature: string;
  line: number;
  modifiers: string[];
  /** For members with code. */
  complexity?: number;
}

export interface CodeStructure {
  subject: 'declaration' | 'selection';
  /** `parseEntries`, `ConfigStore.load`, `the selection`. */
  name: string;
  kind: DeclarationKind | 'selection';
  file: string;
  line: number;
  endLine: number;
  /** `exported`, `async`, `static`, `private`, `abstract`, `generator`. */
  modifiers: string[];
  /** Whether the type checker answered (types, call resolution, references); otherwise syntax alone. */
  typed: boolean;
  /** `parseEntries(text: string, strict?: boolean): Entry[]`, `class ConfigStore extends Base`. */
  signature?: string;
  documentation?: { summary: string; tags: string[]; deprecated?: string };
  /** The return type, and each `return` with its expression's text (`NO_VALUE` of structureText.ts for a bare `return;`). */
  returns?: { type?: string; points: { line: number; text: string }[] };
  members?: MemberSummary[];
  calls: CallSummary[];
  /** Call sites in all, including the ones folded into `calls`. */
  callSites: number;
  references?: ReferenceSummary;
  /** Why the references are missing, when they were looked for. */
  referencesUnavailable?: string;
  branches: BranchSummary;
  throws: ThrowSummary[];
  awaits: number;
  /** For a selection: the declaration it is in. */
  enclosing?: string;
  /** For a selection: its statements (or the one expression it is). */
  statements?: { line: number; text: string }[];
  /** For a selection that is one expression: its type. */
  expressionType?: string;
  /** For a selection: names it declares, reads from outside, and writes outside. */
  declares?: string[];
  reads?: string[];
  writes?: string[];
}

/** Structures already computed for a document snapshot: agents of one run share the snapshot, so each target is read once. */
const computed = new WeakMap<DocumentSnapshot, Map<string, CodeStructure>>();

/**
 * The structure of `target` in `document`. The workspace's files are loaded into the project only for
 * declarations (whose references are searched); a failing project leaves a structure from the syntax alone.
 */
export function codeStructure(workspace: WorkspaceProject, document: DocumentSnapshot, target: StructureTarget, signal?: AbortSignal): CodeStructure {
  const key = `${target.start}:${target.end}:${target.declaration?.kind ?? ''}`;
  const known = computed.get(document)?.get(key);
  if (known) return known;
  signal?.throwIfAborted();
  const analysis = openAnalysis(workspace, document, target.declaration !== undefined, signal);
  signal?.throwIfAborted();
  const declaration = target.declaration ? locateDeclaration(analysis.source, target.declaration) : undefined;
  const structure = declaration && target.declaration ? describeDeclaration(analysis, target.declaration, declaration, signal) : describeSelection(analysis, target, document);
  signal?.throwIfAborted();
  const forDocument = computed.get(document) ?? new Map<string, CodeStructure>();
  forDocument.set(key, structure);
  computed.set(document, forDocument);
  return structure;
}
