// The scripted endpoint as model agents in the server's settings, beside the offline agents, for journeys with a failing, slow or hung model.
import { expect } from 'vitest';
import type { ModelAgentSettings } from '../../protocol/src/index.js';
import type { RecordedRequest, ScriptStep, ScriptedModel } from './scriptedModel.js';

/**
 * A model agent entry of `assistant.agents` on the scripted endpoint; its name is also the model it asks for. It keeps
 * the default retries: a request on a kept-alive connection the endpoint closes at that moment is sent again.
 */
export function scriptedAgent(model: ScriptedModel, name: string, extra: Partial<ModelAgentSettings> = {}): ModelAgentSettings {
  return { name, baseURL: model.baseURL, apiKey: 'sk-test', model: name, tasks: ['document'], ...extra };
}

/** Whether a request is the model classifier's (free text is classified by the first model agent before the task runs). */
export function isClassification(request: RecordedRequest): boolean {
  return JSON.stringify(request.body?.messages ?? '').includes('None of the above');
}

/**
 * A step for every request: classifications are answered "document" at once, so the journey reaches its task
 * whatever the agents do; the task's requests get `respond`, chosen by the model (the agent) that asks.
 */
export function taskSteps(respond: (agent: string, request: RecordedRequest) => ScriptStep): ScriptStep {
  return { kind: 'dynamic', respond: (request) => (isClassification(request) ? { kind: 'text', content: 'document' } : respond(String(request.body?.model), request)) };
}

/** A doc comment a model might write for `ConfigStore.load`. */
export const LOAD_DOC = '/**\n * Loads the configuration from disk once and caches it.\n * @returns The configuration.\n */';

/**
 * Checks that the progress lines matching `line` (its groups: the characters written, which may be absent, then the
 * seconds) show a streaming model at work: at least two different seconds and two different amounts written, neither
 * going back. Returns the amounts written.
 */
export function expectModelAtWork(lines: readonly string[], line: RegExp): number[] {
  const running = lines.flatMap((text) => {
    const match = line.exec(text);
    return match ? [{ written: Number(match[1] ?? 0), seconds: Number(match[2]) }] : [];
  });
  const seconds = running.map((r) => r.seconds);
  const written = running.map((r) => r.written).filter((n) => n > 0);
  const all = lines.join('\n');
  expect(new Set(seconds).size, all).toBeGreaterThanOrEqual(2);
  expect(seconds, all).toEqual([...seconds].sort((a, b) => a - b));
  expect(new Set(written).size, all).toBeGreaterThanOrEqual(2);
  expect(written, all).toEqual([...written].sort((a, b) => a - b));
  return written;
}
