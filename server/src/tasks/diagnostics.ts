// Converts LSP diagnostics (plain data from the client) into offsets on the text they were reported on.
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { isRange, lineStarts, offsetsToRange, positionToOffset } from '../edits/textEdits.js';
import type { DiagnosticInfo } from './task.js';

export function diagnosticFromLsp(text: string, diagnostic: Diagnostic, starts = lineStarts(text)): DiagnosticInfo {
  const start = positionToOffset(text, diagnostic.range.start, starts);
  const end = positionToOffset(text, diagnostic.range.end, starts);
  return {
    start,
    end: Math.max(start, end),
    message: String(diagnostic.message ?? ''),
    ...(diagnostic.code !== undefined ? { code: diagnostic.code } : {}),
    ...(diagnostic.source !== undefined ? { source: diagnostic.source } : {}),
    ...(diagnostic.severity !== undefined ? { severity: diagnostic.severity } : {}),
    ...listenerOf(diagnostic.data),
    original: diagnostic,
  };
}

/** What the server's listeners put in the diagnostics they publish, when the client hands one back. */
function listenerOf(data: unknown): Pick<DiagnosticInfo, 'listener' | 'detail'> {
  if (typeof data !== 'object' || data === null) return {};
  const { listener, issue } = data as { listener?: unknown; issue?: unknown };
  return typeof listener === 'string' ? { listener, ...(typeof issue === 'string' ? { detail: issue } : {}) } : {};
}

/** The well-formed diagnostics of a code-action context; malformed ones are ignored rather than trusted. */
export function diagnosticsFromLsp(text: string, diagnostics: unknown): DiagnosticInfo[] {
  if (!Array.isArray(diagnostics)) return [];
  const starts = lineStarts(text);
  return diagnostics.filter((d): d is Diagnostic => typeof d === 'object' && d !== null && isRange((d as Diagnostic).range) && typeof (d as Diagnostic).message === 'string').map((d) => diagnosticFromLsp(text, d, starts));
}

/**
 * A diagnostic as the client will hand it back in a command's arguments: the one it sent, else (the server's own
 * type-check, a listener's problem) one made from its offsets on `text`, with the listener's data.
 */
export function diagnosticToLsp(text: string, diagnostic: DiagnosticInfo): Diagnostic {
  if (diagnostic.original) return diagnostic.original as Diagnostic;
  return {
    range: offsetsToRange(text, diagnostic.start, diagnostic.end),
    message: diagnostic.message,
    ...(diagnostic.code !== undefined ? { code: diagnostic.code } : {}),
    ...(diagnostic.source !== undefined ? { source: diagnostic.source } : {}),
    ...(diagnostic.severity === 1 || diagnostic.severity === 2 || diagnostic.severity === 3 || diagnostic.severity === 4 ? { severity: diagnostic.severity } : {}),
    ...(diagnostic.listener ? { data: { listener: diagnostic.listener, ...(diagnostic.detail ? { issue: diagnostic.detail } : {}) } } : {}),
  };
}
