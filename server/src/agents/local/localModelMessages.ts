// The messages between the server's thread and the local model's worker thread, declared once for both sides.
import type { ChatMessage, Completion, ToolSpec } from '../modelClient.js';

/** How the worker loads and runs the model (the agent's settings, filled with their defaults). */
export interface LocalModelOptions {
  modelPath: string;
  contextSize: number;
  threads: number;
  /** Tokens evaluated at once: smaller batches let an abort land sooner while a long prompt is read. */
  batchSize: number;
  gpu: boolean;
}

/** What the worker tells once the model is loaded. */
export interface LocalModelInfo {
  /** The GGUF's own `general.name`. */
  name: string;
  /** node-llama-cpp's chat wrapper for the model's template (e.g. `Qwen`, `Jinja`). */
  chatWrapper: string;
  contextSize: number;
  /** `functions` when the model's chat template takes tools, else `text`. */
  toolProtocol: 'functions' | 'text';
  /** Whether the model has fill-in-the-middle tokens, so inline completion can use its infill. */
  infill: boolean;
  loadMs: number;
}

export type WorkerRequest =
  | { type: 'load' }
  | { type: 'complete'; id: number; messages: ChatMessage[]; tools?: readonly ToolSpec[]; maxTokens: number; temperature: number }
  /** Fill-in-the-middle with the model's FIM tokens, for inline completion; the answer ends at a stop sequence. */
  | { type: 'infill'; id: number; prefix: string; suffix: string; maxTokens: number; temperature: number; stop: readonly string[] }
  | { type: 'abort'; id: number }
  /** Stop what runs, free the model and end the thread: ending it mid-call would take the process down with it. */
  | { type: 'dispose' };

export type WorkerReply =
  | { type: 'loaded'; info: LocalModelInfo }
  /** The model cannot be used at all (node-llama-cpp missing, the file unreadable); `id` names the request it failed. */
  | { type: 'failed'; message: string; id?: number }
  | { type: 'chunk'; id: number; text: string }
  | { type: 'done'; id: number; completion: Omit<Completion, 'redacted'> }
  | { type: 'error'; id: number; message: string }
  /** The request stopped generating after an abort. */
  | { type: 'aborted'; id: number };
