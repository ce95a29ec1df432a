// How a model agent serves one task: the prompt it builds, or a whole strategy of calls, with earlier rejections as feedback.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { AgentAnswer, AgentRequest } from './agent.js';
import type { ChatMessage, Completion, ToolSpec } from './modelClient.js';
import type { Embedder } from '../repo/embeddingIndex.js';
import { withoutAnnotationLines } from '../edits/annotation.js';
import { withSyntaxTree } from '../repo/declarations.js';
import { isSupportedLanguage, syntaxFileName } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';

/** A prompt as chat messages. */
export interface Prompt {
  system: string;
  user: string;
  /** False for a prompt that must not carry the workspace context (e.g. one that hides the name being replaced). */
  withContext?: boolean;
}

/** Asks the agent's model one prompt (the run's rejected answers and their feedback are added as a conversation). */
export type AskModel = (prompt: Prompt, signal: AbortSignal) => Promise<Completion>;

/** What a multi-call strategy can do beyond `ask`: whole conversations, with tools. */
export interface ModelSession {
  /** One exchange of the given messages (tools offered when given), redacted and counted in the agent's usage. */
  chat(messages: ChatMessage[], signal: AbortSignal, tools?: readonly ToolSpec[]): Promise<Completion>;
  /** How this agent's endpoint takes tool calls. */
  toolProtocol: 'functions' | 'text';
  /** The model's name, for messages. */
  model: string;
  /** Embeddings from the same endpoint, when the agent has an embedding model. */
  embedder?: Embedder;
}

export interface ModelTaskStrategy {
  /** The prompt for a request; `override` is the user's template for the user message, if any. */
  buildPrompt(request: AgentRequest, override: string | undefined): Prompt | undefined;
  /**
   * The spans of the document, besides the target, that the prompt carries: the request's context leaves them out,
   * so no span is sent twice.
   */
  shows?(document: DocumentSnapshot, target: { start: number; end: number }): { start: number; end: number }[];
  /** A strategy of several calls (e.g. two prompts for rename); without it, one call with `buildPrompt`. */
  run?(request: AgentRequest, ask: AskModel, override: string | undefined, signal: AbortSignal, session?: ModelSession): Promise<AgentAnswer>;
}

/** Fills `{{name}}` placeholders; unknown placeholders are left as they are. */
export function fillTemplate(template: string, values: Record<string, string | undefined>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** Longest piece of code sent for one target; longer code is cut in the middle. */
const MAX_CODE_CHARS = 24_000;

/** Code without the `// @assistant …` lines the server writes above what it inserted (see `withoutAnnotationLines`). */
export const withoutAnnotations = withoutAnnotationLines;

/**
 * Where the file's leading imports end (the comments above them included), by syntax: what a fix adds an import
 * to, and where the names the code uses come from. Zero when the file opens with something else.
 */
export function importsEnd(document: DocumentSnapshot): number {
  if (!isSupportedLanguage(document.languageId)) return 0;
  return withSyntaxTree(syntaxFileName(document), document.text, (source) => {
    let end = 0;
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isImportEqualsDeclaration(statement)) break;
      end = statement.end;
    }
    return end;
  });
}

export function clip(code: string, max = MAX_CODE_CHARS): string {
  if (code.length <= max) return code;
  const half = Math.floor(max / 2);
  return `${code.slice(0, half)}\n/* … ${code.length - max} characters left out … */\n${code.slice(-half)}`;
}

/** The placeholders every prompt can use: the target's code, language, name, kind, the request and the file. */
export function standardValues(request: AgentRequest): Record<string, string> {
  const fileName = request.document.fsPath ? path.relative(request.project.root, request.document.fsPath) : request.document.uri;
  return {
    code: clip(withoutAnnotations(request.document.text.slice(request.target.start, request.target.end))),
    language: request.document.languageId.startsWith('javascript') ? 'javascript' : 'typescript',
    symbol: request.target.name,
    kind: request.target.declaration?.kind.replace('-', ' ') ?? 'code',
    request: request.text,
    fileName,
  };
}
