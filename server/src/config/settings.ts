// Resolves the effective settings from defaults, initializationOptions and workspace/configuration, with readable problems.
import { DEFAULT_SETTINGS, isTaskId } from '../protocol.js';
import type { AssistantSettings, ModelAgentSettings } from '../protocol.js';

export interface ResolvedSettings {
  settings: AssistantSettings;
  /** Problems found, each naming the bad key; the bad value is ignored and its default used. */
  problems: string[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Merges the layers (later wins) and validates each key: a bad value is reported and replaced by
 * the value of the layer below, so one mistake disables only what it configures.
 */
export function resolveSettings(...layers: unknown[]): ResolvedSettings {
  const problems: string[] = [];
  const s: AssistantSettings = structuredClone(DEFAULT_SETTINGS);
  for (const raw of layers) {
    if (raw === undefined || raw === null) continue;
    if (!isObject(raw)) {
      problems.push('assistant: settings must be an object');
      continue;
    }
    const layer = isObject(raw.assistant) ? raw.assistant : raw;
    for (const [key, value] of Object.entries(layer)) {
      switch (key) {
        case 'agents':
          if (!Array.isArray(value)) problems.push('assistant.agents: must be a list of model agents');
          else s.agents = value.flatMap((a, i) => validateAgent(a, `assistant.agents[${i}]`, problems));
          break;
        case 'useEnvironment':
          if (typeof value === 'boolean') s.useEnvironment = value;
          else problems.push('assistant.useEnvironment: must be true or false');
          break;
        case 'disabledAgents':
          if (Array.isArray(value) && value.every((v) => typeof v === 'string')) s.disabledAgents = value;
          else problems.push('assistant.disabledAgents: must be a list of agent names');
          break;
        case 'orchestrator':
          number(value, 'agentTimeoutMs', 'assistant.orchestrator.agentTimeoutMs', 100, 3_600_000, problems, (n) => (s.orchestrator.agentTimeoutMs = n));
          integer(value, 'maxAttempts', 'assistant.orchestrator.maxAttempts', 1, 10, problems, (n) => (s.orchestrator.maxAttempts = n));
          if (isObject(value) && value.strategy !== undefined) {
            if (value.strategy === 'offer-all' || value.strategy === 'best-passing') s.orchestrator.strategy = value.strategy;
            else problems.push('assistant.orchestrator.strategy: must be "offer-all" or "best-passing"');
          }
          break;
        case 'pipelines':
          integer(value, 'toolRounds', 'assistant.pipelines.toolRounds', 0, 50, problems, (n) => (s.pipelines.toolRounds = n));
          integer(value, 'maxSelfFixes', 'assistant.pipelines.maxSelfFixes', 0, 10, problems, (n) => (s.pipelines.maxSelfFixes = n));
          integer(value, 'patchAttempts', 'assistant.pipelines.patchAttempts', 1, 10, problems, (n) => (s.pipelines.patchAttempts = n));
          integer(value, 'classRounds', 'assistant.pipelines.classRounds', 1, 20, problems, (n) => (s.pipelines.classRounds = n));
          break;
        case 'oracle':
          if (isObject(value) && value.runTests !== undefined) {
            if (typeof value.runTests === 'boolean') s.oracle.runTests = value.runTests;
            else problems.push('assistant.oracle.runTests: must be true or false');
          }
          number(value, 'testTimeoutMs', 'assistant.oracle.testTimeoutMs', 1000, 3_600_000, problems, (n) => (s.oracle.testTimeoutMs = n));
          break;
        case 'classifier':
          number(value, 'threshold', 'assistant.classifier.threshold', 0, 1, problems, (n) => (s.classifier.threshold = n));
          break;
        case 'trace':
          if (!isObject(value)) {
            problems.push('assistant.trace: must be an object');
            break;
          }
          if (value.directory !== undefined) {
            if (typeof value.directory === 'string' && value.directory.trim() !== '') s.trace.directory = value.directory;
            else problems.push('assistant.trace.directory: must be a non-empty path');
          }
          integer(value, 'segmentSize', 'assistant.trace.segmentSize', 1, 100_000, problems, (n) => (s.trace.segmentSize = n));
          break;
        case 'annotations':
          if (isObject(value) && typeof value.enabled === 'boolean') s.annotations.enabled = value.enabled;
          else if (typeof value === 'boolean') s.annotations.enabled = value;
          else problems.push('assistant.annotations.enabled: must be true or false');
          break;
        case 'progress':
          integer(value, 'showAfterMs', 'assistant.progress.showAfterMs', 0, 60_000, problems, (n) => (s.progress.showAfterMs = n));
          break;
        case 'user':
          if (!isObject(value)) {
            problems.push('assistant.user: must be an object');
            break;
          }
          // An empty name means "not set": the OS user is recorded instead.
          if (typeof value.name === 'string') {
            if (value.name.trim()) s.user.name = value.name.trim();
          }
          else if (value.name !== undefined) problems.push('assistant.user.name: must be a string');
          if (value.role === 'developer' || value.role === 'maintainer' || value.role === 'reviewer') s.user.role = value.role;
          else if (value.role !== undefined) problems.push('assistant.user.role: must be developer, maintainer or reviewer');
          break;
        default:
          problems.push(`assistant.${key}: unknown setting`);
      }
    }
  }
  return { settings: s, problems };
}

function number(obj: unknown, key: string, name: string, min: number, max: number, problems: string[], set: (n: number) => void, integer = false): void {
  if (!isObject(obj)) {
    problems.push(`${name.slice(0, name.lastIndexOf('.'))}: must be an object`);
    return;
  }
  const v = obj[key];
  if (v === undefined) return;
  if (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!integer || Number.isInteger(v))) set(v);
  else problems.push(`${name}: must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
}

/** A setting counted in whole units (attempts, rounds, interactions): the same check as `number`, fractions refused. */
function integer(obj: unknown, key: string, name: string, min: number, max: number, problems: string[], set: (n: number) => void): void {
  number(obj, key, name, min, max, problems, set, true);
}

function validateAgent(raw: unknown, name: string, problems: string[]): ModelAgentSettings[] {
  if (!isObject(raw)) {
    problems.push(`${name}: must be an object with at least a "model"`);
    return [];
  }
  const before = problems.length;
  if (typeof raw.model !== 'string' || raw.model.trim() === '') problems.push(`${name}.model: required, the model to call`);
  for (const key of ['name', 'baseURL', 'apiKey', 'apiKeyEnv', 'embeddingModel'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') problems.push(`${name}.${key}: must be a string`);
  }
  if (typeof raw.baseURL === 'string') {
    try {
      const url = new URL(raw.baseURL);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${name}.baseURL: must be an http or https URL`);
    } catch {
      problems.push(`${name}.baseURL: not a valid URL`);
    }
  }
  for (const [key, min, max] of [['temperature', 0, 2], ['timeoutMs', 100, 3_600_000], ['idleTimeoutMs', 100, 3_600_000], ['maxRetries', 0, 10]] as const) {
    const v = raw[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max)) problems.push(`${name}.${key}: must be a number from ${min} to ${max}`);
  }
  if (raw.stream !== undefined && typeof raw.stream !== 'boolean') problems.push(`${name}.stream: must be true or false`);
  if (raw.toolProtocol !== undefined && raw.toolProtocol !== 'functions' && raw.toolProtocol !== 'text') problems.push(`${name}.toolProtocol: must be "functions" or "text"`);
  if (raw.tasks !== undefined && !(Array.isArray(raw.tasks) && raw.tasks.every(isTaskId))) problems.push(`${name}.tasks: must be a list of task ids`);
  if (raw.prompts !== undefined) {
    if (!isObject(raw.prompts)) problems.push(`${name}.prompts: must map task ids to templates`);
    else {
      for (const [k, v] of Object.entries(raw.prompts)) {
        if (!(isTaskId(k) || k === 'classify') || typeof v !== 'string') problems.push(`${name}.prompts.${k}: must be a template string for a task id`);
      }
    }
  }
  if (problems.length > before) return [];
  return [raw as unknown as ModelAgentSettings];
}
