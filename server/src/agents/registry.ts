// The agent registry: the built-in offline agents plus model agents from settings and the environment.
import type { AgentInfo, AssistantSettings, TaskId } from '../protocol.js';
import { ENVIRONMENT } from '../protocol.js';
import type { Agent } from './agent.js';
import { OfflineDocumentAgent } from './offline/documentAgent.js';
import { OfflineExplainAgent } from './offline/explainAgent.js';
import { OfflineRenameAgent } from './offline/renameAgent.js';
import { OfflineFixAgent } from './offline/fixAgent.js';
import { OfflineTestScaffoldAgent } from './offline/testScaffoldAgent.js';
import { OfflineImplementAgent } from './offline/implementAgent.js';
import { OfflineQuestionAgent } from './offline/questionAgent.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OpenAIAgent } from './openaiAgent.js';
import { ModelAgent } from './modelAgent.js';
import { LocalAgent } from './local/localAgent.js';

export class AgentRegistry {
  constructor(
    private readonly agents: readonly Agent[],
    /** Why some configured agents are missing. */
    readonly problems: readonly string[] = [],
  ) {}

  forTask(task: TaskId): Agent[] {
    return this.agents.filter((a) => a.tasks.includes(task));
  }

  serves(task: TaskId): boolean {
    return this.agents.some((a) => a.tasks.includes(task));
  }

  byName(name: string): Agent | undefined {
    return this.agents.find((a) => a.descriptor.name === name);
  }

  /** The model agent used to classify free text, if any is configured. */
  classifier(): ModelAgent | undefined {
    return this.agents.find((a): a is ModelAgent => a instanceof ModelAgent);
  }

  /** The local agent of this exact configuration, which a rebuilt registry takes over with its loaded model. */
  localAgent(fingerprint: string): LocalAgent | undefined {
    return this.agents.find((a): a is LocalAgent => a instanceof LocalAgent && a.fingerprint === fingerprint);
  }

  /** Stops what the agents keep running (a local model's worker), but for those `successor` took over. */
  async dispose(successor?: AgentRegistry): Promise<void> {
    await Promise.all(this.agents.map((a) => (a instanceof LocalAgent && !successor?.agents.includes(a) ? a.dispose() : undefined)));
  }

  list(): AgentInfo[] {
    return this.agents.map((a) => ({ ...a.descriptor, tasks: [...a.tasks], description: a.description }));
  }
}

const DEFAULT_MODEL = 'gpt-4o-mini';

function offlineAgents(): Agent[] {
  return [new OfflineDocumentAgent(), new OfflineExplainAgent(), new OfflineRenameAgent(), new OfflineFixAgent(), new OfflineTestScaffoldAgent(), new OfflineImplementAgent(), new OfflineQuestionAgent()];
}

/** Whether an offline agent exists for the task (disabled or not): the tasks that need no model agent. */
export function hasOfflineAgent(task: TaskId): boolean {
  return offlineAgents().some((agent) => agent.tasks.includes(task));
}

/** Builds the registry; a bad agent entry is reported and left out, the rest still register. */
export function buildRegistry(settings: AssistantSettings, env: NodeJS.ProcessEnv, extraProblems: readonly string[] = [], previous?: AgentRegistry): AgentRegistry {
  const problems = [...extraProblems];
  // Offline agents that serve no task yet stay out of the registry (and of assistant/agents).
  const agents: Agent[] = offlineAgents().filter((agent) => agent.tasks.length > 0);
  const names = new Set(agents.map((a) => a.descriptor.name));
  const add = (agent: Agent): void => {
    if (names.has(agent.descriptor.name)) {
      problems.push(`agent "${agent.descriptor.name}": the name is used twice; the second one is left out`);
      return;
    }
    names.add(agent.descriptor.name);
    agents.push(agent);
  };

  const envKey = env[ENVIRONMENT.apiKey];
  if (settings.useEnvironment && envKey) {
    const model = env[ENVIRONMENT.model] || DEFAULT_MODEL;
    const baseURL = env[ENVIRONMENT.baseURL] || undefined;
    try {
      add(new OpenAIAgent({ name: agentName(undefined, model, baseURL), endpoint: endpointOf({ model }, envKey, baseURL) }));
    } catch (error) {
      problems.push(`${ENVIRONMENT.baseURL}: ${(error as Error).message}`);
    }
  }
  settings.agents.forEach((entry, i) => {
    if (entry.modelPath !== undefined) {
      const modelPath = localPath(entry.modelPath);
      if (!path.isAbsolute(modelPath)) return problems.push(`assistant.agents[${i}].modelPath: must be an absolute path (or start with ~/), not "${entry.modelPath}"; the agent is left out`);
      if (!fs.existsSync(modelPath)) return problems.push(`assistant.agents[${i}].modelPath: no file at ${modelPath}; the agent is left out`);
      const { name, contextSize, threads, temperature, maxTokens, unloadAfterMs, tasks, prompts, toolProtocol } = entry;
      const config = { name: localAgentName(name, modelPath), modelPath, contextSize, threads, temperature, maxTokens, unloadAfterMs, tasks, prompts, toolProtocol };
      add(previous?.localAgent(LocalAgent.fingerprint(config)) ?? new LocalAgent(config));
      return;
    }
    if (entry.model === undefined) return problems.push(`assistant.agents[${i}]: needs a "model" (on an endpoint) or a "modelPath" (a local GGUF file); the agent is left out`);
    const model = entry.model;
    const key = entry.apiKey ?? (entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined) ?? envKey;
    if (!key && !entry.baseURL) {
      problems.push(`assistant.agents[${i}]: no API key (set apiKeyEnv, or ${ENVIRONMENT.apiKey}); the agent is left out`);
      return;
    }
    try {
      // Local endpoints (Ollama, llama.cpp, vLLM) take any key; the package insists on one.
      add(new OpenAIAgent({ name: agentName(entry.name, model, entry.baseURL), endpoint: endpointOf({ ...entry, model }, key ?? 'not-needed', entry.baseURL), tasks: entry.tasks, prompts: entry.prompts, ...(entry.toolProtocol ? { toolProtocol: entry.toolProtocol } : {}), ...(entry.embeddingModel ? { embeddingModel: entry.embeddingModel } : {}) }));
    } catch (error) {
      problems.push(`assistant.agents[${i}]: ${(error as Error).message}`);
    }
  });
  // A disabled local agent is still built (and not loaded: that happens on first use) so that the filter is uniform.
  const enabled = agents.filter((a) => !settings.disabledAgents.includes(a.descriptor.name));
  // Each once: a bad value in both initializationOptions and workspace/configuration is found in each layer.
  return new AgentRegistry(enabled, [...new Set(problems)]);
}

/** `~/…` is the user's home; anything else as written. */
function localPath(written: string): string {
  return written === '~' || written.startsWith('~/') ? path.join(os.homedir(), written.slice(1)) : written;
}

/** A local agent's name: the one given, else the model file's name without `.gguf`. */
export function localAgentName(name: string | undefined, modelPath: string): string {
  return (name ?? path.basename(modelPath).replace(/\.gguf$/i, '')).trim().replace(/\s+/g, '-');
}

function agentName(name: string | undefined, model: string, baseURL: string | undefined): string {
  const raw = name ?? `${model}@${baseURL ? new URL(baseURL).host : 'openai'}`;
  return raw.trim().replace(/\s+/g, '-');
}

function endpointOf(entry: { model: string; temperature?: number; timeoutMs?: number; idleTimeoutMs?: number; maxRetries?: number; stream?: boolean }, apiKey: string, baseURL: string | undefined) {
  if (baseURL) new URL(baseURL);
  return {
    apiKey,
    model: entry.model,
    ...(baseURL ? { baseURL } : {}),
    ...(entry.temperature !== undefined ? { temperature: entry.temperature } : {}),
    timeoutMs: entry.timeoutMs ?? 120_000,
    idleTimeoutMs: entry.idleTimeoutMs ?? 30_000,
    maxRetries: entry.maxRetries ?? 2,
    stream: entry.stream ?? true,
  };
}
