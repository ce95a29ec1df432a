// The settings schema the VS Code extension publishes and the server's own validation agree: for every setting, a value is reported as bad, naming its key, exactly when the schema rejects it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../protocol/src/index.js';
import { resolveSettings } from '../../server/src/config/settings.js';
import { REPO_ROOT } from '../support/lspClient.js';
import { prng, testSeed } from '../support/rawLsp.js';

interface PropertySchema {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  items?: { type?: string };
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'clients', 'vscode', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, PropertySchema> } } };
const properties = Object.entries(manifest.contributes.configuration.properties).filter(([key]) => key.startsWith('assistant.'));

/** The part of JSON Schema the manifest uses, applied to one value. */
function schemaAccepts(schema: PropertySchema, value: unknown): boolean {
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string' || value.length < (schema.minLength ?? 0)) return false;
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false;
      break;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return false;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return false;
      break;
    case 'array':
      if (!Array.isArray(value)) return false;
      if (schema.items?.type === 'string' && !value.every((v) => typeof v === 'string')) return false;
      break;
    default:
      return false;
  }
  if (schema.enum && !schema.enum.includes(value)) return false;
  if (typeof value === 'number' && ((schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum))) return false;
  return true;
}

/** `{ assistant: { a: { b: value } } }` for the key `assistant.a.b`. */
function nested(key: string, value: unknown): unknown {
  return key.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
}

/** Values around each constraint, plus seeded random ones of every JSON type. */
function candidates(schema: PropertySchema, r: ReturnType<typeof prng>): unknown[] {
  const values: unknown[] = [null, true, false, 'text', '', '  ', ' x ', 0, -1, 1.5, 7, 1e9, [], ['a'], [1], {}];
  if (schema.enum) values.push(...schema.enum, `${String(schema.enum[0])}-not`);
  for (const bound of [schema.minimum, schema.maximum]) if (bound !== undefined) values.push(bound, bound - 1, bound + 1, bound + 0.5);
  for (let i = 0; i < 20; i++) values.push(r.pick([r.int(200) - 50, r.next() * 10, `s${r.int(9)}`, r.chance(0.5), [r.int(3)], null]));
  return values;
}

describe('settings schema', () => {
  it('covers every setting of the server', () => {
    const declared = new Set(properties.map(([key]) => key.split('.')[1]));
    expect([...declared].sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
  });

  it.each(properties.filter(([key]) => key !== 'assistant.agents'))('%s: the server reports a value as bad exactly when the schema rejects it', (key, schema) => {
    const r = prng(testSeed(key.length * 7919));
    for (const value of candidates(schema, r)) {
      const { problems } = resolveSettings(nested(key, value));
      const named = problems.filter((p) => p.startsWith(`${key}:`) || p.startsWith(`${key} `));
      // An empty user name means "the OS user": accepted by both.
      expect(named.length === 0, `${key} = ${JSON.stringify(value)}: schema ${schemaAccepts(schema, value) ? 'accepts' : 'rejects'}, server says ${JSON.stringify(problems)}`).toBe(schemaAccepts(schema, value));
    }
  });

  it('a bad value is replaced by its default and disables nothing else', () => {
    const { settings, problems } = resolveSettings({ assistant: { orchestrator: { maxAttempts: 2.5, agentTimeoutMs: 5_000 }, pipelines: { toolRounds: -1, classRounds: 2 } } });
    expect(problems).toEqual(['assistant.orchestrator.maxAttempts: must be a whole number from 1 to 10 (using 3)', 'assistant.pipelines.toolRounds: must be a whole number from 0 to 50 (using 6)']);
    expect(settings.orchestrator).toMatchObject({ maxAttempts: DEFAULT_SETTINGS.orchestrator.maxAttempts, agentTimeoutMs: 5_000 });
    expect(settings.pipelines).toMatchObject({ toolRounds: DEFAULT_SETTINGS.pipelines.toolRounds, classRounds: 2 });
  });
});
