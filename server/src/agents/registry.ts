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
import { OpenAIAgent } from './openaiAgent.js';

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
  classifier(): OpenAIAgent | undefined {
    return this.agents.find((a): a is OpenAIAgent => a instanceof OpenAIAgent);
  }

  list(): AgentInfo[] {
    return this.agents.map((a) => ({ ...a.descriptor, tasks: [...a.tasks], description: a.description }));
  }
}

const DEFAULT_MODEL = 'gpt-4o-mini';

/** Builds the registry; a bad agent entry is reported and left out, the rest still register. */
export function buildRegistry(settings: AssistantSettings, env: NodeJS.ProcessEnv, extraProblems: readonly string[] = []): AgentRegistry {
  const problems = [...extraProblems];
  // Offline agents that serve no task yet stay out of the registry (and of assistant/agents).
  const offline: Agent[] = [new OfflineDocumentAgent(), new OfflineExplainAgent(), new OfflineRenameAgent(), new OfflineFixAgent(), new OfflineTestScaffoldAgent(), new OfflineImplementAgent(), new OfflineQuestionAgent()];
  const agents: Agent[] = offline.filter((agent) => agent.tasks.length > 0);
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
    const key = entry.apiKey ?? (entry.apiKeyEnv ? env[entry.apiKeyEnv] : undefined) ?? envKey;
    if (!key && !entry.baseURL) {
      problems.push(`assistant.agents[${i}]: no API key (set apiKeyEnv, or ${ENVIRONMENT.apiKey}); the agent is left out`);
      return;
    }
    try {
      // Local endpoints (Ollama, llama.cpp, vLLM) take any key; the package insists on one.
      add(new OpenAIAgent({ name: agentName(entry.name, entry.model, entry.baseURL), endpoint: endpointOf(entry, key ?? 'not-needed', entry.baseURL), tasks: entry.tasks, prompts: entry.prompts, ...(entry.toolProtocol ? { toolProtocol: entry.toolProtocol } : {}), ...(entry.embeddingModel ? { embeddingModel: entry.embeddingModel } : {}) }));
    } catch (error) {
      problems.push(`assistant.agents[${i}]: ${(error as Error).message}`);
    }
  });
  const enabled = agents.filter((a) => !settings.disabledAgents.includes(a.descriptor.name));
  return new AgentRegistry(enabled, problems);
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
