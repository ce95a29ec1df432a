// A model agent on any OpenAI-compatible endpoint: builds the task's prompt from the chosen context and asks the model.
import path from 'node:path';
import type { AgentDescriptor, ModelAgentSettings, TaskId, TaskOrNone } from '../protocol.js';
import type { Agent, AgentAnswer, AgentProgress, AgentRequest } from './agent.js';
import { ModelClient } from './modelClient.js';
import type { ModelEndpoint } from './modelClient.js';
import { modelTasks, promptFor } from './prompts.js';
import { buildClassificationPrompt, parseClassification } from './modelClassifier.js';

/** Longest piece of code sent for one declaration; longer code is cut in the middle. */
const MAX_CODE_CHARS = 24_000;

export interface OpenAIAgentConfig {
  name: string;
  endpoint: ModelEndpoint;
  tasks?: TaskId[];
  prompts?: ModelAgentSettings['prompts'];
}

export class OpenAIAgent implements Agent {
  readonly descriptor: AgentDescriptor;
  readonly tasks: readonly TaskId[];
  readonly description: string;
  private readonly client: ModelClient;

  constructor(private readonly config: OpenAIAgentConfig) {
    const host = config.endpoint.baseURL ? new URL(config.endpoint.baseURL).host : 'api.openai.com';
    this.descriptor = { name: config.name, technology: 'llm', isLLM: true, model: config.endpoint.model, endpoint: host };
    const available = modelTasks();
    this.tasks = (config.tasks ?? available).filter((t) => available.includes(t));
    this.description = `Asks ${config.endpoint.model} at ${host}.`;
    this.client = new ModelClient(config.endpoint);
  }

  async run(request: AgentRequest, signal: AbortSignal, progress?: AgentProgress): Promise<AgentAnswer> {
    const fileName = request.document.fsPath ? path.relative(request.project.root, request.document.fsPath) : request.document.uri;
    const prompt = promptFor(
      request.task,
      {
        code: clip(request.document.text.slice(request.target.start, request.target.end)),
        language: request.document.languageId.startsWith('javascript') ? 'javascript' : 'typescript',
        symbol: request.target.name,
        kind: request.target.declaration?.kind.replace('-', ' ') ?? 'code',
        request: request.text,
        fileName,
      },
      this.config.prompts?.[request.task],
    );
    if (!prompt) return { text: '' };
    progress?.(`asking ${this.descriptor.model}`);
    const completion = await this.client.complete(
      [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      signal,
    );
    return { text: completion.text, ...(completion.usage ? { usage: completion.usage } : {}) };
  }

  /** Classifies a request with the numbered-list prompt; undefined when the reply cannot be read. */
  async classify(text: string, tasks: readonly { id: TaskId; description: string }[], signal: AbortSignal): Promise<TaskOrNone | undefined> {
    const prompt = buildClassificationPrompt(text, tasks, this.config.prompts?.classify);
    const completion = await this.client.complete(
      [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      signal,
    );
    return parseClassification(completion.text, tasks);
  }
}

function clip(code: string): string {
  if (code.length <= MAX_CODE_CHARS) return code;
  const half = MAX_CODE_CHARS / 2;
  return `${code.slice(0, half)}\n/* … ${code.length - MAX_CODE_CHARS} characters left out … */\n${code.slice(-half)}`;
}
