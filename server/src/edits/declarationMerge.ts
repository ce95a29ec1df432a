// Three-way merge by declarations: top-level statements and class or interface members matched by kind and name, for changes that conflict only as lines.
import { ts } from 'ts-morph';
import type { MergeConflict, MergeResult } from './merge3.js';
import { describeLines, dominantEol, mergeLines, syntaxConflict, withEolOf } from './merge3.js';
import { offsetToPosition } from './textEdits.js';
import { scriptKindOf } from '../repo/declarations.js';

/** A syntax error as the parser reports it, with its 0-based line. */
export interface ParseError {
  message: string;
  line: number;
}

/** A declaration, statement or member with the comments and blank lines above it, as one piece of its file. */
interface Unit {
  key: string;
  /** For messages: "`Cart.total`", "the import of \"x\"", "the statement `main();`". */
  label: string;
  kind: 'class' | 'interface' | 'import' | 'other';
  /** Matched by its text rather than a name, so it may be paired with an edited version of itself. */
  unnamed: boolean;
  syntaxKind: ts.SyntaxKind;
  /** `[start, end)` in `file`, leading trivia included; the text runs to the end of the unit's last line. */
  start: number;
  end: number;
  text: string;
  file: string;
  /** The declaration itself, when the unit is one node (overload groups have none). */
  node?: ts.Node;
}

interface Context {
  fileName: string;
  conflicts: MergeConflict[];
}

export function isScriptFile(fileName: string): boolean {
  return /\.[cm]?[jt]sx?$/i.test(fileName);
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKindOf(fileName));
}

/** The parser's own errors (no binding, no type checking). */
export function parseErrors(fileName: string, text: string): ParseError[] {
  const source = parse(fileName, text);
  // `parseDiagnostics` is internal but has been stable for years and costs nothing; should it disappear, a transpile
  // reports the same syntax errors at the price of an emit.
  const internal = (source as unknown as { parseDiagnostics?: readonly ts.Diagnostic[] }).parseDiagnostics;
  const diagnostics = internal ?? ts.transpileModule(text, { fileName, reportDiagnostics: true, compilerOptions: { jsx: ts.JsxEmit.Preserve, allowJs: true } }).diagnostics ?? [];
  return diagnostics
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => ({ message: `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`, line: d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line }));
}

/**
 * Errors of the merged text that neither input has: a message counts as new only beyond the number of times the more
 * broken input has it, so a user halfway through typing does not block every merge.
 */
export function newSyntaxErrors(fileName: string, merged: string, ours: string, theirs: string): ParseError[] {
  const found = parseErrors(fileName, merged);
  if (found.length === 0) return [];
  const counts = (errors: readonly ParseError[]): Map<string, number> => {
    const map = new Map<string, number>();
    for (const e of errors) map.set(e.message, (map.get(e.message) ?? 0) + 1);
    return map;
  };
  const oursCounts = counts(parseErrors(fileName, ours));
  const theirsCounts = counts(parseErrors(fileName, theirs));
  const seen = new Map<string, number>();
  return found.filter((e) => {
    const n = (seen.get(e.message) ?? 0) + 1;
    seen.set(e.message, n);
    return n > Math.max(oursCounts.get(e.message) ?? 0, theirsCounts.get(e.message) ?? 0);
  });
}

/** `mergeUnits` plus the check that the result parses no worse than the inputs. */
export function mergeDeclarations(base: string, ours: string, theirs: string, fileName: string): MergeResult {
  if (ours === theirs || theirs === base) return { ok: true, text: ours, level: 'unchanged' };
  if (ours === base) return { ok: true, text: withEolOf(theirs, ours), level: 'unchanged' };
  const merged = mergeUnits(base, ours, theirs, fileName);
  if ('conflicts' in merged) return { ok: false, conflicts: merged.conflicts };
  const errors = newSyntaxErrors(fileName, merged.text, ours, theirs);
  if (errors.length > 0) return { ok: false, conflicts: [syntaxConflict(merged.text, base, ours, theirs, errors)] };
  return { ok: true, text: merged.text, level: 'declarations' };
}

/**
 * The merge itself, without the syntax check. Units present in ours keep ours' order; a unit only the proposal adds
 * goes after the unit that precedes it in the proposal (after any units only the editor added at that same place),
 * or at the start. Texts are compared with LF line endings and the result gets ours' usual ending.
 */
export function mergeUnits(base: string, ours: string, theirs: string, fileName: string): { text: string } | { conflicts: MergeConflict[] } {
  const b = parse(fileName, base.replace(/\r\n/g, '\n'));
  const o = parse(fileName, ours.replace(/\r\n/g, '\n'));
  const t = parse(fileName, theirs.replace(/\r\n/g, '\n'));
  const bUnits = topLevelUnits(b);
  const oUnits = pairUnnamed(bUnits, topLevelUnits(o));
  const tUnits = pairUnnamed(bUnits, topLevelUnits(t));
  const context: Context = { fileName, conflicts: [] };
  const text = mergeSequence(bUnits, oUnits, tUnits, context);
  if (text === undefined || context.conflicts.length > 0) return { conflicts: context.conflicts };
  return { text: dominantEol(ours) === '\r\n' ? text.replace(/\n/g, '\r\n') : text };
}

/** The labels of the declarations (members for classes and interfaces) that lines `[start, end)` of `text` fall in, at most three. */
export function namesAt(fileName: string, text: string, start: number, end: number): string[] {
  const normalized = text.replace(/\r\n/g, '\n');
  const hits = (units: readonly Unit[]): Unit[] =>
    units.filter((u) => {
      if (u.key.startsWith('#')) return false;
      const span = unitSpan(u);
      return end > start ? span.start < end && start < span.end : span.start <= start && start < Math.max(span.end, span.start + 1);
    });
  const names: string[] = [];
  for (const unit of hits(topLevelUnits(parse(fileName, normalized)))) {
    const members = unit.kind === 'class' || unit.kind === 'interface' ? memberUnits(unit) : undefined;
    const inner = members ? hits(members).filter((m) => !m.key.startsWith('#')) : [];
    for (const u of inner.length > 0 ? inner : [unit]) if (!u.unnamed && !names.includes(u.label)) names.push(u.label);
  }
  return names.slice(0, 3);
}

// ---------------------------------------------------------------------------------------------------------------
// Splitting a file into units

/**
 * Where a unit ends: after the newline that ends the line its node ends on, so a comment on that line stays with it
 * (leading comments belong to the next unit, which is how people write doc comments). A node followed by another
 * on the same line ends at its last character.
 */
function lineEndAfter(text: string, pos: number, limit: number): number {
  let end = pos;
  const trailing = ts.getTrailingCommentRanges(text, pos);
  const last = trailing?.[trailing.length - 1];
  if (last && last.end <= limit) end = last.end;
  let q = end;
  while (q < limit && (text[q] === ' ' || text[q] === '\t')) q++;
  if (q < limit && text[q] === '\n') return q + 1;
  if (q >= text.length) return text.length;
  return end;
}

interface Description {
  key: string;
  label: string;
  kind: Unit['kind'];
  unnamed: boolean;
  /** Overloads: consecutive units with the same key are one unit. */
  groups: boolean;
}

function topLevelUnits(source: ts.SourceFile): Unit[] {
  const text = source.text;
  const raw: (Description & { start: number; end: number; node: ts.Node })[] = [];
  let cursor = 0;
  source.statements.forEach((statement, k) => {
    const next = source.statements[k + 1];
    const end = Math.max(cursor, lineEndAfter(text, statement.getEnd(), next ? next.getStart(source) : text.length));
    raw.push({ ...describeStatement(statement, source), start: cursor, end, node: statement });
    cursor = end;
  });
  const units = finishUnits(raw, text);
  units.push(tailUnit('#eof', 'the end of the file', cursor, text.length, text));
  return units;
}

/** Head (up to the opening brace's line), members, tail (the closing brace) of a class or interface unit; undefined when it cannot be cut so. */
function memberUnits(unit: Unit): Unit[] | undefined {
  const node = unit.node;
  if (!node || !(ts.isClassLike(node) || ts.isInterfaceDeclaration(node))) return undefined;
  const source = node.getSourceFile();
  const text = source.text;
  const members: readonly (ts.ClassElement | ts.TypeElement)[] = node.members;
  const close = node.getEnd() - 1;
  if (text[close] !== '}' || text[node.members.pos - 1] !== '{') return undefined;
  const container = node.name?.text ?? 'default';
  const first = members[0];
  const headEnd = Math.max(unit.start, lineEndAfter(text, node.members.pos, first ? first.getStart(source) : close));
  const raw: (Description & { start: number; end: number; node: ts.Node })[] = [];
  let cursor = headEnd;
  members.forEach((member, k) => {
    const next = members[k + 1];
    const end = Math.max(cursor, lineEndAfter(text, member.getEnd(), next ? next.getStart(source) : close));
    raw.push({ ...describeMember(member, source, container), start: cursor, end, node: member });
    cursor = end;
  });
  if (cursor > unit.end) return undefined;
  const label = `\`${container}\``;
  return [tailUnit('#head', label, unit.start, headEnd, text), ...finishUnits(raw, text), tailUnit('#tail', label, cursor, unit.end, text)];
}

function tailUnit(key: string, label: string, start: number, end: number, file: string): Unit {
  return { key, label, kind: 'other', unnamed: false, syntaxKind: ts.SyntaxKind.Unknown, start, end, text: file.slice(start, end), file };
}

/** Groups overloads, then numbers repeated keys (declaration merging, `var` twice) so every key is unique. */
function finishUnits(raw: readonly (Description & { start: number; end: number; node: ts.Node })[], file: string): Unit[] {
  const grouped: (Description & { start: number; end: number; node?: ts.Node; syntaxKind: ts.SyntaxKind })[] = [];
  for (const r of raw) {
    const previous = grouped[grouped.length - 1];
    if (previous && r.groups && previous.groups && previous.key === r.key) {
      previous.end = r.end;
      previous.node = undefined;
      previous.kind = 'other';
    } else {
      grouped.push({ ...r, syntaxKind: r.node.kind });
    }
  }
  const seen = new Map<string, number>();
  return grouped.map((g) => {
    const n = seen.get(g.key) ?? 0;
    seen.set(g.key, n + 1);
    return { key: `${g.key}#${n}`, label: g.label, kind: g.kind, unnamed: g.unnamed, syntaxKind: g.syntaxKind, start: g.start, end: g.end, text: file.slice(g.start, g.end), file, node: g.node };
  });
}

function named(key: string, name: string, kind: Unit['kind'] = 'other', groups = false): Description {
  return { key, label: `\`${name}\``, kind, unnamed: false, groups };
}

function unnamedStatement(node: ts.Node, source: ts.SourceFile): Description {
  const code = node.getText(source);
  const firstLine = code.split('\n')[0] ?? '';
  const shown = firstLine.length > 40 ? `${firstLine.slice(0, 40)}…` : firstLine;
  return { key: `stmt:${node.kind}:${code}`, label: `the statement \`${shown}\``, kind: 'other', unnamed: true, groups: false };
}

function moduleName(specifier: ts.Expression, source: ts.SourceFile): string {
  return ts.isStringLiteral(specifier) ? specifier.text : specifier.getText(source);
}

function describeStatement(statement: ts.Statement, source: ts.SourceFile): Description {
  if (ts.isImportDeclaration(statement)) {
    const module = moduleName(statement.moduleSpecifier, source);
    const typeOnly = statement.importClause?.isTypeOnly ? 'type ' : '';
    return { key: `import:${typeOnly}${module}`, label: `the import of "${module}"`, kind: 'import', unnamed: false, groups: false };
  }
  if (ts.isImportEqualsDeclaration(statement)) return named(`import=:${statement.name.text}`, statement.name.text);
  if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
    const module = moduleName(statement.moduleSpecifier, source);
    return { key: `export-from:${statement.isTypeOnly ? 'type ' : ''}${module}`, label: `the re-export of "${module}"`, kind: 'other', unnamed: false, groups: false };
  }
  if (ts.isExportAssignment(statement)) return statement.isExportEquals ? named('export=', 'export =') : named('export-default', 'export default');
  if (ts.isFunctionDeclaration(statement)) return named(`function:${statement.name?.text ?? 'default'}`, statement.name?.text ?? 'export default function', 'other', true);
  if (ts.isClassDeclaration(statement)) return named(`class:${statement.name?.text ?? 'default'}`, statement.name?.text ?? 'export default class', 'class');
  if (ts.isInterfaceDeclaration(statement)) return named(`interface:${statement.name.text}`, statement.name.text, 'interface');
  if (ts.isTypeAliasDeclaration(statement)) return named(`type:${statement.name.text}`, statement.name.text);
  if (ts.isEnumDeclaration(statement)) return named(`enum:${statement.name.text}`, statement.name.text);
  if (ts.isModuleDeclaration(statement)) return named(`namespace:${statement.name.getText(source)}`, statement.name.getText(source));
  if (ts.isVariableStatement(statement)) {
    const names = statement.declarationList.declarations.flatMap((d) => bindingNames(d.name));
    if (names.length > 0) return named(`var:${names.join(',')}`, names.join(', '));
  }
  return unnamedStatement(statement, source);
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isBindingElement(e) ? bindingNames(e.name) : []));
}

function propertyName(name: ts.PropertyName, source: ts.SourceFile): string {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(source);
}

function describeMember(member: ts.ClassElement | ts.TypeElement, source: ts.SourceFile, container: string): Description {
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  const prefix = modifiers.some((m) => m.kind === ts.SyntaxKind.StaticKeyword) ? 'static ' : '';
  const name = member.name ? propertyName(member.name, source) : undefined;
  const label = (shown: string): string => `${container}.${shown}`;
  if (name !== undefined) {
    if (ts.isMethodDeclaration(member) || ts.isMethodSignature(member)) return named(`${prefix}method:${name}`, label(name), 'other', true);
    if (ts.isPropertyDeclaration(member) || ts.isPropertySignature(member)) return named(`${prefix}property:${name}`, label(name));
    if (ts.isGetAccessorDeclaration(member)) return named(`${prefix}get:${name}`, label(`get ${name}`));
    if (ts.isSetAccessorDeclaration(member)) return named(`${prefix}set:${name}`, label(`set ${name}`));
  }
  if (ts.isConstructorDeclaration(member)) return named('constructor', label('constructor'), 'other', true);
  if (ts.isConstructSignatureDeclaration(member)) return named('new', label('new'), 'other', true);
  if (ts.isCallSignatureDeclaration(member)) return named('call', `${container}()`, 'other', true);
  if (ts.isIndexSignatureDeclaration(member)) {
    const parameter = member.parameters.map((p) => p.type?.getText(source) ?? '').join(',');
    return named(`${prefix}index:${parameter}`, label(`[${parameter}]`));
  }
  return unnamedStatement(member, source);
}

/**
 * Units matched by their text disappear when edited; an edited one is paired with the base unit it replaces when it
 * is of the same syntax kind and sits between the same matched neighbours, so `main();` → `main(1);` is an edit
 * of one statement rather than a deletion plus an addition (which would keep both sides' versions).
 */
function pairUnnamed(base: readonly Unit[], side: Unit[]): Unit[] {
  const sideKeys = new Map(side.map((u, k) => [u.key, k]));
  const baseKeys = new Set(base.map((u) => u.key));
  const taken = new Set<number>();
  base.forEach((b, k) => {
    if (!b.unnamed || sideKeys.has(b.key)) return;
    let after = -1;
    for (let p = k - 1; p >= 0; p--) {
      const at = sideKeys.get(base[p]?.key ?? '');
      if (at !== undefined) {
        after = at;
        break;
      }
    }
    let before = side.length;
    for (let p = k + 1; p < base.length; p++) {
      const at = sideKeys.get(base[p]?.key ?? '');
      if (at !== undefined) {
        before = at;
        break;
      }
    }
    for (let s = after + 1; s < before; s++) {
      const candidate = side[s];
      if (!candidate || taken.has(s) || !candidate.unnamed || baseKeys.has(candidate.key) || candidate.syntaxKind !== b.syntaxKind) continue;
      taken.add(s);
      side[s] = { ...candidate, key: b.key };
      break;
    }
  });
  return side;
}

// ---------------------------------------------------------------------------------------------------------------
// Merging sequences of units

interface Piece {
  key: string;
  text: string;
}

/** The merged text of one level (a file's statements or a class's members); undefined when something conflicts (recorded in the context). */
function mergeSequence(base: readonly Unit[] | undefined, ours: readonly Unit[], theirs: readonly Unit[], context: Context): string | undefined {
  const b = new Map((base ?? []).map((u) => [u.key, u]));
  const o = new Map(ours.map((u) => [u.key, u]));
  const t = new Map(theirs.map((u) => [u.key, u]));
  const out: Piece[] = [];
  let failed = false;
  for (const ou of ours) {
    const bu = b.get(ou.key);
    const tu = t.get(ou.key);
    let text: string | null | undefined;
    if (!tu) {
      if (!bu || ou.text === bu.text) text = bu ? null : ou.text;
      else text = conflict(context, 'theirsDeleted', { base: bu, ours: ou }, { base, ours, theirs });
    } else if (!bu) {
      text = mergeAdded(ou, tu, context, { base, ours, theirs });
    } else {
      text = mergeChanged(bu, ou, tu, context);
    }
    if (text === undefined) failed = true;
    else if (text !== null) out.push({ key: ou.key, text });
  }
  for (const bu of base ?? []) {
    const tu = t.get(bu.key);
    if (!o.has(bu.key) && tu && tu.text !== bu.text) {
      conflict(context, 'oursDeleted', { base: bu, theirs: tu }, { base, ours, theirs });
      failed = true;
    }
  }
  let anchor: string | undefined;
  for (const tu of theirs) {
    if (out.some((p) => p.key === tu.key)) {
      anchor = tu.key;
      continue;
    }
    if (b.has(tu.key) || o.has(tu.key)) continue;
    let at = anchor === undefined ? 0 : out.findIndex((p) => p.key === anchor) + 1;
    while (at < out.length && o.has(out[at]?.key ?? '') && !b.has(out[at]?.key ?? '') && !t.has(out[at]?.key ?? '')) at++;
    out.splice(at, 0, { key: tu.key, text: tu.text });
    anchor = tu.key;
  }
  return failed ? undefined : joinPieces(out, ours, theirs);
}

/**
 * Pieces are whole lines, except a unit that ends without a newline (the file's last, or one sharing its line with
 * the next); moved next to a unit it did not precede, it gets a line break so the two do not run together.
 */
function joinPieces(pieces: readonly Piece[], ours: readonly Unit[], theirs: readonly Unit[]): string {
  const adjacent = (units: readonly Unit[], a: string, b: string): boolean => {
    const k = units.findIndex((u) => u.key === a);
    return k >= 0 && units[k + 1]?.key === b;
  };
  let text = '';
  let previous: string | undefined;
  for (const piece of pieces) {
    if (piece.text === '') continue;
    if (previous !== undefined && !text.endsWith('\n') && !/^\s/.test(piece.text) && !adjacent(ours, previous, piece.key) && !adjacent(theirs, previous, piece.key)) text += '\n';
    text += piece.text;
    previous = piece.key;
  }
  return text;
}

function mergeChanged(bu: Unit, ou: Unit, tu: Unit, context: Context): string | undefined {
  if (ou.text === bu.text) return tu.text;
  if (tu.text === bu.text || ou.text === tu.text) return ou.text;
  const lines = mergeLines(bu.text, ou.text, tu.text);
  if (lines.ok) return lines.text;
  if (ou.kind === 'import' && tu.kind === 'import') {
    const imports = mergeImport(bu, ou, tu);
    if (imports !== undefined) return imports;
  }
  if ((ou.kind === 'class' || ou.kind === 'interface') && ou.kind === tu.kind && bu.kind === ou.kind) {
    const bm = memberUnits(bu);
    const om = memberUnits(ou);
    const tm = memberUnits(tu);
    if (bm && om && tm) return mergeSequence(bm, pairUnnamed(bm, om), pairUnnamed(bm, tm), context);
  }
  for (const c of lines.conflicts) {
    const shift = (range: { start: number; end: number; text: string }, unit: Unit) => {
      const first = lineOf(unit.file, unit.start);
      return { start: range.start + first, end: range.end + first, text: range.text };
    };
    const oursRange = shift(c.ours, ou);
    context.conflicts.push({
      base: shift(c.base, bu),
      ours: oursRange,
      theirs: shift(c.theirs, tu),
      description: `${describeLines(oursRange)}: ${whatHappened(c, ou.label)}`,
    });
  }
  return undefined;
}

function whatHappened(c: MergeConflict, label: string): string {
  if (c.base.end === c.base.start) return `the editor and the proposal both insert different lines in ${label}`;
  if (c.ours.end === c.ours.start) return `the editor deleted lines of ${label} that the proposal changes`;
  if (c.theirs.end === c.theirs.start) return `the proposal deletes lines of ${label} that the editor changed`;
  return `both the editor and the proposal changed ${label}`;
}

function mergeAdded(ou: Unit, tu: Unit, context: Context, sequences: Sequences): string | undefined {
  if (ou.text === tu.text) return ou.text;
  if (ou.kind === 'import' && tu.kind === 'import') {
    const imports = mergeImport(undefined, ou, tu);
    if (imports !== undefined) return imports;
  }
  if ((ou.kind === 'class' || ou.kind === 'interface') && ou.kind === tu.kind) {
    const om = memberUnits(ou);
    const tm = memberUnits(tu);
    if (om && tm) return mergeSequence(undefined, om, tm, context);
  }
  return conflict(context, 'bothAdded', { ours: ou, theirs: tu }, sequences);
}

interface Sequences {
  base: readonly Unit[] | undefined;
  ours: readonly Unit[];
  theirs: readonly Unit[];
}

/** Records a conflict about a whole unit; returns undefined, the "conflict" outcome. */
function conflict(context: Context, what: 'theirsDeleted' | 'oursDeleted' | 'bothAdded', units: { base?: Unit; ours?: Unit; theirs?: Unit }, sequences: Sequences): undefined {
  const present = units.ours ?? units.theirs ?? units.base;
  if (!present) return undefined;
  const key = present.key;
  const where = (unit: Unit | undefined, sequence: readonly Unit[] | undefined): { start: number; end: number; text: string } => {
    if (unit) return unitSpan(unit);
    const line = absentLine(key, sequences, sequence ?? []);
    return { start: line, end: line, text: '' };
  };
  const ours = where(units.ours, sequences.ours);
  const label = present.label;
  const description =
    what === 'theirsDeleted'
      ? `${describeLines(ours)}: the proposal deletes ${label}, which the editor changed`
      : what === 'oursDeleted'
        ? `${describeLines(ours)}: the editor deleted ${label}, which the proposal changes`
        : `${describeLines(ours)}: the editor and the proposal both add ${label}, differently`;
  context.conflicts.push({ base: where(units.base, sequences.base), ours, theirs: where(units.theirs, sequences.theirs), description });
  return undefined;
}

/** The line where a unit missing from one version would be: after the nearest preceding unit that version has. */
function absentLine(key: string, sequences: Sequences, target: readonly Unit[]): number {
  const inTarget = new Map(target.map((u) => [u.key, u]));
  for (const sequence of [sequences.base, sequences.ours, sequences.theirs]) {
    const k = sequence?.findIndex((u) => u.key === key) ?? -1;
    if (!sequence || k < 0) continue;
    for (let p = k - 1; p >= 0; p--) {
      const found = inTarget.get(sequence[p]?.key ?? '');
      if (found) return unitSpan(found).end;
    }
    break;
  }
  const first = target[0];
  return first ? lineOf(first.file, first.start) : 0;
}

/** A unit's lines without the blank lines above it. */
function unitSpan(unit: Unit): { start: number; end: number; text: string } {
  const blank = /^(?:[ \t]*\n)*/.exec(unit.text)?.[0].length ?? 0;
  const from = unit.start + Math.min(blank, unit.end - unit.start);
  const start = lineOf(unit.file, from);
  const end = unit.end > from ? lineOf(unit.file, unit.end - 1) + 1 : start;
  return { start, end, text: unit.file.slice(from, unit.end) };
}

function lineOf(file: string, offset: number): number {
  return offsetToPosition(file, offset).line;
}

// ---------------------------------------------------------------------------------------------------------------
// Imports

interface NamedImportParts {
  bindings: ts.NamedImports;
  elements: string[];
  /** The statement with its named bindings emptied: what must agree for the lists to be merged. */
  shape: string;
}

function namedImportParts(unit: Unit | undefined): NamedImportParts | undefined {
  const node = unit?.node;
  if (!node || !ts.isImportDeclaration(node)) return undefined;
  const bindings = node.importClause?.namedBindings;
  if (!bindings || !ts.isNamedImports(bindings)) return undefined;
  const source = node.getSourceFile();
  const statement = node.getText(source);
  const offset = node.getStart(source);
  const shape = statement.slice(0, bindings.getStart(source) - offset) + '{}' + statement.slice(bindings.getEnd() - offset);
  return { bindings, elements: bindings.elements.map((e) => e.getText(source).replace(/\s+/g, ' ')), shape };
}

/**
 * Two changes to one import statement: the named imports of both (ours' order, then the proposal's additions),
 * without those either side removed. Undefined when the statements differ in anything but that list.
 */
function mergeImport(bu: Unit | undefined, ou: Unit, tu: Unit): string | undefined {
  const b = bu ? namedImportParts(bu) : undefined;
  const o = namedImportParts(ou);
  const t = namedImportParts(tu);
  if (!o || !t || (bu && !b) || o.shape !== t.shape) return undefined;
  const inBase = new Set(b?.elements ?? []);
  const inOurs = new Set(o.elements);
  const inTheirs = new Set(t.elements);
  const elements = o.elements.filter((e) => !(inBase.has(e) && !inTheirs.has(e)));
  for (const e of t.elements) if (!inOurs.has(e) && !inBase.has(e) && !elements.includes(e)) elements.push(e);
  if (elements.length === 0) return undefined;
  const source = o.bindings.getSourceFile();
  const original = o.bindings.getText(source);
  let rendered: string;
  if (original.includes('\n')) {
    const indent = /\n([ \t]*)\S/.exec(original)?.[1] ?? '  ';
    const closing = /\n([ \t]*)\}$/.exec(original)?.[1] ?? '';
    const trailingComma = /,\s*\}$/.test(original) ? ',' : '';
    rendered = `{\n${indent}${elements.join(`,\n${indent}`)}${trailingComma}\n${closing}}`;
  } else {
    const space = /^\{\s/.test(original) ? ' ' : '';
    rendered = `{${space}${elements.join(', ')}${space}}`;
  }
  const start = o.bindings.getStart(source) - ou.start;
  const end = o.bindings.getEnd() - ou.start;
  return ou.text.slice(0, start) + rendered + ou.text.slice(end);
}
