// The server's settings: their shape, their defaults, and the configuration section clients use.
import type { TaskId } from './tasks.js';

/** The `workspace/configuration` section and the `initializationOptions` key holding these settings. */
export const SETTINGS_SECTION = 'assistant';

/** One model agent on an OpenAI-compatible endpoint. */
export interface ModelAgentSettings {
  /** Unique agent name; defaults to `<model>@<host>`. */
  name?: string;
  /** Endpoint base URL, e.g. `http://localhost:11434/v1`; defaults to OpenAI. */
  baseURL?: string;
  /** API key; prefer `apiKeyEnv`. */
  apiKey?: string;
  /** Name of the environment variable holding the API key. */
  apiKeyEnv?: string;
  model: string;
  temperature?: number;
  /** Tasks this agent serves; defaults to every task that has a model path. */
  tasks?: TaskId[];
  /** Whole-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Time without a streamed chunk after which the request is abandoned. */
  idleTimeoutMs?: number;
  maxRetries?: number;
  /** Stream the answer (default true). */
  stream?: boolean;
  /** Per-task prompt template overrides; `{{code}}`, `{{language}}`, `{{symbol}}`, `{{request}}` are replaced. */
  prompts?: Partial<Record<TaskId | 'classify', string>>;
  /**
   * How the agent calls the repository tools: `functions` (the endpoint's function calling, the default) or `text`
   * (lines `CALL <tool> <JSON>` in plain answers, for endpoints without function calling).
   */
  toolProtocol?: 'functions' | 'text';
  /**
   * An embedding model of the same endpoint (e.g. `text-embedding-3-small`): the repository tool `get_relevant_code`
   * then ranks declarations by embeddings as well as by the lexical index. Without it, the lexical index alone.
   */
  embeddingModel?: string;
}

/** How the answers of several agents reach the user. */
export type CandidateStrategy = 'offer-all' | 'best-passing';

export interface AssistantSettings {
  /** Model agents, in addition to the one registered from `OPENAI_API_KEY`. */
  agents: ModelAgentSettings[];
  /** Register the model agent from `OPENAI_API_KEY`/`OPENAI_BASE_URL`/`ASSISTANT_MODEL` (default true). */
  useEnvironment: boolean;
  /** Offline agents to leave out, by name. */
  disabledAgents: string[];
  orchestrator: {
    /** Budget of each agent, in milliseconds. */
    agentTimeoutMs: number;
    /** Times a model agent is asked when the oracle rejects its proposal (1 = no retry). */
    maxAttempts: number;
    /**
     * With several usable answers: `offer-all` lets the user choose among them; `best-passing` takes the best one
     * that passed the oracle (every answer is still recorded in the trace).
     */
    strategy: CandidateStrategy;
  };
  pipelines: {
    /** Rounds of repository-tool calls a model may make while exploring, per step. */
    toolRounds: number;
    /** Times a failing issue patch goes back through self-fix (which step caused it, feedback, replay). */
    maxSelfFixes: number;
    /** Times a patch that cannot be parsed or applied goes back to the model within one patch step. */
    patchAttempts: number;
    /** Attempts of class generation (each after the oracle, tools and a reflection). */
    classRounds: number;
  };
  oracle: {
    /** Run the project's tests in a scratch copy to check proposals (runs the project's code, so off by default). */
    runTests: boolean;
    /** Time limit of one test run, in milliseconds. */
    testTimeoutMs: number;
  };
  classifier: {
    /** Minimum confidence of the offline intent classifier; below it the answer is `none`. */
    threshold: number;
  };
  trace: {
    /** Trace directory; relative paths are resolved against the first workspace folder. */
    directory: string;
    /** Interactions per segment file before a new segment starts. */
    segmentSize: number;
  };
  annotations: {
    /** Mark inserted code with a comment naming agent, task, interaction and time. */
    enabled: boolean;
  };
  progress: {
    /** How long work runs before the editor is shown progress for it (0: at once); shorter work shows none. */
    showAfterMs: number;
  };
  user: {
    /** Who is recorded as asking; defaults to the OS user name. */
    name?: string;
    role: 'developer' | 'maintainer' | 'reviewer';
  };
}

export const DEFAULT_SETTINGS: AssistantSettings = {
  agents: [],
  useEnvironment: true,
  disabledAgents: [],
  orchestrator: { agentTimeoutMs: 60_000, maxAttempts: 3, strategy: 'offer-all' },
  pipelines: { toolRounds: 6, maxSelfFixes: 2, patchAttempts: 3, classRounds: 4 },
  oracle: { runTests: false, testTimeoutMs: 120_000 },
  classifier: { threshold: 0.34 },
  trace: { directory: '.assistant/trace', segmentSize: 500 },
  annotations: { enabled: true },
  progress: { showAfterMs: 100 },
  user: { role: 'developer' },
};

/** Environment variables the server reads. */
export const ENVIRONMENT = {
  apiKey: 'OPENAI_API_KEY',
  baseURL: 'OPENAI_BASE_URL',
  model: 'ASSISTANT_MODEL',
} as const;
