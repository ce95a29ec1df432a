// The server's settings, declared once: key, type, default, constraints and description of each; the type, the defaults, the validation, VS Code's schema and the docs table follow from it.
import { TASK_IDS } from './tasks.js';
import { boolean, defaultsOf, list, map, number, object, oneOf, string } from './settingsSchema.js';
import type { Infer } from './settingsSchema.js';

/** The `workspace/configuration` section and the `initializationOptions` key holding these settings. */
export const SETTINGS_SECTION = 'assistant';

/** Milliseconds: the upper bound of every timeout, an hour. */
const HOUR_MS = 3_600_000;

/** One model agent, on an OpenAI-compatible endpoint or a local GGUF file (its unset fields are filled where the agent is built). */
const MODEL_AGENT = object({
  model: string({ nonBlank: 'model name', description: 'The model to call, e.g. `gpt-4o-mini` or `qwen2.5-coder:7b`; required unless `modelPath` is set.' }),
  modelPath: string({
    nonBlank: 'path',
    description:
      'An absolute path (or `~/…`) to a GGUF model file: the agent runs it in the server\'s process, on a worker thread, through the optional package `node-llama-cpp`, instead of calling an endpoint. Loaded on first use (when it serves inline completion to a client that declares `textDocument.inlineCompletion` or has asked for one: when a document opens), unloaded after `unloadAfterMs` idle.',
  }),
  name: string({ description: 'Unique agent name; defaults to `<model>@<host>`, or the file name for a local model.' }),
  baseURL: string({ url: true, description: 'Endpoint base URL, e.g. `http://localhost:11434/v1`; defaults to OpenAI.' }),
  apiKey: string({ description: 'API key; prefer `apiKeyEnv`.' }),
  apiKeyEnv: string({ description: 'Name of the environment variable holding the API key.' }),
  temperature: number({ min: 0, max: 2, description: "Sampling temperature; the endpoint's own default when unset." }),
  tasks: list(oneOf(TASK_IDS, { description: 'A task id.' }), {
    noun: 'task ids',
    description: 'Tasks this agent serves (a cheap model for `document`, a strong one for `fix`); defaults to every task that has a model path.',
  }),
  timeoutMs: number({ min: 100, max: HOUR_MS, description: 'Whole-request timeout in milliseconds.' }),
  idleTimeoutMs: number({ min: 100, max: HOUR_MS, description: 'Time without a streamed chunk, in milliseconds, after which the request is abandoned.' }),
  maxRetries: number({ min: 0, max: 10, whole: true, description: 'Times a request that failed for a reason worth retrying (a timeout, a rate limit, a server error) is sent again.' }),
  stream: boolean({ description: 'Stream the answer (default `true`).' }),
  prompts: map([...TASK_IDS, 'classify'], string({ description: 'A prompt template.' }), {
    keyNoun: 'a task id or "classify"',
    noun: 'task ids to templates',
    description:
      'Per-task prompt template overrides (`prompts.document`, …, `prompts.classify`) with placeholders such as `{{code}}`, `{{language}}`, `{{symbol}}`, `{{kind}}`, `{{request}}`, `{{fileName}}` (`{{tasks}}` for `classify`); docs/protocol.md lists them all.',
  }),
  toolProtocol: oneOf(['functions', 'text'], {
    valueDescriptions: ["The endpoint's function calling.", 'Lines `CALL <tool> <JSON>` in plain answers, for endpoints without function calling.'],
    description: "How the agent calls the repository tools: `functions` (the endpoint's function calling, the default) or `text` (`CALL <tool> <JSON>` lines in plain answers, for endpoints without function calling).",
  }),
  contextSize: number({ min: 512, max: 131_072, whole: true, description: "Local model: the context window in tokens (default 8192, at most the model's own)." }),
  threads: number({ min: 1, max: 256, whole: true, description: 'Local model: CPU threads it computes with (default: half the cores, at least 1).' }),
  maxTokens: number({ min: 16, max: 32_768, whole: true, description: 'Local model: most tokens of one answer (default 1024); a longer answer is cut off and reported as such.' }),
  unloadAfterMs: number({ min: 1000, max: HOUR_MS, whole: true, description: 'Local model: idle time in milliseconds after which it is unloaded from memory (default 300000).' }),
  embeddingModel: string({
    description:
      "An embedding model of the same endpoint (e.g. `text-embedding-3-small`): `get_relevant_code` then fuses an embedding ranking of the workspace's declarations (made once per declaration text, kept in memory) with the lexical one; without it, or when the endpoint fails, the lexical ranking alone.",
  }),
}, { oneRequired: { fields: ['model', 'modelPath'], reason: 'the model to call on an endpoint, or a local GGUF file' } });

/**
 * Every setting. To add one, add a field here (to the object it belongs to) and run `npm run generate`: the type, the
 * defaults and the validation follow at once, and a test fails until VS Code's schema and docs/protocol.md are regenerated.
 */
export const SETTINGS = object({
  agents: list(MODEL_AGENT, {
    default: [],
    noun: 'model agents',
    restricted: true,
    description:
      'Model agents on OpenAI-compatible endpoints (OpenAI, Azure, Ollama, llama.cpp server, vLLM, LM Studio) or local GGUF files (`modelPath`), besides the one `useEnvironment` registers. Each task gets one candidate per agent that serves it.',
  }),
  useEnvironment: boolean({
    default: true,
    restricted: true,
    description: 'Register a model agent from `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `ASSISTANT_MODEL` in the environment the editor started the server with.',
  }),
  disabledAgents: list(string({ description: 'An agent name.' }), {
    default: [],
    noun: 'agent names',
    description: 'Agents to leave out, by name (e.g. `doc-offline`); the offline agents serve their tasks unless listed here.',
  }),
  completion: object({
    enabled: boolean({
      default: true,
      description:
        'Offer inline (ghost-text) completions through `textDocument/inlineCompletion`. They need a model agent: with none configured (the offline agents only) every request gets an empty list at once.',
    }),
    agent: string({
      blankIsUnset: true,
      restricted: true,
      description: 'The agent that serves completions, by name (an endpoint agent or a local GGUF agent); unset: the first model agent registered (the environment\'s, else the first of `agents`).',
    }),
    model: string({
      blankIsUnset: true,
      description: "The model completions ask for, on the agent's endpoint (a base or FIM model such as `qwen2.5-coder:1.5b-base`); unset: the agent's own model.",
    }),
    mode: oneOf(['auto', 'fim', 'chat'], {
      default: 'auto',
      valueDescriptions: [
        'Fill-in-the-middle where it works (`/v1/completions` with `suffix`; a local model with FIM tokens), else the chat model.',
        'Only fill-in-the-middle; an endpoint or model without it gets no completions.',
        'Only the chat model, asked to write the missing code (for endpoints without `/v1/completions`).',
      ],
      description:
        "How the model is asked: `auto` uses fill-in-the-middle (`/v1/completions` with `prompt` and `suffix`, or a local model's FIM tokens) and falls back to the chat model when the endpoint rejects it or the model has no FIM tokens; `fim` and `chat` use only one.",
    }),
    maxTokens: number({ default: 128, min: 1, max: 2048, whole: true, description: 'Most tokens of one completion.' }),
    stop: list(string({ description: 'A stop sequence.' }), {
      default: [],
      noun: 'stop sequences',
      description: 'Stop sequences besides the ones the server adds (a line break for a single-line completion, a blank line for a block).',
    }),
    debounceMs: number({
      default: 75,
      min: 0,
      max: 2000,
      whole: true,
      description: 'How long (ms) the server waits after a request before asking the model; a newer request for the same document in that time replaces it without a model call.',
    }),
    contextTokens: number({
      default: 1536,
      min: 128,
      max: 32_768,
      whole: true,
      description: 'Budget of what is sent, in estimated tokens: the text before and after the cursor, and snippets of the files the document imports and of the places you worked at last.',
    }),
  }),
  orchestrator: object({
    agentTimeoutMs: number({ default: 60_000, min: 100, max: HOUR_MS, description: 'Budget of each agent, in milliseconds.' }),
    maxAttempts: number({
      default: 3,
      min: 1,
      max: 10,
      whole: true,
      description: 'Times a model agent is asked when the oracle rejects its proposal (its earlier answer and the verdict go back to it as feedback); `1`: no retry.',
    }),
    strategy: oneOf(['offer-all', 'best-passing'], {
      default: 'offer-all',
      valueDescriptions: ['Let me choose among the usable answers.', 'Take the best answer that passed the oracle, without asking.'],
      description:
        'With several usable answers: `offer-all` lets the user choose among them; `best-passing` takes the best one that passed the oracle without asking (answers whose tests ran and passed rank first, then type-checked ones). Every answer is still recorded in the trace.',
    }),
  }),
  pipelines: object({
    toolRounds: number({ default: 6, min: 0, max: 50, whole: true, description: 'Rounds of repository-tool calls a model may make while exploring, per pipeline step.' }),
    maxSelfFixes: number({ default: 2, min: 0, max: 10, whole: true, description: 'Times a failing `issue` patch goes back through self-fix (which step caused it, feedback, replay).' }),
    patchAttempts: number({ default: 3, min: 1, max: 10, whole: true, description: 'Times a patch that cannot be parsed or applied goes back to the model within one patch step.' }),
    classRounds: number({ default: 4, min: 1, max: 20, whole: true, description: 'Attempts of `class` generation, each after the oracle, tool calls and a reflection.' }),
  }),
  oracle: object({
    runTests: boolean({
      default: false,
      restricted: true,
      description: "Also check proposals by running the project's tests in a scratch copy. This runs the project's code, so it is off by default.",
    }),
    testTimeoutMs: number({ default: 120_000, min: 1000, max: HOUR_MS, description: 'Time limit of one test run, in milliseconds.' }),
  }),
  classifier: object({
    threshold: number({ default: 0.34, min: 0, max: 1, description: 'Minimum confidence of the offline intent classifier; below it a request matches no task.' }),
  }),
  trace: object({
    directory: string({
      default: '.assistant/trace',
      nonBlank: 'path',
      restricted: true,
      description:
        "Where the trace lives; relative paths are resolved against the first workspace folder. It must be inside the workspace or the user's data folder (`$XDG_DATA_HOME/assistant-ls`, `~/.local/share/assistant-ls`, `%APPDATA%\\assistant-ls`, `~/Library/Application Support/assistant-ls`); anywhere else is refused with a message and the default is used.",
    }),
    segmentSize: number({ default: 500, min: 1, max: 100_000, whole: true, description: 'Interactions per trace segment file before a new segment starts.' }),
    commit: boolean({
      default: false,
      description:
        "Let git see the trace, for a team that commits it. When the server first writes into `.assistant/` (the trace, a report, a long answer) it writes `.assistant/.gitignore` unless one exists: by default it ignores everything there, itself included; with `true`, everything but itself and the trace folder. A `.gitignore` there without the server's first line (`# Written by assistant-ls.`) is the user's and is never changed.",
    }),
  }),
  annotations: object(
    {
      enabled: boolean({
        default: true,
        description:
          'Mark inserted code with the line comment `// @assistant task=… agent=… interaction=… at=…`, so the trace leads back from code to its interaction. It goes on its own line right above the declaration, below its doc comment and never inside it, so hovers and documentation generators leave it out; `@assistant` lines that earlier versions wrote inside doc comments are still read.',
      }),
    },
    { shorthand: 'enabled' },
  ),
  preview: oneOf(['always', 'multiFile', 'never'], {
    default: 'multiFile',
    valueDescriptions: [
      'Show every edit as a diff to accept or discard before it lands.',
      'Show the diff first when an edit touches more than one file or creates one; an edit of one file lands in its buffer at once.',
      'Let every edit land at once (undo takes it back).',
    ],
    description:
      "Which edits are shown as a diff to accept or discard before they land (VS Code's refactor preview; the Neovim and Emacs clients' diff; other editors apply at once): `always`; `multiFile`, the default, for edits (reverts too) that touch more than one file or create or delete one (an edit of one file lands in its open buffer, where undo takes it back); `never`. The server never saves an edit: you do.",
  }),
  diagnostics: object({
    publish: oneOf(['auto', 'always', 'never'], {
      default: 'auto',
      valueDescriptions: [
        'Only for clients that run no other TypeScript server beside assistant-ls (Emacs with Eglot).',
        "Publish the compiler's errors of open documents.",
        'Publish none (the `assistant.checkTypes` command still does).',
      ],
      description:
        "Publish the TypeScript compiler's errors of open documents as diagnostics, checked on open and after each pause in typing, so they show and Fix is offered on them. `auto`, the default, publishes them only to clients that run one language server per buffer (Eglot, which names itself in `clientInfo` or through `assistant-ls.el`): where typescript-language-server runs beside assistant-ls (VS Code, Neovim) it would show each error twice.",
    }),
  }),
  progress: object({
    showAfterMs: number({
      default: 100,
      min: 0,
      max: 60_000,
      whole: true,
      description: 'How long (ms) work runs before the editor is shown its progress; shorter work shows none. `0` shows it at once.',
    }),
  }),
  user: object({
    name: string({ blankIsUnset: true, description: "Who is recorded as asking; empty for the operating system's user name." }),
    role: oneOf(['developer', 'maintainer', 'reviewer'], { default: 'developer', description: 'The role recorded in the trace.' }),
  }),
});

/** The effective settings, every field with a value except the optional ones (an agent's, `user.name`). */
export type AssistantSettings = Infer<typeof SETTINGS>;

/** One model agent, on an OpenAI-compatible endpoint or a local GGUF file. */
export type ModelAgentSettings = AssistantSettings['agents'][number];

/** Which edits are previewed before they land. */
export type PreviewPolicy = AssistantSettings['preview'];

/** How the answers of several agents reach the user. */
export type CandidateStrategy = AssistantSettings['orchestrator']['strategy'];

export const DEFAULT_SETTINGS: AssistantSettings = defaultsOf(SETTINGS);

/** Environment variables the server reads. */
export const ENVIRONMENT = {
  apiKey: 'OPENAI_API_KEY',
  baseURL: 'OPENAI_BASE_URL',
  model: 'ASSISTANT_MODEL',
} as const;
