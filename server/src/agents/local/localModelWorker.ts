// The worker thread that runs a local GGUF model through node-llama-cpp, one chat completion at a time, so the server's thread never waits on it.
import { parentPort, workerData } from 'node:worker_threads';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, LlamaChat, LlamaCompletion, LlamaModel } from 'node-llama-cpp';
import type { ChatMessage, ToolSpec } from '../modelClient.js';
import type { LocalModelOptions, WorkerReply, WorkerRequest } from './localModelMessages.js';

const port = parentPort;
if (!port) throw new Error('localModelWorker.js runs only as a worker thread');
const options = workerData as LocalModelOptions;

interface Loaded {
  runtime: NodeLlamaCpp.Llama;
  model: LlamaModel;
  chat: LlamaChat;
  /** Infill on the same sequence as the chat: requests run one at a time, so they never use it together. */
  completion: LlamaCompletion;
}

let loading: Promise<Loaded> | undefined;
/** Requests run one after the other on the model's single context sequence. */
let queue: Promise<void> = Promise.resolve();
const controllers = new Map<number, AbortController>();

function send(reply: WorkerReply): void {
  port!.postMessage(reply);
}

/** node-llama-cpp, or an error that says what to install: it is an optional dependency. */
async function importLlama(): Promise<typeof NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new LoadError(`the local agent needs the optional package node-llama-cpp (run \`npm install node-llama-cpp\` beside assistant-ls): ${detail}`);
  }
}

class LoadError extends Error {}

function load(): Promise<Loaded> {
  loading ??= (async () => {
    const started = performance.now();
    const llama = await importLlama();
    const runtime = await llama.getLlama({ gpu: options.gpu ? 'auto' : false, build: 'never', logLevel: llama.LlamaLogLevel.error });
    let model: LlamaModel;
    try {
      model = await runtime.loadModel({ modelPath: options.modelPath });
    } catch (error) {
      throw new LoadError(`cannot load the model ${options.modelPath}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const context = await model.createContext({ contextSize: { max: options.contextSize }, threads: options.threads, batchSize: options.batchSize });
    const chat = new llama.LlamaChat({ contextSequence: context.getSequence() });
    const completion = new llama.LlamaCompletion({ contextSequence: chat.sequence });
    const template = model.fileInfo.metadata.tokenizer?.chat_template;
    // A model whose own chat template takes tools was trained to call them; others get the text protocol.
    const functions = typeof template === 'string' && /\btools\b/.test(template);
    send({
      type: 'loaded',
      info: {
        name: String(model.fileInfo.metadata.general?.name ?? options.modelPath),
        chatWrapper: chat.chatWrapper.wrapperName,
        contextSize: context.contextSize,
        toolProtocol: functions ? 'functions' : 'text',
        infill: completion.infillSupported,
        loadMs: Math.round(performance.now() - started),
      },
    });
    return { runtime, model, chat, completion };
  })();
  return loading;
}

/** The conversation in node-llama-cpp's shape: tool results go back into the model turn that called them. */
export function chatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role === 'system') history.push({ type: 'system', text: message.content });
    else if (message.role === 'user') history.push({ type: 'user', text: message.content });
    else if (message.role === 'assistant') {
      const response: (string | ChatModelFunctionCall)[] = message.content ? [message.content] : [];
      for (const call of message.toolCalls ?? []) {
        const answer = messages.slice(i + 1).find((m) => m.role === 'tool' && m.toolCallId === call.id);
        response.push({ type: 'functionCall', name: call.name, params: parseArguments(call.arguments), result: answer?.content ?? '' });
      }
      history.push({ type: 'model', response });
    } else if (!messages.slice(0, i).some((m) => m.toolCalls?.some((call) => call.id === message.toolCallId))) {
      // A tool result without its call cannot sit in a model turn; the model still reads it.
      history.push({ type: 'user', text: message.content });
    }
  }
  history.push({ type: 'model', response: [] });
  return history;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function functionsOf(tools: readonly ToolSpec[]): ChatModelFunctions {
  const functions: Record<string, { description: string; params: unknown }> = {};
  for (const tool of tools) functions[tool.name] = { description: tool.description, params: tool.parameters };
  return functions as ChatModelFunctions;
}

async function complete(request: Extract<WorkerRequest, { type: 'complete' }>, signal: AbortSignal): Promise<void> {
  const { chat } = await load();
  if (signal.aborted) return send({ type: 'aborted', id: request.id });
  const meter = chat.sequence.tokenMeter.getState();
  const response = await chat.generateResponse(chatHistory(request.messages), {
    maxTokens: request.maxTokens,
    temperature: request.temperature,
    signal,
    stopOnAbortSignal: true,
    onTextChunk: (text) => send({ type: 'chunk', id: request.id, text }),
    ...(request.tools?.length ? { functions: functionsOf(request.tools), documentFunctionParams: true } : {}),
  });
  if (signal.aborted) return send({ type: 'aborted', id: request.id });
  const used = chat.sequence.tokenMeter.diff(meter);
  const toolCalls = (response.functionCalls ?? []).map((call, i) => ({ id: `call_${request.id}_${i}`, name: call.functionName, arguments: JSON.stringify(call.params ?? {}) }));
  const stop = response.metadata.stopReason;
  send({
    type: 'done',
    id: request.id,
    completion: {
      text: response.response,
      finishReason: stop === 'maxTokens' ? 'length' : toolCalls.length > 0 || stop === 'functionCalls' ? 'tool_calls' : 'stop',
      // The prompt's size, as endpoints report it, whether or not its start was still evaluated from an earlier call.
      usage: { promptTokens: Math.max(used.usedInputTokens, chat.sequence.contextTokens.length - used.usedOutputTokens), completionTokens: used.usedOutputTokens },
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
  });
}

async function infill(request: Extract<WorkerRequest, { type: 'infill' }>, signal: AbortSignal): Promise<void> {
  const { completion, chat } = await load();
  if (signal.aborted) return send({ type: 'aborted', id: request.id });
  if (!completion.infillSupported) return send({ type: 'error', id: request.id, message: 'the model has no fill-in-the-middle tokens' });
  const meter = chat.sequence.tokenMeter.getState();
  const response = await completion.generateInfillCompletionWithMeta(request.prefix, request.suffix, {
    maxTokens: request.maxTokens,
    temperature: request.temperature,
    signal,
    stopOnAbortSignal: true,
    ...(request.stop.length > 0 ? { customStopTriggers: [...request.stop] } : {}),
    onTextChunk: (text) => send({ type: 'chunk', id: request.id, text }),
  });
  if (signal.aborted) return send({ type: 'aborted', id: request.id });
  const used = chat.sequence.tokenMeter.diff(meter);
  const stop = response.metadata.stopReason;
  send({ type: 'done', id: request.id, completion: { text: response.response, finishReason: stop === 'maxTokens' ? 'length' : 'stop', usage: { promptTokens: used.usedInputTokens, completionTokens: used.usedOutputTokens } } });
}

/** Stops every request, waits for the one running to stop, frees the model and the runtime, and ends the thread. */
async function dispose(): Promise<void> {
  for (const controller of controllers.values()) controller.abort();
  await queue;
  const loaded = await loading?.catch(() => undefined);
  await loaded?.chat.sequence.context.dispose();
  await loaded?.model.dispose();
  await loaded?.runtime.dispose();
  port!.close();
  process.exit(0);
}

port.on('message', (request: WorkerRequest) => {
  if (request.type === 'dispose') {
    void dispose();
    return;
  }
  if (request.type === 'abort') {
    controllers.get(request.id)?.abort();
    return;
  }
  if (request.type === 'load') {
    load().catch((error: unknown) => send({ type: 'failed', message: error instanceof Error ? error.message : String(error) }));
    return;
  }
  const controller = new AbortController();
  controllers.set(request.id, controller);
  queue = queue.then(async () => {
    try {
      await (request.type === 'infill' ? infill(request, controller.signal) : complete(request, controller.signal));
    } catch (error) {
      if (controller.signal.aborted) send({ type: 'aborted', id: request.id });
      else if (error instanceof LoadError) send({ type: 'failed', message: error.message, id: request.id });
      else send({ type: 'error', id: request.id, message: error instanceof Error ? error.message : String(error) });
    } finally {
      controllers.delete(request.id);
    }
  });
});
