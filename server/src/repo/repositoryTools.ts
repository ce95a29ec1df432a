// The repository tools a model agent can call (search a class, a method or code; a class's members, a signature, a method's body, the imports some code needs, related code), answered from the workspace's index with bounded output.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { LocationKind } from './lexical/documentExtraction.js';
import type { CodeLocation, IndexedDeclaration, LexicalIndex } from './lexical/lexicalIndex.js';
import { simpleNameOf } from './lexical/lexicalIndex.js';
import { lineStartsOf } from './lexical/lineStarts.js';
import { moduleSpecifier } from './testFramework.js';
import type { Workspace } from '../workspace/workspace.js';
import { redactSecrets } from '../privacy/secrets.js';
import { embeddingSearch, fuseRankings, locationKey } from './embeddingIndex.js';
import type { Embedder } from './embeddingIndex.js';

/** Longest answer of one tool call, in characters: what a model's context can take many times over. */
export const MAX_TOOL_OUTPUT = 4_000;
/** Most lines of a method body before it is cut. */
const MAX_BODY_LINES = 80;
/** Most members listed by `get_class_info`. */
const MAX_MEMBERS = 40;
/** Most hits of a search. */
const MAX_HITS = 25;
/** How far `extends` is followed for inherited members. */
const MAX_INHERITANCE_DEPTH = 5;

/** A tool as a model sees it: name, what it does, and its JSON-schema parameters (the OpenAI function-calling shape). */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, { type: string; description: string }>; required: string[] };
}

const param = (description: string, type = 'string'): { type: string; description: string } => ({ type, description });

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  { name: 'search_class', description: 'Find classes and interfaces by name; lists where each is declared and its members.', parameters: { type: 'object', properties: { name: param('The class or interface name.') }, required: ['name'] } },
  { name: 'search_method', description: 'Find functions and methods by name, in the whole workspace or in one class.', parameters: { type: 'object', properties: { name: param('The method or function name.'), class: param('Only methods of this class.') }, required: ['name'] } },
  { name: 'search_code', description: 'Find lines containing a piece of code, in the workspace or in one file.', parameters: { type: 'object', properties: { code: param('The text to look for, as it appears in the code.'), file: param('A workspace-relative file to search in.') }, required: ['code'] } },
  { name: 'get_class_info', description: "A class's members with their signatures, inherited ones included, most useful first.", parameters: { type: 'object', properties: { name: param('The class name.') }, required: ['name'] } },
  { name: 'get_signature', description: 'The signature (and first doc line) of a function, method, class, interface or type.', parameters: { type: 'object', properties: { name: param('The name, or Class.method.') }, required: ['name'] } },
  { name: 'get_method_body', description: 'The whole code of a function or method (cut when very long).', parameters: { type: 'object', properties: { name: param('The method or function name.'), class: param('The class it belongs to, if any.') }, required: ['name'] } },
  { name: 'get_imports', description: 'The import statements a piece of code needs for the names it uses but does not declare, from the file it will go into; all candidates when a name is ambiguous.', parameters: { type: 'object', properties: { code: param('The code.'), file: param('The workspace-relative file the code goes into.') }, required: ['code', 'file'] } },
  { name: 'get_relevant_code', description: 'The declarations most related to a description or a piece of code, ranked.', parameters: { type: 'object', properties: { query: param('What to look for: words or code.'), limit: param('How many (default 5, at most 15).', 'number') }, required: ['query'] } },
];

const CALLABLE: ReadonlySet<LocationKind> = new Set(['function', 'method', 'constructor', 'getter', 'setter']);
const TYPES: ReadonlySet<LocationKind> = new Set(['class', 'interface']);
const TOP_LEVEL: ReadonlySet<LocationKind> = new Set(['function', 'class', 'interface', 'type', 'enum', 'variable', 'namespace']);

/** Names every TypeScript program has, which `get_imports` never looks up. */
const GLOBALS = new Set([
  'Array', 'ArrayBuffer', 'BigInt', 'Boolean', 'Buffer', 'console', 'Date', 'decodeURIComponent', 'encodeURIComponent', 'Error', 'globalThis', 'Infinity', 'Intl', 'isFinite', 'isNaN',
  'JSON', 'Map', 'Math', 'NaN', 'Number', 'Object', 'parseFloat', 'parseInt', 'Partial', 'Pick', 'Omit', 'process', 'Promise', 'Proxy', 'RangeError', 'ReadonlyArray', 'Readonly', 'Record', 'Reflect',
  'RegExp', 'Required', 'ReturnType', 'Set', 'setInterval', 'setTimeout', 'clearTimeout', 'clearInterval', 'String', 'Symbol', 'SyntaxError', 'TypeError', 'Uint8Array', 'undefined', 'URL',
  'WeakMap', 'WeakSet', 'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder', 'structuredClone', 'queueMicrotask', 'fetch', 'Response', 'Request', 'Headers', 'Awaited', 'Parameters',
  'InstanceType', 'NonNullable', 'Exclude', 'Extract', 'Iterable', 'Iterator', 'AsyncIterable', 'PromiseLike', 'ArrayLike', 'unknown', 'never', 'any', 'this', 'arguments', 'require', 'module', 'exports',
]);

/** Cuts an answer to the output bound, saying how much was left out. */
function bounded(text: string, max = MAX_TOOL_OUTPUT): string {
  const clean = redactSecrets(text);
  return clean.length <= max ? clean : `${clean.slice(0, max - 60).trimEnd()}\n… (${clean.length - max + 60} more characters left out)`;
}

/** One source file parsed once per text, for the declarations the tools print. */
interface Parsed {
  text: string;
  source: ts.SourceFile;
  starts: number[];
}

/** The repository tools of one workspace. Call `ready` once; then each tool answers from the index in milliseconds. */
export class RepositoryTools {
  private readonly parsed = new Map<string, Parsed>();

  readonly root: string;
  private readonly index: LexicalIndex;

  constructor(
    private readonly workspace: Workspace,
    /** Embeddings from the agent's endpoint, when it has an embedding model: `get_relevant_code` then fuses both rankings. */
    private readonly embedder?: Embedder,
  ) {
    this.root = workspace.root;
    this.index = workspace.index;
  }

  /** Builds (or refreshes) the index the tools answer from. */
  ready(signal?: AbortSignal): Promise<void> {
    return this.index.refresh(signal);
  }

  /** Runs a tool by name with the arguments a model sent; a bad call answers with what went wrong, never throws. */
  async call(name: string, args: unknown, signal?: AbortSignal): Promise<string> {
    const a = (typeof args === 'string' ? safeJson(args) : args) as Record<string, unknown> | undefined;
    const text = (key: string): string | undefined => (typeof a?.[key] === 'string' && (a[key] as string).trim() !== '' ? (a[key] as string).trim() : undefined);
    const need = (key: string): string => {
      const value = text(key);
      if (value === undefined) throw new ToolError(`${name} needs "${key}"`);
      return value;
    };
    try {
      switch (name) {
        case 'search_class':
          return this.searchClass(need('name'));
        case 'search_method':
          return this.searchMethod(need('name'), text('class'));
        case 'search_code':
          return this.searchCode(need('code'), text('file'));
        case 'get_class_info':
          return this.classInfo(need('name'));
        case 'get_signature':
          return this.signature(need('name'));
        case 'get_method_body':
          return this.methodBody(need('name'), text('class'));
        case 'get_imports':
          return this.imports(need('code'), need('file'));
        case 'get_relevant_code': {
          const limit = typeof a?.limit === 'number' ? a.limit : Number(text('limit') ?? 5);
          return await this.relevantCode(need('query'), Number.isFinite(limit) ? limit : 5, signal);
        }
        default:
          return `There is no tool "${name}"; the tools are ${TOOL_DEFINITIONS.map((t) => t.name).join(', ')}.`;
      }
    } catch (error) {
      if (error instanceof ToolError) return `Error: ${error.message}.`;
      throw error;
    }
  }

  searchClass(name: string): string {
    const found = this.index.declarations((n, kind) => TYPES.has(kind) && n === name, undefined, simpleNameOf(name));
    if (found.length === 0) return `No class or interface named ${name}.${this.suggest(name, TYPES)}`;
    return bounded(found.map((d) => `${d.path}:${d.startLine} ${this.headerOf(d)}\n  members: ${this.memberNames(d).join(', ') || '(none)'}`).join('\n'));
  }

  searchMethod(name: string, className?: string): string {
    const found = this.index.declarations((n, kind) => CALLABLE.has(kind) && (className ? n === `${className}.${name}` : n === name || n.endsWith(`.${name}`)), MAX_HITS + 1, simpleNameOf(name));
    if (found.length === 0) return `No ${className ? `method ${className}.${name}` : `function or method named ${name}`}.${this.suggest(name, CALLABLE)}`;
    const lines = found.slice(0, MAX_HITS).map((d) => `${d.path}:${d.startLine} ${d.name}: ${this.headerOf(d)}`);
    if (found.length > MAX_HITS) lines.push(`… more than ${MAX_HITS}; give the class to narrow the search`);
    return bounded(lines.join('\n'));
  }

  searchCode(code: string, file?: string): string {
    const files = file ? [file.replace(/^\.\//, '')] : this.index.indexedFiles().sort();
    const hits: string[] = [];
    let total = 0;
    for (const relative of files) {
      const text = this.index.fileText(relative);
      if (text === undefined) {
        if (file) return `${file} is not a source file of the workspace (or it is excluded).`;
        continue;
      }
      // Lines are counted forward from the previous hit, not from the file's start for each hit.
      let line = 1;
      let counted = 0;
      let at = text.indexOf(code);
      while (at >= 0) {
        total++;
        if (hits.length < MAX_HITS) {
          for (let i = text.indexOf('\n', counted); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
          counted = at;
          hits.push(`${relative}:${line}: ${lineAt(text, at).trim()}`);
        }
        at = text.indexOf(code, at + Math.max(1, code.length));
      }
    }
    if (hits.length === 0) return `"${code}" does not occur in ${file ?? 'the workspace'}.`;
    return bounded(hits.join('\n') + (total > hits.length ? `\n… ${total - hits.length} more` : ''));
  }

  classInfo(name: string): string {
    const [declaration] = this.index.declarations((n, kind) => TYPES.has(kind) && n === name, 1, simpleNameOf(name));
    if (!declaration) return `No class or interface named ${name}.${this.suggest(name, TYPES)}`;
    const lines = [`${declaration.path}:${declaration.startLine} ${this.headerOf(declaration)}`];
    const members: { rank: number; line: string }[] = [];
    const seen = new Set<string>();
    let current: IndexedDeclaration | undefined = declaration;
    for (let depth = 0; current && depth <= MAX_INHERITANCE_DEPTH; depth++) {
      const from = depth === 0 ? '' : `  (inherited from ${current.name})`;
      for (const member of this.membersOf(current)) {
        if (seen.has(member.name)) continue;
        seen.add(member.name);
        members.push({ rank: member.rank + depth * 10, line: `  ${member.signature}${from}` });
      }
      const base = this.baseOf(current);
      current = base ? this.index.declarations((n, kind) => TYPES.has(kind) && n === base, 1, simpleNameOf(base))[0] : undefined;
    }
    members.sort((a, b) => a.rank - b.rank);
    lines.push(...members.slice(0, MAX_MEMBERS).map((m) => m.line));
    if (members.length > MAX_MEMBERS) lines.push(`  … ${members.length - MAX_MEMBERS} more members`);
    return bounded(lines.join('\n'));
  }

  signature(name: string): string {
    const found = this.index.declarations((n, kind) => kind !== 'property' && (n === name || (!name.includes('.') && n.endsWith(`.${name}`))), 10, simpleNameOf(name));
    if (found.length === 0) return `Nothing named ${name}.${this.suggest(name)}`;
    return bounded(found.map((d) => `${d.path}:${d.startLine} ${d.kind} ${d.name}\n${this.docLine(d)}${this.headerOf(d)}`).join('\n\n'));
  }

  methodBody(name: string, className?: string): string {
    const found = this.index.declarations((n, kind) => CALLABLE.has(kind) && (className ? n === `${className}.${name}` : n === name || n.endsWith(`.${name}`)), 5, simpleNameOf(name));
    if (found.length === 0) return `No ${className ? `method ${className}.${name}` : `function or method named ${name}`}.${this.suggest(name, CALLABLE)}`;
    const parts = found.slice(0, 3).map((d) => {
      const text = this.index.fileText(d.path) ?? '';
      const lines = text.split('\n').slice(d.startLine - 1, d.endLine);
      const cut = lines.length > MAX_BODY_LINES ? [...lines.slice(0, MAX_BODY_LINES), `… (${lines.length - MAX_BODY_LINES} more lines)`] : lines;
      return `${d.path}:${d.startLine}-${d.endLine} ${d.name}\n${dedent(cut).join('\n')}`;
    });
    const more = found.length > 3 ? `\n… and ${found.length - 3} more with that name` : '';
    return bounded(parts.join('\n\n') + more);
  }

  /**
   * The imports `code` needs in `file`: each name it uses without declaring, that is no global, looked up among the
   * workspace's top-level declarations; one import line per module, every candidate when a name is ambiguous.
   */
  imports(code: string, file: string): string {
    const target = path.resolve(this.root, file);
    const names = undeclaredNames(code, file);
    if (names.length === 0) return 'The code uses no name it does not declare (besides globals): no import is needed.';
    const suffix = this.workspace.testConvention(target).importSuffix;
    const byModule = new Map<string, Set<string>>();
    const notes: string[] = [];
    for (const name of names) {
      const candidates = this.index
        .declarations((n, kind) => TOP_LEVEL.has(kind) && n === name, undefined, simpleNameOf(name))
        .filter((d) => path.resolve(d.fsPath) !== target && this.isExported(d))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      if (candidates.length === 0) {
        notes.push(`// ${name}: not declared in the workspace (a package, or a global)`);
        continue;
      }
      if (candidates.length > 1) notes.push(`// ${name}: ${candidates.length} candidates, pick one: ${candidates.map((c) => c.path).join(', ')}`);
      for (const candidate of candidates) {
        const specifier = moduleSpecifier(target, candidate.fsPath, suffix);
        const set = byModule.get(specifier) ?? new Set<string>();
        set.add(name);
        byModule.set(specifier, set);
      }
    }
    const lines = [...byModule].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([specifier, set]) => `import { ${[...set].sort().join(', ')} } from '${specifier}';`);
    return bounded([...lines, ...notes].join('\n'));
  }

  async relevantCode(query: string, limit = 5, signal?: AbortSignal): Promise<string> {
    const wanted = Math.max(1, Math.min(15, Math.floor(limit)));
    const found: CodeLocation[] = await this.index.search(query, { limit: wanted, maxPerFile: 3, snippetLines: 12 }, signal);
    const lexical = found.map((l) => ({ key: locationKey(l.path, l.startLine), text: `${l.path}:${l.startLine}-${l.endLine} ${l.kind} ${l.name}\n${l.snippet}` }));
    let entries = lexical;
    let note = '';
    if (this.embedder) {
      try {
        const dense = (await embeddingSearch(this.index, this.embedder, query, wanted, signal ?? new AbortController().signal)).map(({ declaration: d }) => ({
          key: locationKey(d.path, d.startLine),
          text: `${d.path}:${d.startLine}-${d.endLine} ${d.kind} ${d.name}\n${this.snippetOf(d)}`,
        }));
        const byKey = new Map([...dense, ...lexical].map((e) => [e.key, e]));
        entries = fuseRankings([dense.map((e) => e.key), lexical.map((e) => e.key)]).slice(0, wanted).map((key) => byKey.get(key) as (typeof lexical)[number]);
      } catch (error) {
        signal?.throwIfAborted();
        // Retrieval goes on with the lexical index: embeddings are a refinement, not a dependency.
        note = `\n(embeddings unavailable, lexical ranking only: ${error instanceof Error ? error.message : String(error)})`;
      }
    }
    if (entries.length === 0) return `Nothing in the workspace matches "${query}".${note}`;
    return bounded(`${entries.map((e) => e.text).join('\n\n')}${note}`);
  }

  /** The first lines of a declaration, de-indented, as the lexical index shows its hits. */
  private snippetOf(d: IndexedDeclaration): string {
    const text = this.index.fileText(d.path);
    if (text === undefined) return d.signature;
    const lines = text.split('\n').slice(d.startLine - 1, Math.min(d.endLine, d.startLine - 1 + 12));
    return dedent(lines).join('\n');
  }

  // -------------------------------------------------------------------------------------------------------------

  private parse(relative: string): Parsed | undefined {
    const text = this.index.fileText(relative);
    if (text === undefined) return undefined;
    const cached = this.parsed.get(relative);
    if (cached && cached.text === text) return cached;
    const source = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true, /x$/i.test(relative) ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    // Numbered as the index numbers its locations, so a declaration's line finds its node.
    const parsed = { text, source, starts: lineStartsOf(text) };
    this.parsed.set(relative, parsed);
    if (this.parsed.size > 64) this.parsed.delete(this.parsed.keys().next().value as string);
    return parsed;
  }

  /** The syntax node a declaration names: the named node starting on its first line. */
  private nodeOf(d: IndexedDeclaration): { node: ts.Node; parsed: Parsed } | undefined {
    const parsed = this.parse(d.path);
    if (!parsed) return undefined;
    const simple = d.name.split('.').pop() ?? d.name;
    const lineStart = parsed.starts[d.startLine - 1] ?? 0;
    const lineEnd = parsed.starts[d.startLine] ?? parsed.text.length;
    let found: ts.Node | undefined;
    const visit = (node: ts.Node): void => {
      if (found || node.getEnd() < lineStart || node.getStart(parsed.source) > lineEnd) return;
      const start = node.getStart(parsed.source);
      const nodeName = (node as ts.NamedDeclaration).name;
      const named = nodeName !== undefined && nodeName.getText(parsed.source) === simple;
      if (start >= lineStart && start < lineEnd && (named || (ts.isConstructorDeclaration(node) && simple === 'constructor') || (ts.isVariableStatement(node) && node.declarationList.declarations.some((v) => v.name.getText(parsed.source) === simple)))) {
        found = node;
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(parsed.source);
    return found ? { node: found, parsed } : undefined;
  }

  /** A declaration's header: its text up to the body (or its first line for data), whitespace collapsed. */
  private headerOf(d: IndexedDeclaration): string {
    // The index keeps it for every declaration: no parse for searches that list many.
    if (d.signature) return d.signature;
    const located = this.nodeOf(d);
    if (!located) return d.name;
    return headerText(located.node, located.parsed.source);
  }

  private docLine(d: IndexedDeclaration): string {
    const located = this.nodeOf(d);
    if (!located) return '';
    const docs = ts.getJSDocCommentsAndTags(located.node).filter(ts.isJSDoc);
    const comment = docs[0]?.comment;
    const first = typeof comment === 'string' ? comment.split('\n')[0] : undefined;
    return first ? `/** ${first.trim()} */\n` : '';
  }

  private memberNames(d: IndexedDeclaration): string[] {
    return this.membersOf(d)
      .map((m, i) => ({ ...m, i }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((m) => m.name)
      .slice(0, 30);
  }

  /** Members with signatures, ranked: constructor, public methods, accessors, public properties, then the rest. */
  private membersOf(d: IndexedDeclaration): { name: string; signature: string; rank: number }[] {
    const located = this.nodeOf(d);
    if (!located || !(ts.isClassDeclaration(located.node) || ts.isInterfaceDeclaration(located.node))) return [];
    const source = located.parsed.source;
    const members: { name: string; signature: string; rank: number }[] = [];
    for (const member of located.node.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>) {
      const name = ts.isConstructorDeclaration(member) ? 'constructor' : (member.name?.getText(source) ?? '');
      if (!name) continue;
      const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
      const hidden = modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword) || name.startsWith('#');
      const rank = ts.isConstructorDeclaration(member) ? 0 : ts.isMethodDeclaration(member) || ts.isMethodSignature(member) ? 1 : ts.isGetAccessor(member) || ts.isSetAccessor(member) ? 2 : 3;
      members.push({ name, signature: headerText(member, source), rank: rank + (hidden ? 5 : 0) });
    }
    return members;
  }

  /** The name of the class or interface a declaration extends, if any. */
  private baseOf(d: IndexedDeclaration): string | undefined {
    const located = this.nodeOf(d);
    if (!located || !(ts.isClassDeclaration(located.node) || ts.isInterfaceDeclaration(located.node))) return undefined;
    const clause = located.node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword);
    const expression = clause?.types[0]?.expression;
    return expression ? expression.getText(located.parsed.source).split('.').pop() : undefined;
  }

  private isExported(d: IndexedDeclaration): boolean {
    const located = this.nodeOf(d);
    if (!located) return false;
    const node = located.node;
    const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
    if (modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return true;
    // `export { name }` later in the file.
    return located.parsed.source.statements.some((s) => ts.isExportDeclaration(s) && !s.moduleSpecifier && s.exportClause !== undefined && ts.isNamedExports(s.exportClause) && s.exportClause.elements.some((e) => e.name.text === d.name));
  }

  /** " Did you mean …?" with close names of the right kinds, or nothing. */
  private suggest(name: string, kinds?: ReadonlySet<LocationKind>): string {
    const lower = name.toLowerCase();
    const close = this.index
      .declarations((n, kind) => (!kinds || kinds.has(kind)) && (n.toLowerCase().includes(lower) || lower.includes((n.split('.').pop() ?? n).toLowerCase())), 5)
      .map((d) => d.name);
    return close.length > 0 ? ` Did you mean ${[...new Set(close)].join(', ')}?` : '';
  }
}

class ToolError extends Error {}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}


function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end < 0 ? text.length : end);
}

function dedent(lines: string[]): string[] {
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0).trimEnd());
}

/** The text of a declaration up to its body, or its first line for declarations without one, on one line. */
function headerText(node: ts.Node, source: ts.SourceFile): string {
  const start = node.getStart(source);
  const body = (node as { body?: ts.Node }).body;
  let end = body ? body.getStart(source) : node.getEnd();
  if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) end = node.members.pos;
  let text = source.text.slice(start, end);
  if (!body && !(ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && text.length > 200) text = `${text.slice(0, 200)}…`;
  return text.replace(/\s+/g, ' ').replace(/\s*[{=]?\s*$/, '').trim();
}

/** Identifiers `code` reads (values and types) that it neither declares nor imports, and that are no globals. */
export function undeclaredNames(code: string, file = 'code.ts'): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, /x$/i.test(file) ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const declared = new Set<string>();
  const used = new Set<string>();
  const declare = (name: ts.BindingName | ts.Identifier | undefined): void => {
    if (!name) return;
    if (ts.isIdentifier(name)) declared.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) declare(element.name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.name) declared.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) declared.add(e.name.text);
      return;
    }
    if (ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isBindingElement(node)) declare(node.name);
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isFunctionExpression(node) || ts.isClassExpression(node)) && node.name) declared.add(node.name.text);
    if (ts.isTypeParameterDeclaration(node)) declared.add(node.name.text);
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const isPropertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isQualifiedName(parent) && parent.right === node) ||
        ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent) || ts.isEnumMember(parent)) && parent.name === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node) ||
        ts.isLabeledStatement(parent) ||
        ts.isBreakOrContinueStatement(parent) ||
        (ts.isJsxAttribute(parent) && parent.name === node);
      if (!isPropertyName) used.add(node.text);
      // A shorthand `{ value }` reads `value`.
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...used].filter((name) => !declared.has(name) && !GLOBALS.has(name)).sort((a, b) => a.localeCompare(b, 'en'));
}

/** One tool call a model asked for, whichever protocol it used. */
export interface ToolRequest {
  name: string;
  args: unknown;
}

/**
 * For endpoints without function calling: how to ask for tools in plain text. A model answers with lines
 * `CALL <tool> <JSON arguments>`; `parseToolRequests` reads them back.
 */
export function toolsPrompt(): string {
  const lines = TOOL_DEFINITIONS.map((tool) => {
    const args = Object.entries(tool.parameters.properties)
      .map(([key, spec]) => `"${key}": ${spec.type === 'number' ? '<number>' : '"…"'}${tool.parameters.required.includes(key) ? '' : ' (optional)'}`)
      .join(', ');
    return `- ${tool.name} {${args}}: ${tool.description}`;
  });
  return ['You can look at the repository with these tools. To use them, answer with one line per call, and nothing else:', 'CALL <tool> <JSON arguments>', ...lines].join('\n');
}

/** The `CALL <tool> <JSON>` lines of a model's answer (at most `max`); lines that do not parse are left out. */
export function parseToolRequests(text: string, max = 5): ToolRequest[] {
  const requests: ToolRequest[] = [];
  for (const match of text.matchAll(/^[ \t]*CALL\s+([a-z_]+)\s*(\{.*\})?\s*$/gm)) {
    const args = match[2] ? safeJson(match[2]) : {};
    if (args === undefined) continue;
    requests.push({ name: match[1] as string, args });
    if (requests.length >= max) break;
  }
  return requests;
}
