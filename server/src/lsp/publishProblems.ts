// Publishes the listeners' problems as `textDocument/publishDiagnostics`, each carrying what "fix with assistant" needs.
import type { Diagnostic } from 'vscode-languageserver/node';
import type { ListenedProblem } from '../listeners/listeners.js';
import type { ServerContext } from './serverContext.js';

export function problemToDiagnostic(problem: ListenedProblem): Diagnostic {
  return {
    range: problem.range,
    message: problem.message,
    severity: problem.severity,
    source: problem.source,
    ...(problem.code !== undefined ? { code: problem.code } : {}),
    ...(problem.related?.length ? { relatedInformation: problem.related.map((r) => ({ location: { uri: r.location.uri, range: r.location.range }, message: r.message })) } : {}),
    // Handed back in code-action contexts: the listener that found it and the failure as an issue text.
    data: { listener: problem.listener, issue: problem.issue },
  };
}

/** The publisher the core calls whenever a document's problems change; best effort, like progress. */
export function problemPublisher(ctx: ServerContext): (uri: string, problems: readonly ListenedProblem[]) => void {
  return (uri, problems) => void ctx.connection.sendDiagnostics({ uri, diagnostics: problems.map(problemToDiagnostic) }).catch(() => undefined);
}
