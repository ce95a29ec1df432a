// A model agent that runs a local GGUF model in the server's process (on a worker thread) through node-llama-cpp.
import os from 'node:os';
import path from 'node:path';
import type { ModelAgentSettings, TaskId } from '../../protocol.js';
import { ModelAgent } from '../modelAgent.js';
import { LocalModelClient } from './localModelClient.js';
import type { LocalModelSettings } from './localModelClient.js';

export interface LocalAgentConfig {
  name: string;
  modelPath: string;
  contextSize?: number;
  threads?: number;
  temperature?: number;
  maxTokens?: number;
  unloadAfterMs?: number;
  tasks?: TaskId[];
  prompts?: ModelAgentSettings['prompts'];
  toolProtocol?: ModelAgentSettings['toolProtocol'];
}

/** The settings of a local model with their defaults: a small context and half the cores, so the editor stays responsive. */
export function localModelSettings(config: Omit<LocalAgentConfig, 'name'>): LocalModelSettings {
  return {
    modelPath: config.modelPath,
    contextSize: config.contextSize ?? 8192,
    threads: config.threads ?? Math.max(1, Math.floor(os.availableParallelism() / 2)),
    batchSize: 128,
    gpu: false,
    maxTokens: config.maxTokens ?? 1024,
    temperature: config.temperature ?? 0,
    idleUnloadMs: config.unloadAfterMs ?? 300_000,
  };
}

export class LocalAgent extends ModelAgent {
  declare protected readonly client: LocalModelClient;
  /** What makes two configurations the same agent (settings reloads keep its loaded model). */
  readonly fingerprint: string;

  static fingerprint(config: LocalAgentConfig): string {
    return JSON.stringify(config);
  }

  constructor(config: LocalAgentConfig) {
    const { modelPath, contextSize, threads, temperature, maxTokens, unloadAfterMs, ...rest } = config;
    const settings = localModelSettings({ modelPath, contextSize, threads, temperature, maxTokens, unloadAfterMs });
    const file = path.basename(modelPath);
    super({ ...rest, client: new LocalModelClient(settings), model: file, where: 'local', description: `Runs ${file} in process (node-llama-cpp).` });
    this.fingerprint = LocalAgent.fingerprint(config);
  }

  /** The client, for the bench and the tests (streaming, timings). */
  get localClient(): LocalModelClient {
    return this.client;
  }

  /** Function calling when the model's own chat template takes tools, the text protocol otherwise. */
  protected override async defaultToolProtocol(signal: AbortSignal): Promise<'functions' | 'text'> {
    signal.throwIfAborted();
    return (await this.client.info()).toolProtocol;
  }

  dispose(): Promise<void> {
    return this.client.dispose();
  }
}
