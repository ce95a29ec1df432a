// A model agent: builds the task's prompt from the chosen context and asks its model, on an endpoint or in process.
import type { AgentDescriptor, ModelAgentSettings, TaskId, TaskOrNone } from '../protocol.js';
import type { Agent, AgentAnswer, AgentProgress, AgentRequest, TokenUsage } from './agent.js';
import type { ChatClient, ChatMessage } from './modelClient.js';
import { modelStrategy, modelTasks } from './modelTasks.js';
import type { AskModel, ModelSession } from './modelTask.js';
import { buildClassificationPrompt, parseClassification } from './modelClassifier.js';
import { describeExclusion } from '../privacy/exclusion.js';
import { protectedValues } from '../privacy/workspaceSecrets.js';
import type { Embedder } from '../repo/embeddingIndex.js';

export interface ModelAgentConfig {
  name: string;
  client: ChatClient;
  /** The model's name, and where it runs (a host, or `local`), as `assistant/agents` shows them. */
  model: string;
  where: string;
  description: string;
  tasks?: TaskId[];
  prompts?: ModelAgentSettings['prompts'];
  toolProtocol?: ModelAgentSettings['toolProtocol'];
  embeddingModel?: string;
}

export class ModelAgent implements Agent {
  readonly descriptor: AgentDescriptor;
  readonly tasks: readonly TaskId[];
  readonly description: string;
  protected readonly client: ChatClient;

  constructor(private readonly config: ModelAgentConfig) {
    this.descriptor = { name: config.name, technology: 'llm', isLLM: true, model: config.model, endpoint: config.where };
    const available = modelTasks();
    this.tasks = (config.tasks ?? available).filter((t) => available.includes(t));
    this.description = config.description;
    this.client = config.client;
  }

  /** The client this agent asks its model through, for inline completion (which is no task: see `completion/`). */
  get modelClient(): ChatClient {
    return this.client;
  }

  /** How tools reach the model when the settings do not say. */
  protected defaultToolProtocol(_signal: AbortSignal): Promise<'functions' | 'text'> {
    return Promise.resolve('functions');
  }

  async run(request: AgentRequest, signal: AbortSignal, progress?: AgentProgress): Promise<AgentAnswer> {
    const strategy = modelStrategy(request.task);
    if (!strategy) return { text: '' };
    // A file the workspace keeps from models is not sent, whatever the task. A question is built from retrieval
    // (which leaves such files out) and never reads the document it is asked from.
    const excluded = request.task !== 'question' && request.document.fsPath ? request.workspace.exclusion.check(request.document.fsPath) : undefined;
    if (excluded) return { text: '', reason: `not sent to ${this.descriptor.model}: ${describeExclusion(excluded)}` };
    const toolProtocol = this.config.toolProtocol ?? (strategy.run ? await this.defaultToolProtocol(signal) : 'functions');
    const knownSecrets = request.knownSecrets ?? protectedValues(request.workspace, request.document);
    const override = this.config.prompts?.[request.task];
    const usage: TokenUsage = {};
    const ask: AskModel = async (prompt, callSignal) => {
      // The workspace context goes after the task's own prompt, marked as reference, so it informs without redirecting.
      const context = request.context && prompt.withContext !== false ? `\n\nContext from the workspace, for reference only (change nothing outside what is asked):\n${request.context}` : '';
      const messages: ChatMessage[] = [
        { role: 'system', content: prompt.system },
        { role: 'user', content: `${prompt.user}${context}` },
      ];
      // Rejected answers and why they were rejected, so the model can correct itself.
      for (const earlier of request.history) {
        messages.push({ role: 'assistant', content: earlier.answer }, { role: 'user', content: `That was rejected:\n${earlier.feedback}\nAnswer again, fixing this.` });
      }
      // What the model has written so far keeps the progress moving while it writes (a local model on a CPU: minutes).
      const onWritten = progress ? (characters: number) => progress({ written: characters }) : undefined;
      const completion = await this.client.complete(messages, callSignal, { knownSecrets, ...(onWritten ? { onWritten } : {}) });
      usage.promptTokens = (usage.promptTokens ?? 0) + (completion.usage?.promptTokens ?? 0);
      usage.completionTokens = (usage.completionTokens ?? 0) + (completion.usage?.completionTokens ?? 0);
      return completion;
    };
    const session: ModelSession = {
      chat: async (messages, callSignal, tools) => {
        const completion = await this.client.complete(messages, callSignal, { knownSecrets, ...(tools ? { tools } : {}) });
        usage.promptTokens = (usage.promptTokens ?? 0) + (completion.usage?.promptTokens ?? 0);
        usage.completionTokens = (usage.completionTokens ?? 0) + (completion.usage?.completionTokens ?? 0);
        return completion;
      },
      toolProtocol,
      model: this.config.model,
      ...(this.config.embeddingModel ? { embedder: this.embedder(this.config.embeddingModel, knownSecrets) } : {}),
    };
    let answer: AgentAnswer;
    if (strategy.run) {
      answer = await strategy.run(request, ask, override, signal, session);
    } else {
      const prompt = strategy.buildPrompt(request, override);
      if (!prompt) return { text: '' };
      answer = { text: (await ask(prompt, signal)).text };
    }
    return { ...answer, ...(usage.promptTokens || usage.completionTokens ? { usage } : {}) };
  }

  /** Embeddings from this agent's endpoint, keyed by model and host so vectors of different models never mix. */
  private embedder(model: string, knownSecrets: ReadonlyMap<string, string>): Embedder {
    const client = this.client;
    return {
      key: `${model}@${this.descriptor.endpoint ?? ''}`,
      embed: (texts, signal) => (client.embed ? client.embed(texts, model, signal, { knownSecrets }) : Promise.reject(new Error(`${this.descriptor.name} has no embeddings`))),
    };
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
