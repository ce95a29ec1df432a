// A model exploring the repository with the repository tools, through function calling or the `CALL` text protocol, until it answers.
import type { PipelineToolCall } from '../protocol.js';
import { firstObject, writtenCalls } from '../agents/lenientJson.js';
import type { ChatMessage, Completion, ToolCall } from '../agents/modelClient.js';
import type { ModelSession } from '../agents/modelTask.js';
import { TOOL_DEFINITIONS, toolsPrompt } from '../repo/repositoryTools.js';
import type { RepositoryTools } from '../repo/repositoryTools.js';

/** Most calls run from one answer; further ones are answered with a refusal so the model learns the limit. */
export const MAX_CALLS_PER_ROUND = 5;

export interface ExplorationOptions {
  /** Rounds of tool calls before the model must answer. */
  rounds: number;
  /** Most calls run per round. */
  callsPerRound?: number;
  /** Offer only these tools (by name); all of them by default. */
  only?: readonly string[];
}

export interface Exploration {
  /** The model's final answer. */
  text: string;
  /** Every tool call made, with its (full) result. */
  calls: PipelineToolCall[];
  /** The conversation, final answer included, for a follow-up question in the same context. */
  messages: ChatMessage[];
  /** One entry per model answer, for the step's recorded responses. */
  turns: { text: string; toolCalls: PipelineToolCall[]; usage?: Completion['usage'] }[];
}

/** A `CALL` line as the model wrote it: the tool's name and the raw JSON after it. */
const CALL_LINE = /^[ \t]*CALL\s+([A-Za-z_][\w-]*)\s*(.*)$/gm;

/** The `CALL` lines of a plain answer, as tool calls. */
export function textCalls(text: string): ToolCall[] {
  return [...text.matchAll(CALL_LINE)].map((match, i) => ({ id: `text_${i}`, name: match[1] as string, arguments: (match[2] ?? '').trim() || '{}' }));
}

/**
 * Runs one call the way a model wrote it; a malformed call (arguments that are not a JSON object, an unknown tool)
 * gets an answer saying what is wrong, so the model can correct it, and never stops the exploration.
 */
export async function runCall(tools: RepositoryTools, call: ToolCall, allowed: ReadonlySet<string>, signal: AbortSignal): Promise<string> {
  if (!allowed.has(call.name)) return `Error: there is no tool "${call.name}" here; the tools are ${[...allowed].join(', ')}.`;
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    return `Error: the arguments of ${call.name} are not valid JSON (${JSON.stringify(call.arguments.slice(0, 120))}); send them again as one JSON object.`;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return `Error: the arguments of ${call.name} must be a JSON object.`;
  return tools.call(call.name, args, signal);
}

/**
 * Lets the model call tools for at most `rounds` rounds, then asks for the answer without tools. With function
 * calling, results go back as tool messages; with the text protocol, as one user message listing each call's result.
 */
export async function explore(session: ModelSession, tools: RepositoryTools, start: ChatMessage[], options: ExplorationOptions, signal: AbortSignal): Promise<Exploration> {
  const definitions = TOOL_DEFINITIONS.filter((tool) => !options.only || options.only.includes(tool.name));
  const allowed = new Set(definitions.map((tool) => tool.name));
  const perRound = options.callsPerRound ?? MAX_CALLS_PER_ROUND;
  const functions = session.toolProtocol === 'functions';
  const messages: ChatMessage[] = start.map((m) => ({ ...m }));
  if (!functions && options.rounds > 0) {
    const system = messages.find((m) => m.role === 'system');
    const protocol = `${toolsPrompt().replace(/^- (\w+) .*$/gm, (line, name: string) => (allowed.has(name) ? line : ''))}\nWhen you know enough, answer without any CALL line.`;
    if (system) system.content = `${system.content}\n\n${protocol}`;
    else messages.unshift({ role: 'system', content: protocol });
  }
  const calls: PipelineToolCall[] = [];
  const turns: Exploration['turns'] = [];
  for (let round = 0; ; round++) {
    const mayCall = round < options.rounds;
    if (!mayCall && round > 0) messages.push({ role: 'user', content: 'No more tool calls: answer now with what you have found.' });
    const completion = await session.chat(messages, signal, functions && mayCall ? definitions : undefined);
    const requested = !mayCall ? [] : functions ? (completion.toolCalls?.length ? completion.toolCalls : writtenCalls(completion.text, allowed)) : textCalls(completion.text);
    if (requested.length === 0 || !mayCall) {
      messages.push({ role: 'assistant', content: completion.text });
      turns.push({ text: completion.text, toolCalls: [], ...(completion.usage ? { usage: completion.usage } : {}) });
      return { text: completion.text, calls, messages, turns };
    }
    const results: PipelineToolCall[] = [];
    for (const [i, call] of requested.entries()) {
      signal.throwIfAborted();
      const result = i < perRound ? await runCall(tools, call, allowed, signal) : `Not run: at most ${perRound} tool calls are run per answer.`;
      results.push({ name: call.name, arguments: call.arguments, result });
    }
    calls.push(...results);
    turns.push({ text: completion.text, toolCalls: results, ...(completion.usage ? { usage: completion.usage } : {}) });
    if (functions) {
      messages.push({ role: 'assistant', content: completion.text, toolCalls: requested });
      requested.forEach((call, i) => messages.push({ role: 'tool', toolCallId: call.id, content: results[i]?.result ?? '' }));
    } else {
      messages.push({ role: 'assistant', content: completion.text });
      messages.push({ role: 'user', content: results.map((r) => `Result of CALL ${r.name} ${r.arguments}:\n${r.result}`).join('\n\n') });
    }
  }
}

/**
 * The first JSON object in a model's answer for which `wanted` holds (the first at all without it), read leniently:
 * fenced or bare, amid prose, JavaScript-style, or cut off (see `lenientJson.ts`). Undefined when there is none.
 */
export function jsonIn(text: string, wanted?: (value: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  return firstObject(text, wanted);
}
