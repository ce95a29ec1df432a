// Turns whatever a model answered for a Document task into one clean, un-indented JSDoc block, or nothing.
import { neutraliseCommentEnd, parseJsDoc, renderJsDoc } from './jsdoc.js';

/** A comment found in code, with how good a doc-comment source it is. */
interface CommentCandidate {
  /** 0 for `/** *\/`, 1 for `/* *\/`, 2 for a `//` series: lower is preferred. */
  rank: number;
  /** The comment's text lines without comment markers. */
  contentLines: string[];
  /** Whether the declaration of the requested name follows the comment directly. */
  aboveRequestedDeclaration: boolean;
}

/**
 * The JSDoc block in a model's answer, normalised (un-indented, ` * ` prefixes, no `*\/` inside),
 * or undefined when the answer holds no usable comment. `simpleName` picks the comment above
 * that declaration when the answer contains several.
 */
export function extractDocComment(modelOutput: string, simpleName?: string): string | undefined {
  const text = modelOutput.replace(/\r\n?/g, '\n');
  if (!text.trim()) return undefined;
  const fences = codeFences(text);
  if (fences.length > 0) {
    const candidates = fences.flatMap((fence) => commentsInCode(fence.body, simpleName));
    const chosen = chooseCandidate(candidates);
    if (chosen) return blockFromContentLines(chosen.contentLines);
    // A fence may hold the documentation as plain text (```text … ```).
    for (const fence of fences) {
      if (fence.body.trim() && !looksLikeCode(fence.body)) return fromProse(fence.body);
    }
    // A doc comment outside the fences still counts (a stray closing fence after an unfenced answer, code fenced
    // in part); prose outside them that merely presents code is not documentation.
    const outside = chooseCandidate(commentsInCode(text.replace(/^\s*(`{3,}|~{3,}).*$/gm, ''), simpleName).filter((candidate) => candidate.rank === 0));
    return outside ? blockFromContentLines(outside.contentLines) : undefined;
  }
  const candidates = commentsInCode(text, simpleName);
  const chosen = chooseCandidate(candidates);
  if (chosen) return blockFromContentLines(chosen.contentLines);
  // Only empty comments (`/** */`) and code around them: the answer wrote nothing usable.
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^[ \t]*\/\/.*$/gm, '');
  if (candidates.length > 0 && !withoutComments.trim()) return undefined;
  if (looksLikeCode(withoutComments)) return undefined;
  return fromProse(text);
}

interface CodeFence {
  body: string;
}

/** Fenced blocks in Markdown order; an unterminated fence (a truncated answer) runs to the end. */
function codeFences(text: string): CodeFence[] {
  const fences: CodeFence[] = [];
  let open: { marker: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (!open) {
      // Any language tag (or none) may follow the marker.
      const opening = /^\s*(`{3,}|~{3,})/.exec(line);
      if (opening) open = { marker: opening[1] ?? '```', lines: [] };
      continue;
    }
    const closing = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
    const closingMarker = closing?.[1] ?? '';
    if (closing && closingMarker[0] === open.marker[0] && closingMarker.length >= open.marker.length) {
      fences.push({ body: open.lines.join('\n') });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  if (open) fences.push({ body: open.lines.join('\n') });
  return fences;
}

function chooseCandidate(candidates: CommentCandidate[]): CommentCandidate | undefined {
  const usable = candidates.filter((candidate) => candidate.contentLines.some((line) => line.trim() !== ''));
  const bestRank = Math.min(...usable.map((candidate) => candidate.rank));
  const ofBestRank = usable.filter((candidate) => candidate.rank === bestRank);
  return ofBestRank.find((candidate) => candidate.aboveRequestedDeclaration) ?? ofBestRank[0];
}

/** Every comment in a piece of code that could serve as a doc comment. */
function commentsInCode(code: string, simpleName: string | undefined): CommentCandidate[] {
  const candidates: CommentCandidate[] = [];
  const blockPattern = /\/\*(\*?)(?!\/)([\s\S]*?)\*\//g;
  const claimed: Array<[number, number]> = [];
  for (const match of code.matchAll(blockPattern)) {
    const start = match.index;
    const end = start + match[0].length;
    claimed.push([start, end]);
    const isJsDoc = match[1] === '*';
    if (!isJsDoc && /^\s*(eslint|prettier|istanbul|c8|global|jshint)\b/.test(match[2] ?? '')) continue;
    if (!isJsDoc && !documentsWhatFollows(code.slice(end))) continue;
    candidates.push({
      rank: isJsDoc ? 0 : 1,
      contentLines: blockContentLines(match[2] ?? ''),
      aboveRequestedDeclaration: declaresNameNext(code.slice(end), simpleName),
    });
  }
  // A truncated answer may open a JSDoc block and never close it.
  const unclosed = code.lastIndexOf('/**');
  if (unclosed >= 0 && !claimed.some(([start, end]) => start <= unclosed && unclosed < end)) {
    const afterOpen = code.slice(unclosed + 3).split('\n');
    const taken: string[] = [afterOpen[0] ?? ''];
    for (const line of afterOpen.slice(1)) {
      if (!/^\s*\*/.test(line)) break;
      taken.push(line);
    }
    candidates.push({ rank: 0, contentLines: blockContentLines(taken.join('\n')), aboveRequestedDeclaration: false });
  }
  const lines = code.split('\n');
  let offset = 0;
  let series: { lines: string[]; end: number } | undefined;
  const closeSeries = (): void => {
    if (series && series.lines.some((line) => line.trim()) && documentsWhatFollows(code.slice(series.end))) {
      candidates.push({ rank: 2, contentLines: series.lines, aboveRequestedDeclaration: declaresNameNext(code.slice(series.end), simpleName) });
    }
    series = undefined;
  };
  for (const line of lines) {
    const lineEnd = offset + line.length;
    const insideBlock = claimed.some(([start, end]) => start <= offset && offset < end);
    const lineComment = insideBlock ? undefined : /^\s*\/\/(?!\/)\s?(.*)$/.exec(line);
    if (lineComment) {
      const content = (lineComment[1] ?? '').trimEnd();
      // Tool directives are not documentation.
      if (!/^(eslint|@ts-|prettier-ignore|istanbul|c8 )/.test(content)) {
        series ??= { lines: [], end: lineEnd };
        series.lines.push(content);
        series.end = lineEnd;
      }
    } else {
      closeSeries();
    }
    offset = lineEnd + 1;
  }
  closeSeries();
  return candidates;
}

/** The lines inside `/* … *\/` with their leading `*` gutters removed. */
function blockContentLines(inner: string): string[] {
  return inner.split('\n').map((line, index) => {
    if (index === 0) return line.trim();
    const starred = /^\s*\* ?/.exec(line);
    return (starred ? line.slice(starred[0].length) : line.trim()).trimEnd();
  });
}

/** Whether the first code line after a comment declares `simpleName` (decorators skipped). */
function declaresNameNext(after: string, simpleName: string | undefined): boolean {
  if (!simpleName) return false;
  const lines = after.split('\n');
  const name = simpleName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const declaration = new RegExp(`^(?:[\\w$]+\\*?\\s+)*\\*?\\s*#?${name}\\s*(?:[<(=:{?!]|extends\\b|implements\\b|$)`);
  for (const rawLine of lines) {
    const line = rawLine.trim();
    if (!line || line.startsWith('@')) continue;
    return declaration.test(line);
  }
  return false;
}

/**
 * Whether a plain comment stands where a doc comment would: above a declaration, or with no code after it.
 * A remark inside a function body (`// read the file`) is not documentation.
 */
function documentsWhatFollows(after: string): boolean {
  const next = after.split('\n').map((line) => line.trim()).find((line) => line !== '' && !line.startsWith('@') && !line.startsWith('//'));
  if (next === undefined || next.startsWith('```')) return true;
  return (
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\b|class\b|interface\b|type\b|enum\b|const\b|let\b|var\b|abstract\b|namespace\b|module\b)/.test(next) ||
    /^(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*(?:constructor|[#\w$]+)\s*(?:<[^>]*>)?\s*\(.*\)\s*(?::.*)?\{?\s*$/.test(next) ||
    /^(?:(?:public|private|protected|static|readonly|override)\s+)*[#\w$]+\s*[?!]?\s*[:=]/.test(next)
  );
}

/** Lines that only code has: declarations, statements, braces, arrows. */
function looksLikeCode(text: string): boolean {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return false;
  const codeLike = lines.filter((line) =>
    /^\s*(export|import|function|async\s+function|const|let|var|class|interface|enum|return\b|if\s*\(|for\s*\(|while\s*\(|switch\s*\(|try\s*\{|throw\b|public\s|private\s|protected\s|static\s|readonly\s)/.test(line) ||
    /^\s*type\s+\w+.*=/.test(line) ||
    /[;{}]\s*$/.test(line) ||
    /^\s*[}\])]/.test(line) ||
    /=>/.test(line) ||
    /^\s*[\w$.]+\(.*\)\s*;?\s*$/.test(line),
  ).length;
  return codeLike * 2 >= lines.length;
}

/** Plain text as a doc comment: an assistant's preface dropped, gutters stripped, `@tag` lines kept as tags. */
function fromProse(text: string): string | undefined {
  let lines = text.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && (lines[0]?.trim() === '' || /^(sure|certainly|of course|okay|ok|here)\b.*:$/i.test(lines[0]?.trim() ?? ''))) lines = lines.slice(1);
  lines = lines.filter((line) => !/^\s*\/\*\*?\s*$/.test(line) && !/^\s*\*\/\s*$/.test(line));
  const nonEmpty = lines.filter((line) => line.trim() !== '');
  if (nonEmpty.length > 0 && nonEmpty.every((line) => /^\s*\*/.test(line))) {
    lines = lines.map((line) => line.replace(/^\s*\* ?/, ''));
  }
  lines = lines.map((line) => line.replace(/^\s*[-*]\s+(?=@[A-Za-z])/, '').replace(/^\s+(?=@[A-Za-z])/, ''));
  return blockFromContentLines(lines);
}

function blockFromContentLines(lines: string[]): string | undefined {
  const trimmed = lines.map((line) => line.trimEnd());
  while (trimmed.length > 0 && trimmed[0] === '') trimmed.shift();
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
  if (trimmed.length === 0) return undefined;
  const body = trimmed.map((line) => (line ? ` * ${neutraliseCommentEnd(line)}` : ' *')).join('\n');
  const parsed = parseJsDoc(`/**\n${body}\n */`);
  if (!parsed.description.trim() && parsed.tags.length === 0) return undefined;
  return renderJsDoc(parsed);
}
