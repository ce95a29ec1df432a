// Inline completion requests over time: a newer request for a document supersedes the older (aborting its model call), a short debounce spares the model the keystrokes in between, and the cache serves typing through a suggestion.
import type { InlineCompletionItem, InlineCompletionList, Position } from 'vscode-languageserver-protocol';
import { Commands } from '../protocol.js';
import type { AcceptCompletionArgs, AssistantSettings } from '../protocol.js';
import type { AgentRegistry } from '../agents/registry.js';
import type { Exchange } from '../agents/modelClient.js';
import { LocalModelClient } from '../agents/local/localModelClient.js';
import type { RecentPositions } from '../context/recentPositions.js';
import { positionToOffset } from '../edits/textEdits.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import type { Workspace } from '../workspace/workspace.js';
import { CompletionCache } from './completionCache.js';
import { documentExclusion, gatherCompletionContext } from './completionContext.js';
import { askForCompletion, completionServer } from './completionProviders.js';
import type { CompletionMode } from './completionProviders.js';
import { shapeAt } from './completionText.js';

/** What a completion request needs of the server's state. */
export interface CompletionEnvironment {
  workspace: Workspace;
  registry: AgentRegistry;
  settings: AssistantSettings['completion'];
  recent?: RecentPositions;
  log: (message: string) => void;
  /**
   * Says to the user why there is no suggestion, for a request the user made (a key, not typing): no model agent,
   * completion off, an excluded document, a failed model call. Unset for requests made while typing.
   */
  explain?: (message: string) => void;
}

/** Where a request's time went: the exchange with the model that answered it, when one did. */
export interface CompletionTiming {
  exchange?: Exchange;
}

/** Who wrote a completion, carried by its cached rest as by its item. */
interface Origin {
  agent: string;
  model: string;
  mode: CompletionMode;
}

const EMPTY: InlineCompletionList = { items: [] };

/** The reason a superseded request's work is aborted with: it is answered with an empty list, not an error. */
class Superseded extends Error {
  constructor() {
    super('a newer completion request for the document replaced this one');
    this.name = 'AbortError';
  }
}

export class InlineCompletions {
  /** The request in flight per document: the only one whose model call may still run. */
  private readonly running = new Map<string, AbortController>();
  private readonly cache = new CompletionCache<Origin>();
  /** Problems already logged, so a bad setting is said once, not per keystroke. */
  private readonly told = new Set<string>();
  /** Whether the client asked for a completion in this session (it shows them, whether or not it said so). */
  asked = false;
  /** A local model failed to load when warmed: opening documents does not try again (a request still may). */
  private coldAfterFailure = false;

  /**
   * The completions at a position: none at once without a model agent (or with completion off), the rest of a
   * suggestion being typed through from the cache, else the model's after the debounce. Rejects with `signal`'s
   * reason when the client cancels; a request superseded by a newer one for the same document gets an empty list.
   * `timing` is told of the model's exchange, for the server's own time around it.
   */
  async complete(env: CompletionEnvironment, document: DocumentSnapshot, position: Position, signal: AbortSignal, timing?: CompletionTiming): Promise<InlineCompletionList> {
    this.asked = true;
    const server = completionServer(env.registry, env.settings);
    if (!server) {
      env.explain?.(env.settings.enabled ? 'No suggestion: no model agent is configured (assistant.agents or completion.agent).' : 'No suggestion: inline completion is off (assistant.completion.enabled).');
      return EMPTY;
    }
    if ('problem' in server) {
      this.tell(env, server.problem);
      env.explain?.(`No suggestion: ${server.problem}.`);
      return EMPTY;
    }
    const own = new AbortController();
    this.running.get(document.uri)?.abort(new Superseded());
    this.running.set(document.uri, own);
    const onAbort = (): void => own.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) own.abort(signal.reason);
    try {
      const offset = positionToOffset(document.text, position);
      const prefix = document.text.slice(0, offset);
      const suffix = document.text.slice(offset);
      env.recent?.record(document.uri, { start: position, end: position }, document.version);
      const cached = this.cache.lookup(document.uri, prefix, suffix);
      if (cached) return { items: [item(document, position, cached.text, cached.meta)] };
      const excluded = documentExclusion(env.workspace, document);
      if (excluded) {
        env.explain?.(`No suggestion: ${excluded}.`);
        return EMPTY;
      }
      if (env.settings.debounceMs > 0) await pause(env.settings.debounceMs, own.signal);
      own.signal.throwIfAborted();
      const context = gatherCompletionContext({ workspace: env.workspace, document, offset, budgetTokens: env.settings.contextTokens, recent: env.recent?.list() ?? [] });
      const shape = shapeAt(context.prefix, context.suffix);
      const answer = await askForCompletion(server, context, shape, { ...(env.settings.model !== undefined ? { model: env.settings.model } : {}), mode: env.settings.mode, maxTokens: env.settings.maxTokens, stop: env.settings.stop }, own.signal);
      if (timing && answer.exchange) timing.exchange = answer.exchange;
      own.signal.throwIfAborted();
      if (answer.text.trim() === '') return EMPTY;
      const origin: Origin = { agent: server.agent, model: answer.model, mode: answer.mode };
      this.cache.add(document.uri, { prefix, suffix, text: answer.text, meta: origin });
      return { items: [item(document, position, answer.text, origin)] };
    } catch (error) {
      signal.throwIfAborted();
      if (own.signal.reason instanceof Superseded) return EMPTY;
      // A model that fails shows no ghost text; the log says why, once per kind of failure in a row.
      const message = `inline completion by ${server.agent}: ${error instanceof Error ? error.message : String(error)}`;
      this.tell(env, message);
      env.explain?.(`No suggestion: ${message}.`);
      return EMPTY;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (this.running.get(document.uri) === own) this.running.delete(document.uri);
      // Whatever the request left running (a stream read to its end, a timer) is released with it.
      if (!own.signal.aborted) own.abort(new Superseded());
    }
  }

  /**
   * A document opened with a local model serving completions: the model is loaded now, while the user reads, so the
   * first suggestion does not wait the seconds a load takes. A load that failed is not tried again until new settings.
   */
  warm(env: CompletionEnvironment): void {
    const server = completionServer(env.registry, env.settings);
    if (!server || 'problem' in server || !(server.client instanceof LocalModelClient) || server.client.started || this.coldAfterFailure) return;
    const started = Date.now();
    server.client.info().then(
      () => env.log(`inline completion by ${server.agent}: the model is loaded (${Date.now() - started} ms)`),
      (error: unknown) => {
        this.coldAfterFailure = true;
        this.tell(env, `inline completion by ${server.agent}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** Requests whose model call may still be running, for tests and the bench (0 once every request answered). */
  get inFlight(): number {
    return this.running.size;
  }

  /** A document closed: its cached suggestions go. */
  forget(uri: string): void {
    this.running.get(uri)?.abort(new Superseded());
    this.cache.forget(uri);
  }

  /** New settings (another agent or model): suggestions made under the old ones go. */
  reset(): void {
    this.cache.clear();
    this.told.clear();
    this.coldAfterFailure = false;
  }

  private tell(env: CompletionEnvironment, message: string): void {
    if (this.told.has(message)) return;
    this.told.add(message);
    env.log(message);
  }
}

/** An item with the command that records it in the trace once accepted. */
function item(document: DocumentSnapshot, position: Position, text: string, origin: Origin): InlineCompletionItem {
  const range = { start: position, end: position };
  const args: AcceptCompletionArgs = { textDocument: { uri: document.uri, version: document.version }, range, insertText: text, agent: origin.agent, model: origin.model, mode: origin.mode };
  return { insertText: text, range, command: { title: 'Accept completion', command: Commands.acceptCompletion, arguments: [args] } };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
