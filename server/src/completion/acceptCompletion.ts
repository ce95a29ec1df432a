// An accepted inline completion, recorded in the trace as a `complete` interaction whose insertion leads from the code back to it.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AcceptCompletionArgs, AcceptCompletionResult, AgentDescriptor, Interaction, TraceResponse } from '../protocol.js';
import { AssistantError } from '../assistantError.js';
import { isRange } from '../edits/textEdits.js';
import type { AgentRegistry } from '../agents/registry.js';
import type { TraceStore } from '../trace/traceStore.js';
import type { DocumentSource } from '../workspace/documentSnapshot.js';
import { uriToPath } from '../workspace/documentSnapshot.js';

export interface AcceptEnvironment {
  root: string;
  registry: AgentRegistry;
  trace: TraceStore;
  documents: DocumentSource;
  sessionId: string;
  user: string;
  role: Interaction['role'];
}

/** The text the user took: all of `insertText`, or the start of it the client names. */
function acceptedOf(args: AcceptCompletionArgs): string {
  if (args.acceptedText !== undefined) {
    if (typeof args.acceptedText !== 'string' || !args.insertText.startsWith(args.acceptedText)) throw new AssistantError('invalid-params', 'assistant.acceptCompletion: "acceptedText" must be the start of "insertText".');
    return args.acceptedText;
  }
  if (args.acceptedLength !== undefined) {
    if (!Number.isInteger(args.acceptedLength) || args.acceptedLength < 0 || args.acceptedLength > args.insertText.length) throw new AssistantError('invalid-params', `assistant.acceptCompletion: "acceptedLength" must be a whole number from 0 to ${args.insertText.length}.`);
    return args.insertText.slice(0, args.acceptedLength);
  }
  return args.insertText;
}

/**
 * Records an accepted completion: the interaction (task `complete`), its one response (used, with where the text was
 * inserted, so code → interaction finds it and the trace follows it as the document changes) and what was offered.
 */
export async function acceptCompletion(env: AcceptEnvironment, args: AcceptCompletionArgs): Promise<AcceptCompletionResult> {
  if (typeof args?.textDocument?.uri !== 'string' || !isRange(args.range) || typeof args.insertText !== 'string' || typeof args.agent !== 'string') {
    throw new AssistantError('invalid-params', 'assistant.acceptCompletion needs the completion item\'s arguments: { textDocument, range, insertText, agent }.');
  }
  const accepted = acceptedOf(args);
  const partial = accepted.length < args.insertText.length;
  const lines = accepted.split('\n');
  const start = args.range.start;
  const end = lines.length === 1 ? { line: start.line, character: start.character + accepted.length } : { line: start.line + lines.length - 1, character: (lines[lines.length - 1] as string).length };
  const range = { start, end };
  const now = new Date().toISOString();
  const document = env.documents.get(args.textDocument.uri);
  const fullPath = uriToPath(args.textDocument.uri) ?? args.textDocument.uri;
  const version = typeof args.textDocument.version === 'number' ? args.textDocument.version : undefined;
  const agent: AgentDescriptor = env.registry.byName(args.agent)?.descriptor ?? { name: args.agent, technology: 'llm', isLLM: true, ...(args.model ? { model: args.model } : {}) };
  const response: TraceResponse = {
    id: randomUUID(),
    agent: args.model ? { ...agent, model: args.model } : agent,
    status: 'ok',
    text: accepted,
    used: accepted.length > 0,
    outcome: 'applied',
    ...(accepted.length > 0 ? { insertedAt: [{ uri: args.textDocument.uri, range, text: accepted, replaced: '', at: now, ...(document?.version != null ? { version: document.version } : {}) }] } : {}),
    startedAt: now,
    durationMs: 0,
  };
  const interaction: Interaction = {
    id: randomUUID(),
    sessionId: env.sessionId,
    timestamp: now,
    role: env.role,
    user: env.user,
    source: 'command',
    text: partial ? 'Accepted part of an inline completion' : 'Accepted an inline completion',
    task: 'complete',
    completion: { offered: args.insertText, partial, ...(typeof args.mode === 'string' ? { mode: args.mode } : {}) },
    context: {
      resource: {
        uri: args.textDocument.uri,
        fileName: path.basename(fullPath),
        fullPath,
        relativePath: path.isAbsolute(fullPath) ? path.relative(env.root, fullPath).split(path.sep).join('/') : fullPath,
        project: path.basename(env.root),
      },
      ...(version !== undefined ? { version } : {}),
      fragment: { range, text: accepted },
    },
    responses: [response],
  };
  await env.trace.add(interaction);
  return { interactionId: interaction.id, partial, text: accepted };
}
