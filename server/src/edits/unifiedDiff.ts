// Unified diffs as people and language models write them: parsed tolerantly, applied by their context, refused with reasons a model can act on.

export interface DiffHunk {
  /** 1-based, as in the header; 0 with `numbered: false`. */
  oldStart: number;
  /** Counted from `lines`, whatever the header said. */
  oldLines: number;
  newStart: number;
  newLines: number;
  /** With ' ', '-', '+' prefixes (an empty context line written without its space gets one). */
  lines: string[];
  /** The header as written, for messages. */
  header?: string;
  /** False for a header without line numbers (`@@ @@`, `@@ ... @@`): the hunk is found by its context alone. Default true. */
  numbered?: boolean;
  /** `\ No newline at end of file` after the last line of the old or the new side. */
  noNewlineAtEnd?: { old: boolean; new: boolean };
}

export interface FilePatch {
  /** Workspace-relative, `a/` and `b/` prefixes stripped; undefined for /dev/null or when the diff names no file. */
  oldPath?: string;
  newPath?: string;
  hunks: DiffHunk[];
  isNew: boolean;
  isDeleted: boolean;
}

export type DiffParse = { ok: true; files: FilePatch[] } | { ok: false; reason: string };

export type MatchLevel = 'exact' | 'trailingWhitespace' | 'whitespace';

export type PatchApplication =
  | {
      ok: true;
      text: string;
      /** Line offset at which each hunk applied relative to its header (from the start of the file for `@@ @@` hunks). */
      offsets: number[];
      /** How loosely each hunk's lines had to be compared to find it. */
      matched: MatchLevel[];
    }
  | { ok: false; reason: string; hunk?: number };

interface Section extends FilePatch {
  /** Raw paths from `diff --git`, used when no `---`/`+++` lines follow (new empty files, renames, mode changes). */
  gitPaths?: [string, string];
  hasFileHeader: boolean;
  inGitHeader: boolean;
  renamed: boolean;
  rawOld?: string;
  rawNew?: string;
}

const FENCE = /^(```|~~~)/;

/**
 * Reads every file section of a unified diff: git style or plain, several files, inside markdown fences with prose
 * around them (lines outside a hunk that are not headers are skipped). Hunk counts are recounted from the lines;
 * an empty line inside a hunk is an empty context line when more hunk lines follow it, and the end of the hunk
 * otherwise. Sections are returned as written: two sections for one file are two patches, applied in turn.
 */
export function parseUnifiedDiff(text: string): DiffParse {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const sections: Section[] = [];
  let current: Section | undefined;
  let fenced = false;
  const start = (): Section => {
    const section: Section = { hunks: [], isNew: false, isDeleted: false, hasFileHeader: false, inGitHeader: false, renamed: false };
    sections.push(section);
    return section;
  };
  let k = 0;
  while (k < lines.length) {
    const line = lines[k] ?? '';
    if (line.startsWith('diff --git ')) {
      current = start();
      current.inGitHeader = true;
      current.gitPaths = gitHeaderPaths(line.slice('diff --git '.length));
      k++;
      continue;
    }
    const joined = joinedFileHeader(line);
    if (isFileHeader(lines, k) || joined) {
      if (!current || current.hasFileHeader || current.hunks.length > 0 || !current.inGitHeader) current = start();
      current.hasFileHeader = true;
      current.inGitHeader = false;
      current.rawOld = headerPath(joined ? joined[0] : line.slice(4));
      current.rawNew = headerPath(joined ? joined[1] : (lines[k + 1] ?? '').slice(4));
      k += joined ? 1 : 2;
      continue;
    }
    if (current?.inGitHeader) {
      if (line.startsWith('new file mode')) current.isNew = true;
      else if (line.startsWith('deleted file mode')) current.isDeleted = true;
      else if (line.startsWith('rename from ') || line.startsWith('copy from ')) {
        current.renamed = true;
        current.rawOld = unquote(line.replace(/^(rename|copy) from /, ''));
      } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
        current.renamed = true;
        current.rawNew = unquote(line.replace(/^(rename|copy) to /, ''));
      } else if (line.startsWith('Binary files ') || line.startsWith('GIT binary patch')) {
        return { ok: false, reason: `the diff for ${current.gitPaths?.[1] ?? 'a file'} is a binary patch, which cannot be applied; write text changes only` };
      }
    }
    if (FENCE.test(line)) fenced = !fenced;
    if (line.startsWith('@@')) {
      current ??= start();
      current.inGitHeader = false;
      const read = readHunk(lines, k, fenced);
      if ('reason' in read) {
        const file = current.rawNew ?? current.gitPaths?.[1];
        const of = file && file !== '/dev/null' ? ` of ${file.replace(/^b\//, '')}` : '';
        return { ok: false, reason: `hunk ${current.hunks.length + 1} (${line.trim()})${of}: ${read.reason}` };
      }
      current.hunks.push(read.hunk);
      k = read.next;
      continue;
    }
    k++;
  }
  if (sections.length === 0) return { ok: false, reason: 'no unified diff found: expected "--- a/path" and "+++ b/path" lines followed by "@@ -start,count +start,count @@" hunks' };
  const files: FilePatch[] = [];
  for (const section of sections) {
    const file = finishSection(section);
    if ('reason' in file) return { ok: false, reason: file.reason };
    files.push(file);
  }
  return { ok: true, files };
}

function isFileHeader(lines: readonly string[], k: number): boolean {
  return (lines[k] ?? '').startsWith('--- ') && (lines[k + 1] ?? '').startsWith('+++ ');
}

/** Both file headers written on one line (`--- a/x.ts +++ b/x.ts`), as small models do: the two raw paths. */
function joinedFileHeader(line: string): [string, string] | undefined {
  const match = /^--- (\S+)\s+\+\+\+ (\S+)\s*$/.exec(line);
  return match ? [match[1]!, match[2]!] : undefined;
}

function endsHunk(lines: readonly string[], k: number): boolean {
  const line = lines[k] ?? '';
  return (
    line.startsWith('@@') || line.startsWith('diff --git ') || line.startsWith('Index: ') || FENCE.test(line) || isFileHeader(lines, k) || joinedFileHeader(line) !== undefined
  );
}

function isHunkLine(line: string): boolean {
  return line.startsWith(' ') || line.startsWith('-') || line.startsWith('+') || line.startsWith('\\');
}

/**
 * One hunk from its header on. A line without a prefix ends it, unless the hunk clearly goes on after it (its counts
 * are not reached, or it is inside a fence, and hunk lines follow): then the diff is refused rather than read up to
 * that line, which would silently drop the changes after it.
 */
function readHunk(lines: readonly string[], at: number, fenced: boolean): { hunk: DiffHunk; next: number } | { reason: string } {
  const header = lines[at] ?? '';
  const numbers = /^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@|$)/.exec(header);
  const stated = numbers ? { old: Number(numbers[2] ?? 1), new: Number(numbers[4] ?? 1) } : undefined;
  const body: string[] = [];
  const noNewline = { old: false, new: false };
  let oldCount = 0;
  let newCount = 0;
  let k = at + 1;
  for (; k < lines.length; k++) {
    if (endsHunk(lines, k)) break;
    const line = lines[k] ?? '';
    const needMore = stated !== undefined && (oldCount < stated.old || newCount < stated.new);
    if (line === '') {
      // Models drop the space of empty context lines; an empty line is part of the hunk only if the hunk goes on.
      if (!needMore) {
        let ahead = k;
        while (ahead < lines.length && lines[ahead] === '') ahead++;
        if (ahead >= lines.length || endsHunk(lines, ahead) || !isHunkLine(lines[ahead] ?? '') || (lines[ahead] ?? '').startsWith('\\')) break;
      }
      body.push(' ');
      oldCount++;
      newCount++;
      continue;
    }
    if (!isHunkLine(line)) {
      const next = lines[k + 1] ?? '';
      if ((needMore || fenced) && !endsHunk(lines, k + 1) && isHunkLine(next) && !next.startsWith('\\')) {
        return { reason: `the line ${JSON.stringify(line)} has no prefix; every line of a hunk starts with " " (unchanged), "-" (removed) or "+" (added)` };
      }
      break;
    }
    if (line.startsWith('\\')) {
      const previous = body[body.length - 1];
      if (previous?.startsWith('-') || previous?.startsWith(' ')) noNewline.old = true;
      if (previous?.startsWith('+') || previous?.startsWith(' ')) noNewline.new = true;
      continue;
    }
    body.push(line);
    if (!line.startsWith('+')) oldCount++;
    if (!line.startsWith('-')) newCount++;
  }
  if (body.length === 0) return { reason: 'the hunk has no lines' };
  const hunk: DiffHunk = {
    oldStart: numbers ? Number(numbers[1]) : 0,
    oldLines: oldCount,
    newStart: numbers ? Number(numbers[3]) : 0,
    newLines: newCount,
    lines: body,
    header: header.trim(),
    numbered: numbers !== null,
  };
  if (noNewline.old || noNewline.new) hunk.noNewlineAtEnd = noNewline;
  return { hunk, next: k };
}

/** The path of a `---`/`+++` line: a timestamp after a tab and trailing blanks removed, quotes undone. */
function headerPath(raw: string): string {
  const withoutTime = raw.includes('\t') ? raw.slice(0, raw.indexOf('\t')) : raw;
  return unquote(withoutTime.trim());
}

/** Git quotes paths with unusual characters in C style (octal escapes are UTF-8 bytes). */
function unquote(path: string): string {
  if (!(path.startsWith('"') && path.endsWith('"') && path.length >= 2)) return path;
  const bytes: number[] = [];
  const inner = path.slice(1, -1);
  const simple: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };
  for (let k = 0; k < inner.length; k++) {
    const c = inner[k] ?? '';
    if (c === '\\' && /^[0-7]{3}$/.test(inner.slice(k + 1, k + 4))) {
      bytes.push(parseInt(inner.slice(k + 1, k + 4), 8));
      k += 3;
    } else if (c === '\\' && simple[inner[k + 1] ?? ''] !== undefined) {
      bytes.push(...Buffer.from(simple[inner[k + 1] ?? ''] ?? ''));
      k++;
    } else {
      bytes.push(...Buffer.from(c));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The two paths of `diff --git a/x b/x`; when paths contain spaces, the split that gives two equal names wins. */
function gitHeaderPaths(rest: string): [string, string] {
  const quoted = /^("(?:[^"\\]|\\.)*")\s+("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
  if (quoted) return [unquote(quoted[1] ?? ''), unquote(quoted[2] ?? '')];
  const splits: number[] = [];
  for (let k = rest.indexOf(' '); k >= 0; k = rest.indexOf(' ', k + 1)) splits.push(k);
  const same = splits.find((k) => rest.slice(0, k).replace(/^a\//, '') === rest.slice(k + 1).replace(/^b\//, ''));
  const at = same ?? splits.find((k) => rest.startsWith('b/', k + 1)) ?? splits[0] ?? rest.length;
  return [unquote(rest.slice(0, at)), unquote(rest.slice(at + 1))];
}

function finishSection(section: Section): FilePatch | { reason: string } {
  let rawOld = section.rawOld;
  let rawNew = section.rawNew;
  if (!section.hasFileHeader && section.gitPaths) {
    rawOld = section.renamed && rawOld !== undefined ? `a/${rawOld}` : section.isNew ? '/dev/null' : section.gitPaths[0];
    rawNew = section.renamed && rawNew !== undefined ? `b/${rawNew}` : section.isDeleted ? '/dev/null' : section.gitPaths[1];
  }
  const isNew = section.isNew || rawOld === '/dev/null';
  const isDeleted = section.isDeleted || rawNew === '/dev/null';
  if (isNew && isDeleted) return { reason: 'a file section has /dev/null as both its old and its new path' };
  let oldPath: string | undefined;
  let newPath: string | undefined;
  if (rawOld !== undefined || rawNew !== undefined) {
    const paths = cleanPaths(isNew ? undefined : rawOld, isDeleted ? undefined : rawNew);
    if ('reason' in paths) return paths;
    ({ oldPath, newPath } = paths);
  }
  const name = newPath ?? oldPath ?? 'a file';
  const changesName = section.renamed || (oldPath !== undefined && newPath !== undefined && oldPath !== newPath);
  if (section.hunks.length === 0 && !isNew && !isDeleted && !changesName && !(section.inGitHeader || (!section.hasFileHeader && section.gitPaths))) {
    return { reason: `the diff for ${name} has file headers but no hunks ("@@ -start,count +start,count @@" followed by the changed lines)` };
  }
  if (isNew && section.hunks.some((h) => h.lines.some((l) => !l.startsWith('+')))) {
    return { reason: `the diff creates ${name} (--- /dev/null), so every line of its hunks must start with "+"` };
  }
  const patch: FilePatch = { hunks: section.hunks, isNew, isDeleted };
  if (oldPath !== undefined) patch.oldPath = oldPath;
  if (newPath !== undefined) patch.newPath = newPath;
  return patch;
}

/** Strips git's a/ and b/ prefixes when the pair follows that convention, and refuses paths that leave the workspace. */
function cleanPaths(rawOld: string | undefined, rawNew: string | undefined): { oldPath?: string; newPath?: string } | { reason: string } {
  const norm = (p: string | undefined): string | undefined => (p === undefined || p === '/dev/null' ? undefined : p.replace(/\\/g, '/'));
  let o = norm(rawOld);
  let n = norm(rawNew);
  const gitStyle = (o === undefined || o.startsWith('a/')) && (n === undefined || n.startsWith('b/'));
  if (gitStyle) {
    o = o?.slice(2);
    n = n?.slice(2);
  } else if (o?.startsWith('a/') && o.slice(2) === n) {
    o = o.slice(2);
  } else if (n?.startsWith('b/') && n.slice(2) === o) {
    n = n.slice(2);
  }
  const result: { oldPath?: string; newPath?: string } = {};
  for (const [which, path] of [['oldPath', o], ['newPath', n]] as const) {
    if (path === undefined) continue;
    const clean = path.replace(/^(\.\/)+/, '');
    if (clean === '') return { reason: 'the diff names an empty path' };
    if (clean.startsWith('/') || /^[A-Za-z]:/.test(clean)) return { reason: `the diff names the absolute path "${path}"; use paths relative to the workspace root` };
    if (clean.split('/').includes('..')) return { reason: `the diff names the path "${path}", which leaves the workspace ("..")` };
    result[which] = clean;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Applying

interface Lines {
  lines: string[];
  eols: string[];
  finalNewline: boolean;
  eol: string;
}

function split(text: string): Lines {
  const lines: string[] = [];
  const eols: string[] = [];
  const pattern = /\r?\n/g;
  let start = 0;
  let crlf = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    lines.push(text.slice(start, m.index));
    eols.push(m[0]);
    if (m[0] === '\r\n') crlf++;
    start = m.index + m[0].length;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    eols.push('');
  }
  return { lines, eols, finalNewline: start === text.length, eol: crlf * 2 > eols.filter((e) => e !== '').length ? '\r\n' : '\n' };
}

const LEVELS: readonly MatchLevel[] = ['exact', 'trailingWhitespace', 'whitespace'];

function same(a: string, b: string, level: MatchLevel): boolean {
  if (level === 'exact') return a === b;
  if (level === 'trailingWhitespace') return a.trimEnd() === b.trimEnd();
  return a.trim() === b.trim();
}

/** The old side of a hunk (context and removed lines). */
function oldSide(lines: readonly string[]): string[] {
  return lines.filter((l) => !l.startsWith('+')).map((l) => l.slice(1));
}

function newSide(lines: readonly string[]): string[] {
  return lines.filter((l) => !l.startsWith('-')).map((l) => l.slice(1));
}

function matchesAt(file: readonly string[], side: readonly string[], at: number, level: MatchLevel): boolean {
  if (at < 0 || at + side.length > file.length) return false;
  for (let x = 0; x < side.length; x++) if (!same(file[at + x] ?? '', side[x] ?? '', level)) return false;
  return true;
}

function headerOf(hunk: DiffHunk): string {
  return hunk.header ?? (hunk.numbered === false ? '@@ @@' : `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
}

function quote(line: string | undefined): string {
  if (line === undefined) return 'the end of the file';
  const shown = line.length > 100 ? `${line.slice(0, 100)}…` : line;
  return `"${shown}"`;
}

type Located = { ok: true; at: number; level: MatchLevel; lines: string[] } | { ok: false; reason: string };

/**
 * Applies one file's hunks, in order, to `original`. A numbered hunk is looked for at its stated line shifted by the
 * offset the previous hunk applied at (as `patch` does: lines added above move every later hunk), then outward,
 * nearest first, the later line winning a tie; at most `maxOffset` lines from its stated line. A hunk without line
 * numbers must match exactly one place after the previous hunk. Each search tries exact lines, then lines without
 * trailing whitespace, then without any surrounding whitespace; context lines keep the file's own text, added lines
 * get the file's line ending. Hunks never overlap and stay in order.
 */
export function applyFilePatch(original: string, patch: FilePatch, options: { maxOffset?: number } = {}): PatchApplication {
  const name = patch.newPath ?? patch.oldPath ?? 'the file';
  if (patch.isNew && original !== '') return { ok: false, reason: `the diff creates ${name} (--- /dev/null), but the file already exists; write a diff against its current content` };
  const maxOffset = options.maxOffset ?? Infinity;
  const file = split(original);
  const offsets: number[] = [];
  const matched: MatchLevel[] = [];
  const placed: { at: number; lines: string[]; hunk: DiffHunk }[] = [];
  let minStart = 0;
  let lastOffset = 0;
  for (const [index, hunk] of patch.hunks.entries()) {
    const numbered = hunk.numbered !== false;
    const pureInsertion = hunk.lines.every((l) => l.startsWith('+'));
    const stated = pureInsertion ? hunk.oldStart : Math.max(0, hunk.oldStart - 1);
    const located = locate(file.lines, hunk, { numbered, stated, expected: stated + lastOffset, minStart, maxOffset, index, name, pureInsertion });
    if (!located.ok) return { ok: false, reason: located.reason, hunk: index };
    const offset = numbered ? located.at - stated : located.at;
    offsets.push(offset);
    matched.push(located.level);
    placed.push({ at: located.at, lines: located.lines, hunk });
    minStart = located.at + oldSide(located.lines).length;
    if (numbered) lastOffset = offset;
  }
  if (patch.isDeleted) return { ok: true, text: '', offsets, matched };
  const out: { text: string; eol: string }[] = [];
  let cursor = 0;
  let finalNewline = file.finalNewline;
  const copy = (to: number): void => {
    for (; cursor < to; cursor++) out.push({ text: file.lines[cursor] ?? '', eol: file.eols[cursor] ?? '' });
  };
  for (const { at, lines, hunk } of placed) {
    copy(at);
    for (const line of lines) {
      if (line.startsWith('+')) out.push({ text: line.slice(1), eol: '' });
      else if (line.startsWith('-')) cursor++;
      else copy(cursor + 1);
    }
    if (cursor === file.lines.length && hunk.noNewlineAtEnd) {
      if (hunk.noNewlineAtEnd.new) finalNewline = false;
      else if (hunk.noNewlineAtEnd.old) finalNewline = true;
    }
  }
  copy(file.lines.length);
  const text = out.map((line, k) => line.text + (k < out.length - 1 || finalNewline ? line.eol || file.eol : '')).join('');
  return { ok: true, text, offsets, matched };
}

interface Search {
  numbered: boolean;
  /** 0-based line the header names (the line the hunk's first old line is on, or the insertion point). */
  stated: number;
  expected: number;
  minStart: number;
  maxOffset: number;
  index: number;
  name: string;
  pureInsertion: boolean;
}

function locate(file: readonly string[], hunk: DiffHunk, search: Search): Located {
  const title = `hunk ${search.index + 1} (${headerOf(hunk)})`;
  if (search.pureInsertion) {
    if (!search.numbered) {
      if (file.length === 0) return { ok: true, at: 0, level: 'exact', lines: hunk.lines };
      return { ok: false, reason: `${title} only adds lines and has no line numbers or context lines, so there is no telling where it goes in ${search.name}; add a few unchanged lines around it` };
    }
    const at = Math.max(search.minStart, Math.min(search.expected, file.length));
    if (search.stated > file.length) return { ok: false, reason: `${title} adds lines after line ${search.stated}, but ${search.name} has only ${file.length} lines` };
    return { ok: true, at, level: 'exact', lines: hunk.lines };
  }
  const first = find(file, hunk.lines, search);
  if (first.ok || first.reason !== undefined) return first.ok ? first : { ok: false, reason: `${title} ${first.reason}` };
  // Blank context lines at the ends are where models most often invent or drop lines: try without them.
  const trimmed = trimBlankContext(hunk.lines);
  if (trimmed.length !== hunk.lines.length && oldSide(trimmed).length > 0) {
    const second = find(file, trimmed, search);
    if (second.ok) return second;
    if (second.reason !== undefined) return { ok: false, reason: `${title} ${second.reason}` };
  }
  return { ok: false, reason: `${title} does not match ${search.name}: ${diagnose(file, hunk.lines, search)}` };
}

function trimBlankContext(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && /^ \s*$/.test(lines[start] ?? '')) start++;
  while (end > start && /^ \s*$/.test(lines[end - 1] ?? '')) end--;
  return lines.slice(start, end);
}

/** The place of a hunk's old side; `reason` set when it was found but may not be used (ambiguous, too far). */
function find(file: readonly string[], lines: string[], search: Search): Located | { ok: false; reason?: string } {
  const side = oldSide(lines);
  const last = file.length - side.length;
  for (const level of LEVELS) {
    if (!search.numbered) {
      const places: number[] = [];
      for (let at = search.minStart; at <= last; at++) if (matchesAt(file, side, at, level)) places.push(at);
      if (places.length === 1) return { ok: true, at: places[0] ?? 0, level, lines };
      if (places.length > 1) {
        const shown = places.slice(0, 5).map((p) => p + 1).join(', ');
        return { ok: false, reason: `has no line numbers and its lines match ${search.name} in ${places.length} places (lines ${shown}); give the header its line numbers or add context lines that occur once` };
      }
      continue;
    }
    const expected = Math.max(search.minStart, Math.min(search.expected, Math.max(last, search.minStart)));
    let tooFar: number | undefined;
    for (let distance = 0; expected + distance <= last || expected - distance >= search.minStart; distance++) {
      for (const at of distance === 0 ? [expected] : [expected + distance, expected - distance]) {
        if (at < search.minStart || at > last || !matchesAt(file, side, at, level)) continue;
        if (Math.abs(at - search.stated) <= search.maxOffset) return { ok: true, at, level, lines };
        tooFar ??= at;
      }
    }
    if (tooFar !== undefined) {
      return { ok: false, reason: `matches ${search.name} only at line ${tooFar + 1}, ${Math.abs(tooFar - search.stated)} lines away from the line its header states (at most ${search.maxOffset} allowed); check the line numbers` };
    }
  }
  return { ok: false };
}

/** Why a hunk matches nowhere: the first of its lines that is missing where the lines before it are, as close to the stated place as possible. */
function diagnose(file: readonly string[], lines: readonly string[], search: Search): string {
  const side = oldSide(lines);
  let best = { count: -1, at: 0, distance: Infinity };
  for (let at = search.minStart; at < Math.max(file.length, search.minStart + 1); at++) {
    let count = 0;
    while (count < side.length && at + count < file.length && same(file[at + count] ?? '', side[count] ?? '', 'whitespace')) count++;
    const distance = Math.abs(at - search.expected);
    if (count > best.count || (count === best.count && distance < best.distance)) best = { count, at, distance };
  }
  let reason: string;
  if (best.count <= 0) {
    const firstLine = side[0] ?? '';
    const earlier = file.slice(0, search.minStart).some((l) => same(l, firstLine, 'whitespace'));
    reason = `the line ${quote(firstLine)} was not found${earlier && search.index > 0 ? ` after hunk ${search.index} (it occurs only before it; hunks must be in file order and must not overlap)` : ''}`;
  } else {
    const missing = side[best.count];
    reason = `the line ${quote(missing)} (line ${best.count + 1} of the hunk's old side) was not found: ${search.name} has ${quote(file[best.at + best.count])} at line ${best.at + best.count + 1}, after the hunk's first ${best.count} line${best.count === 1 ? '' : 's'}`;
  }
  const after = newSide(lines);
  if (after.length > 0 && lines.some((l) => l.startsWith('-') || l.startsWith('+'))) {
    for (let at = 0; at + after.length <= file.length; at++) {
      if (matchesAt(file, after, at, 'whitespace')) {
        reason += `; the hunk's new lines are already there at line ${at + 1}, so the change seems to be made already`;
        break;
      }
    }
  }
  return reason;
}
