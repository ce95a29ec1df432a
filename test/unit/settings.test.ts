// Unit tests of settings resolution: layers merge, and each bad value is reported by key and replaced by its default.
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../server/src/config/settings.js';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';

describe('resolveSettings', () => {
  it('returns the defaults for nothing', () => {
    expect(resolveSettings(undefined)).toEqual({ settings: DEFAULT_SETTINGS, problems: [] });
  });

  it('merges layers, later ones winning, and accepts the section wrapper', () => {
    const { settings, problems } = resolveSettings({ assistant: { trace: { directory: 'a' } } }, { trace: { directory: 'b', segmentSize: 10 }, annotations: { enabled: false } });
    expect(problems).toEqual([]);
    expect(settings.trace).toEqual({ directory: 'b', segmentSize: 10, commit: false });
    expect(settings.annotations.enabled).toBe(false);
  });

  it('names each bad key and keeps the rest', () => {
    const { settings, problems } = resolveSettings({
      orchestrator: { agentTimeoutMs: -5 },
      classifier: { threshold: 'high' },
      agents: [{ model: 'ok-model', baseURL: 'http://localhost:1/v1' }, { baseURL: 'not a url' }, { model: 'm', temperature: 9 }],
      mystery: true,
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('assistant.orchestrator.agentTimeoutMs'),
        expect.stringContaining('assistant.classifier.threshold'),
        expect.stringContaining('assistant.agents[1].model'),
        expect.stringContaining('assistant.agents[1].baseURL'),
        expect.stringContaining('assistant.agents[2].temperature'),
        'assistant.mystery: unknown setting',
      ]),
    );
    expect(settings.orchestrator.agentTimeoutMs).toBe(DEFAULT_SETTINGS.orchestrator.agentTimeoutMs);
    expect(settings.agents.map((a) => a.model)).toEqual(['ok-model']);
  });

  it('takes progress.showAfterMs as whole milliseconds, 0 included, and refuses the rest', () => {
    expect(resolveSettings({ progress: { showAfterMs: 0 } })).toMatchObject({ settings: { progress: { showAfterMs: 0 } }, problems: [] });
    expect(resolveSettings({ progress: { showAfterMs: 250 } }).settings.progress.showAfterMs).toBe(250);
    for (const bad of [-1, 2.5, '100', 120_000]) {
      const { settings, problems } = resolveSettings({ progress: { showAfterMs: bad } });
      expect(problems).toEqual(['assistant.progress.showAfterMs: must be a whole number from 0 to 60000 (using 100)']);
      expect(settings.progress.showAfterMs).toBe(DEFAULT_SETTINGS.progress.showAfterMs);
    }
  });

  it('reports a setting that is not an object once, and a key named like an Object.prototype member as unknown', () => {
    const { settings, problems } = resolveSettings({ pipelines: 5, constructor: 1, toString: 'x' });
    expect(problems).toEqual(['assistant.pipelines: must be an object', 'assistant.constructor: unknown setting', 'assistant.toString: unknown setting']);
    expect(settings.pipelines).toEqual(DEFAULT_SETTINGS.pipelines);
  });

  it('says which value a refused one leaves in use: the layer below it, else the default', () => {
    expect(resolveSettings({ preview: 'sometimes' }).problems).toEqual(['assistant.preview: must be "always", "multiFile" or "never" (using "multiFile")']);
    const { settings, problems } = resolveSettings({ preview: 'never' }, { preview: 'sometimes' });
    expect(settings.preview).toBe('never');
    expect(problems).toEqual(['assistant.preview: must be "always", "multiFile" or "never" (using "never")']);
  });

  it('takes a bare annotations value as annotations.enabled', () => {
    expect(resolveSettings({ annotations: false })).toMatchObject({ settings: { annotations: { enabled: false } }, problems: [] });
    expect(resolveSettings({ annotations: 'no' }).problems).toEqual(['assistant.annotations.enabled: must be true or false (using true)']);
  });

  it('leaves out an agent with a bad field, keeps the declared fields of a good one, and trims the user name', () => {
    const { settings, problems } = resolveSettings({
      agents: [{ model: 'a', maxRetries: 1.5 }, { model: 'b', maxRetries: 2, prompts: { document: 'D {{code}}' } }, { model: 'c', prompts: { documnet: 'x' } }],
      user: { name: '  Ada ' },
    });
    expect(problems).toEqual(['assistant.agents[0].maxRetries: must be a whole number from 0 to 10', 'assistant.agents[2].prompts.documnet: not a task id or "classify"']);
    expect(settings.agents).toEqual([{ model: 'b', maxRetries: 2, prompts: { document: 'D {{code}}' } }]);
    expect(settings.user.name).toBe('Ada');
    expect(resolveSettings({ user: { name: 'Ada' } }, { user: { name: ' ' } }).settings.user.name).toBe('Ada');
  });
});
