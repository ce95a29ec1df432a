// ESLint's own fix of the finding at an ESLint diagnostic, when the rule has one: the offline Fix agent's answer to lint findings.
import type { AgentAnswer, AgentRequest } from '../agent.js';
import { singleDocument } from '../../edits/proposal.js';
import { lineStarts, positionToOffset } from '../../edits/textEdits.js';
import { lintProblems } from '../../listeners/lintQueue.js';

interface LintFix {
  start: number;
  end: number;
  text: string;
}

/** Lints the document's text again with the project's ESLint and answers with the fix ESLint has for the finding. */
export async function eslintFix(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
  const diagnostic = request.target.diagnostic;
  const { document } = request;
  if (!diagnostic || diagnostic.source !== 'eslint') return { text: '', reason: 'not an ESLint finding' };
  if (!document.fsPath) return { text: '', reason: 'the document is not a file ESLint can lint' };
  // Linted again on the text the agents see, so the fix's offsets are offsets into that exact text.
  const found = await lintProblems(request.workspace, [document.fsPath], signal, { textOf: (file) => (file === document.fsPath ? document.text : undefined) });
  if (found.unavailable) return { text: '', reason: found.unavailable };
  const rule = diagnostic.code === undefined ? undefined : String(diagnostic.code);
  const starts = lineStarts(document.text);
  const same = found.problems
    .filter((p) => rule === undefined || p.code === rule)
    .map((p) => ({ problem: p, distance: Math.abs(positionToOffset(document.text, p.range.start, starts) - diagnostic.start) }))
    .sort((a, b) => a.distance - b.distance)[0]?.problem;
  if (!same) return { text: '', reason: `ESLint no longer reports ${rule ?? 'this finding'} here` };
  const fix = same.data?.fix as LintFix | undefined;
  if (!fix) return { text: '', reason: `ESLint has no automatic fix for ${rule ?? 'this finding'}` };
  return {
    text: `ESLint's fix for ${rule ?? 'the finding'}: ${JSON.stringify(fix.text)}`,
    proposal: singleDocument({ uri: document.uri, version: document.version, baseText: document.text, edits: [{ start: fix.start, end: fix.end, newText: fix.text }] }),
  };
}
