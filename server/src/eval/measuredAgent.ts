// An agent wrapped so the harness sees what each run cost: calls, prompt characters, tokens and time, summed over the oracle's retries.
import type { TaskId } from '../protocol.js';
import type { Agent, AgentAnswer, AgentProgress, AgentRequest } from '../agents/agent.js';
import { modelStrategy } from '../agents/modelTasks.js';

/** What one interaction cost one agent. */
export interface RunCost {
  /** Times the agent was asked (more than one when the oracle sent a model's answer back). */
  calls: number;
  /** Characters of the prompts a model agent was sent (system, user and the earlier attempts), summed over calls; null for offline agents. */
  promptChars: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Time spent inside the agent, summed over calls. */
  agentMs: number;
}

/** Costs by interaction id; a run takes its entry out when it is done. */
export class CostLedger {
  private readonly costs = new Map<string, RunCost>();

  entry(interactionId: string): RunCost {
    let cost = this.costs.get(interactionId);
    if (!cost) {
      cost = { calls: 0, promptChars: null, promptTokens: null, completionTokens: null, agentMs: 0 };
      this.costs.set(interactionId, cost);
    }
    return cost;
  }

  take(interactionId: string): RunCost {
    const cost = this.entry(interactionId);
    this.costs.delete(interactionId);
    return cost;
  }
}

/** The characters of the messages a model agent sends for a request: its task prompt (as the agent builds it) and the retry conversation. */
export function promptCharsOf(request: AgentRequest, override: string | undefined): number | null {
  const prompt = modelStrategy(request.task)?.buildPrompt(request, override);
  if (!prompt) return null;
  const history = request.history.reduce((sum, h) => sum + h.answer.length + h.feedback.length, 0);
  return prompt.system.length + prompt.user.length + history;
}

export class MeasuredAgent implements Agent {
  constructor(
    private readonly inner: Agent,
    private readonly ledger: CostLedger,
    /** The user's prompt template for a task, if the agent's settings override it. */
    private readonly override: (task: TaskId) => string | undefined = () => undefined,
  ) {}

  get descriptor(): Agent['descriptor'] {
    return this.inner.descriptor;
  }

  get tasks(): Agent['tasks'] {
    return this.inner.tasks;
  }

  get description(): string {
    return this.inner.description;
  }

  async run(request: AgentRequest, signal: AbortSignal, progress?: AgentProgress): Promise<AgentAnswer> {
    const cost = this.ledger.entry(request.interactionId);
    cost.calls++;
    if (this.inner.descriptor.isLLM) {
      const chars = promptCharsOf(request, this.override(request.task));
      if (chars !== null) cost.promptChars = (cost.promptChars ?? 0) + chars;
    }
    const started = Date.now();
    try {
      const answer = await this.inner.run(request, signal, progress);
      if (answer.usage?.promptTokens !== undefined) cost.promptTokens = (cost.promptTokens ?? 0) + answer.usage.promptTokens;
      if (answer.usage?.completionTokens !== undefined) cost.completionTokens = (cost.completionTokens ?? 0) + answer.usage.completionTokens;
      return answer;
    } finally {
      cost.agentMs += Date.now() - started;
    }
  }
}
