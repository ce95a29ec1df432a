// Resolves the effective settings from defaults, initializationOptions and workspace/configuration, checking each value against its declaration in protocol/ and reporting readable problems.
import { DEFAULT_SETTINGS, SETTINGS, SETTINGS_SECTION, isPlainObject } from '../protocol.js';
import type { AssistantSettings, EnumSetting, ListSetting, MapSetting, NumberSetting, ObjectSetting, Setting, StringSetting } from '../protocol.js';

export interface ResolvedSettings {
  settings: AssistantSettings;
  /** Problems found, each naming the bad key; the bad value is ignored and its default used. */
  problems: string[];
}

/** What a check answers for a value it refuses, and for a blank that leaves the setting as it was. */
const REFUSED = Symbol('refused');
const UNSET = Symbol('unset');

/**
 * Merges the layers (later wins) and validates each key: a bad value is reported and replaced by
 * the value of the layer below, so one mistake disables only what it configures.
 */
export function resolveSettings(...layers: unknown[]): ResolvedSettings {
  const found: { problems: string[]; layer: number }[] = [];
  const objects: Record<string, unknown>[] = [];
  const settings = structuredClone(DEFAULT_SETTINGS) as AssistantSettings & Record<string, unknown>;
  for (const raw of layers) {
    if (raw === undefined || raw === null) continue;
    const problems: string[] = [];
    found.push({ problems, layer: objects.length });
    if (!isPlainObject(raw)) {
      problems.push(`${SETTINGS_SECTION}: settings must be an object`);
      continue;
    }
    const layer = isPlainObject(raw[SETTINGS_SECTION]) ? raw[SETTINGS_SECTION] : raw;
    objects.push(layer);
    mergeObject(SETTINGS, layer, settings, SETTINGS_SECTION, problems, true);
  }
  // A bad value a later layer replaces is no problem any more: VS Code, say, sends the settings of its start as
  // initializationOptions and the current ones through workspace/configuration, and a fixed value must not be
  // reported until the next restart.
  const problems = found.flatMap(({ problems: own, layer }) => own.filter((problem) => !objects.slice(layer + 1).some((later) => replaces(later, problem))));
  return { settings, problems };
}

/**
 * Whether `layer` gives the setting a problem names (`assistant.orchestrator.agentTimeoutMs: …`): the value there,
 * or a value at a part of its path that is not merged field by field (a list, a map, a refused object).
 */
function replaces(layer: Record<string, unknown>, problem: string): boolean {
  const path = problem.slice(0, problem.indexOf(': ')).split('.').slice(1);
  if (path.length === 0) return true;
  let declaration: ObjectSetting = SETTINGS;
  let value: Record<string, unknown> = layer;
  for (const segment of path) {
    const key = segment.replace(/\[\d+\]$/, '');
    const inner = value[key];
    if (inner === undefined) return false;
    const field = Object.hasOwn(declaration.fields, key) ? declaration.fields[key] : undefined;
    if (field?.kind !== 'object' || !isPlainObject(inner) || key !== segment) return true;
    declaration = field;
    value = inner;
  }
  return true;
}

/**
 * Sets each field of `value` that its declaration accepts on `target`, field by field, so a bad field leaves the
 * others of the same object applied. Only the top level reports unknown keys: below it, unknown keys are ignored.
 */
function mergeObject(declaration: ObjectSetting, value: Record<string, unknown>, target: Record<string, unknown>, path: string, problems: string[], reportUnknown: boolean): void {
  for (const [key, inner] of Object.entries(value)) {
    // Own fields only: `constructor` or `toString` is an unknown key, not Object.prototype's.
    if (!Object.hasOwn(declaration.fields, key)) {
      if (reportUnknown) problems.push(`${path}.${key}: unknown setting`);
      continue;
    }
    const field = declaration.fields[key] as Setting;
    if (inner === undefined) continue;
    const fieldPath = `${path}.${key}`;
    if (field.kind === 'object') {
      const nested = (target[key] ??= {}) as Record<string, unknown>;
      if (isPlainObject(inner)) mergeObject(field, inner, nested, fieldPath, problems, false);
      else if (field.shorthand) mergeObject(field, { [field.shorthand]: inner }, nested, fieldPath, problems, false);
      else problems.push(`${fieldPath}: must be an object`);
      continue;
    }
    const checked = check(field, inner, fieldPath, problems);
    if (checked !== REFUSED && checked !== UNSET) target[key] = checked;
    // A refused value leaves the one below it (another layer's, or the default): the problem says which, so the user
    // knows what the server does meanwhile.
    else if (checked === REFUSED && isScalar(target[key])) problems.push(`${problems.pop()} (using ${JSON.stringify(target[key])})`);
  }
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** The value as the setting takes it, or REFUSED after pushing one problem per bad part, naming its path. */
function check(setting: Setting, value: unknown, path: string, problems: string[]): unknown {
  switch (setting.kind) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return refuse(problems, `${path}: must be true or false`);
    case 'number':
      return checkNumber(setting, value, path, problems);
    case 'string':
      return checkString(setting, value, path, problems);
    case 'enum':
      if (typeof value === 'string' && setting.values.includes(value)) return value;
      return refuse(problems, `${path}: must be ${alternatives(setting)}`);
    case 'list':
      return checkList(setting, value, path, problems);
    case 'map':
      return checkMap(setting, value, path, problems);
    case 'object':
      return checkObject(setting, value, path, problems);
  }
}

function refuse(problems: string[], problem: string): typeof REFUSED {
  problems.push(problem);
  return REFUSED;
}

function checkNumber(setting: NumberSetting, value: unknown, path: string, problems: string[]): unknown {
  const { min, max, whole } = setting;
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!whole || Number.isInteger(value))) return value;
  return refuse(problems, `${path}: must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`);
}

function checkString(setting: StringSetting, value: unknown, path: string, problems: string[]): unknown {
  const what = setting.nonBlank ? `a non-empty ${setting.nonBlank}` : setting.url ? 'an http or https URL' : 'a string';
  if (typeof value !== 'string') return refuse(problems, `${path}: must be ${what}`);
  // An empty user name means "not set": the OS user is recorded instead.
  if (setting.blankIsUnset) return value.trim() === '' ? UNSET : value.trim();
  if (setting.nonBlank && value.trim() === '') return refuse(problems, `${path}: must be ${what}`);
  if (setting.url && !isHttpUrl(value)) return refuse(problems, `${path}: must be ${what}`);
  return value;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** `"a" or "b"`, `"a", "b" or "c"`. */
function alternatives(setting: EnumSetting): string {
  const quoted = setting.values.map((v) => JSON.stringify(v));
  return quoted.length === 1 ? (quoted[0] as string) : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] as string}`;
}

/**
 * A list of objects keeps the items that pass, each bad one reported by its index and left out (one broken agent
 * does not disable the others); a list of plain values is taken whole or not at all.
 */
function checkList(setting: ListSetting, value: unknown, path: string, problems: string[]): unknown {
  const refusal = `${path}: must be a list of ${setting.noun}`;
  if (!Array.isArray(value)) return refuse(problems, refusal);
  if (setting.item.kind === 'object') {
    return value.flatMap((item, i) => {
      const checked = check(setting.item, item, `${path}[${i}]`, problems);
      return checked === REFUSED ? [] : [checked];
    });
  }
  const quiet: string[] = [];
  const items = value.map((item) => check(setting.item, item, path, quiet));
  if (items.some((item) => item === REFUSED || item === UNSET)) return refuse(problems, refusal);
  return items;
}

function checkMap(setting: MapSetting, value: unknown, path: string, problems: string[]): unknown {
  if (!isPlainObject(value)) return refuse(problems, `${path}: must map ${setting.noun}`);
  const before = problems.length;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!(setting.keys as readonly string[]).includes(key)) {
      problems.push(`${path}.${key}: not ${setting.keyNoun}`);
      continue;
    }
    const checked = check(setting.value, inner, `${path}.${key}`, problems);
    if (checked !== REFUSED && checked !== UNSET) out[key] = checked;
  }
  return problems.length > before ? REFUSED : out;
}

/** An object inside a list (a model agent): refused whole when any field is bad or a required one is missing. */
function checkObject(setting: ObjectSetting, value: unknown, path: string, problems: string[]): unknown {
  const required = Object.entries(setting.fields).filter(([, field]) => field.required !== undefined);
  if (!isPlainObject(value)) {
    const wanted = [...required.map(([key]) => `a "${key}"`), ...(setting.oneRequired ? [setting.oneRequired.fields.map((key) => `a "${key}"`).join(' or ')] : [])];
    const least = wanted.length ? ` with at least ${wanted.join(' and ')}` : '';
    return refuse(problems, `${path}: must be an object${least}`);
  }
  const before = problems.length;
  for (const [key, field] of required) {
    if (value[key] === undefined) problems.push(`${path}.${key}: required, ${field.required as string}`);
  }
  const oneOf = setting.oneRequired;
  if (oneOf && oneOf.fields.every((key) => value[key] === undefined)) problems.push(`${path}.${oneOf.fields[0]}: required unless ${oneOf.fields.slice(1).map((key) => `"${key}"`).join(' or ')} is given, ${oneOf.reason}`);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(setting.fields)) {
    if (value[key] === undefined) continue;
    const checked = check(field, value[key], `${path}.${key}`, problems);
    if (checked !== REFUSED && checked !== UNSET) out[key] = checked;
  }
  return problems.length > before ? REFUSED : out;
}
