// How a completion is asked of a model: fill-in-the-middle on an endpoint's `/completions`, a local model's infill, or a chat model told to write only the missing code.
import type { AssistantSettings } from '../protocol.js';
import type { AgentRegistry } from '../agents/registry.js';
import { ModelAgent } from '../agents/modelAgent.js';
import { LocalModelClient } from '../agents/local/localModelClient.js';
import { ModelError } from '../agents/modelClient.js';
import type { ChatClient, Exchange } from '../agents/modelClient.js';
import { snippetHeader } from './completionContext.js';
import type { CompletionContext } from './completionContext.js';
import { insertionFromChat, insertionFromFill, stopsFor } from './completionText.js';
import type { CompletionShape } from './completionText.js';

/** How the model was asked: `fim` (an endpoint's `/completions` with `suffix`), `infill` (a local model's FIM tokens), `chat`. */
export type CompletionMode = 'fim' | 'infill' | 'chat';

export interface CompletionSettings {
  model?: string;
  mode: AssistantSettings['completion']['mode'];
  maxTokens: number;
  stop: readonly string[];
}

/** The agent that serves completions, with what its answers are recorded as. */
export interface CompletionServer {
  agent: string;
  model: string;
  client: ChatClient;
  local: boolean;
}

/** The agent completions use: the one the settings name, else the first model agent; undefined with none (or off). */
export function completionServer(registry: AgentRegistry, settings: AssistantSettings['completion']): CompletionServer | { problem: string } | undefined {
  if (!settings.enabled) return undefined;
  const named = settings.agent !== undefined ? registry.byName(settings.agent) : registry.classifier();
  if (settings.agent !== undefined && !named) return { problem: `assistant.completion.agent: no agent named "${settings.agent}"` };
  if (!named) return undefined;
  if (!(named instanceof ModelAgent)) return { problem: `assistant.completion.agent: "${settings.agent}" has no model` };
  const client = named.modelClient;
  return { agent: named.descriptor.name, model: settings.model ?? named.descriptor.model ?? '', client, local: client instanceof LocalModelClient };
}

/** What a model answered for a completion, cut to the insertion. */
export interface ModelCompletion {
  text: string;
  mode: CompletionMode;
  model: string;
  /** The exchange with the endpoint that answered (absent for a local model). */
  exchange?: Exchange;
}

/** The marker the chat prompt puts at the cursor. */
const CURSOR = '<CURSOR>';

/**
 * Endpoints found not to serve `/completions` (a 404, or a 400 naming `suffix`), by agent and model: in `auto` mode
 * they are asked through chat from then on, without a failed request per keystroke.
 */
const withoutFim = new Set<string>();

/** Asks the model for the completion of `context` and cuts its answer to the insertion; '' when it has none. */
export async function askForCompletion(server: CompletionServer, context: CompletionContext, shape: CompletionShape, settings: CompletionSettings, signal: AbortSignal): Promise<ModelCompletion> {
  const model = server.local ? server.model : (settings.model ?? server.model);
  const key = `${server.agent}\u0000${model}`;
  const fim = settings.mode !== 'chat' && !(settings.mode === 'auto' && withoutFim.has(key)) && (await canFill(server, settings, signal));
  if (fim && server.client.fill) {
    try {
      const prompt = `${snippetHeader(context.snippets)}${context.prefix}`;
      const answer = await server.client.fill({ prompt, suffix: context.suffix, ...(server.local ? {} : { model }), maxTokens: settings.maxTokens, stop: stopsFor(shape, settings.stop) }, signal, { knownSecrets: context.knownSecrets });
      return { text: insertionFromFill(answer.text, context.prefix, context.suffix, shape), mode: server.local ? 'infill' : 'fim', model, ...(answer.exchange ? { exchange: answer.exchange } : {}) };
    } catch (error) {
      signal.throwIfAborted();
      if (settings.mode !== 'auto' || !(error instanceof ModelError) || !noFimEndpoint(error)) throw error;
      withoutFim.add(key);
    }
  }
  if (settings.mode === 'fim') throw new ModelError('bad-request', `${server.agent} cannot fill in the middle: the model has no FIM tokens`);
  // A local model's answer is read as it ended, cut off at the token budget or not: a completion may stop anywhere.
  const messages = chatPrompt(context, shape);
  const answer = server.local ? await (server.client as LocalModelClient).generate(messages, signal, { maxTokens: settings.maxTokens }) : await server.client.complete(messages, signal, { knownSecrets: context.knownSecrets });
  return { text: insertionFromChat(answer.text, context.prefix, context.suffix, shape, CURSOR), mode: 'chat', model, ...(answer.exchange ? { exchange: answer.exchange } : {}) };
}

async function canFill(server: CompletionServer, settings: CompletionSettings, signal: AbortSignal): Promise<boolean> {
  if (!server.client.fill) return false;
  if (!server.local) return true;
  const info = await (server.client as LocalModelClient).info();
  signal.throwIfAborted();
  if (!info.infill && settings.mode === 'fim') throw new ModelError('local', `${server.agent} cannot fill in the middle: the model has no FIM tokens`);
  return info.infill;
}

/** A failure that says the endpoint has no `/completions` or no `suffix`, rather than a passing fault. */
function noFimEndpoint(error: ModelError): boolean {
  return error.kind === 'bad-request' && (error.facts.status === 404 || error.facts.status === 405 || /suffix|completions|not supported|unsupported/i.test(error.message));
}

function chatPrompt(context: CompletionContext, shape: CompletionShape): { role: 'system' | 'user'; content: string }[] {
  const others = context.snippets.length > 0 ? `Other files, for reference:\n${context.snippets.map((s) => `--- ${s.file}\n${s.text}`).join('\n')}\n\n` : '';
  const what = shape === 'line' ? 'the rest of the line at the cursor' : 'the code that goes at the cursor (a few lines at most)';
  return [
    {
      role: 'system',
      content: `You are a code completion engine. Reply with only ${what}, exactly as it is to be inserted at ${CURSOR}: no explanation, no Markdown fences, nothing that is already before or after the cursor.`,
    },
    { role: 'user', content: `${others}File ${context.fileName}:\n${context.prefix}${CURSOR}${context.suffix}` },
  ];
}
