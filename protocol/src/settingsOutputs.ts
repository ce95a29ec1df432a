// What the settings declaration generates, rendered in memory: VS Code's settings schema in the extension's manifest, the settings table of docs/protocol.md and the defaults in Helix's example configuration (`npm run generate` writes them; a test compares them with the files).
import { DEFAULT_SETTINGS, SETTINGS, SETTINGS_SECTION } from './settings.js';
import { declaredDefault, isPlainObject, settingEntries } from './settingsSchema.js';
import type { ObjectSetting, Setting, SettingEntry } from './settingsSchema.js';

/** A generated file: its path from the repository root and the text it should have. */
export interface GeneratedFile {
  path: string;
  text: string;
}

export const VSCODE_MANIFEST = 'clients/vscode/package.json';
export const PROTOCOL_DOC = 'docs/protocol.md';
export const HELIX_CONFIG = 'clients/helix/languages.toml';

/** The command that regenerates the files, for messages that find one stale. */
export const GENERATE_COMMAND = 'npm run generate';

const DOC_BEGIN = `<!-- Generated from protocol/src/settings.ts by \`${GENERATE_COMMAND}\`: edit the declaration there, not this table. -->`;
const DOC_END = '<!-- End of the generated settings table. -->';
const TOML_BEGIN = `# Every default, generated from protocol/src/settings.ts by \`${GENERATE_COMMAND}\` (model agents: the example below).`;
const TOML_END = '# End of the generated defaults.';

/** Every generated file as it should read, given a way to read the current files (whose hand-written parts are kept). */
export function generateSettingsFiles(read: (path: string) => string): GeneratedFile[] {
  return [
    { path: VSCODE_MANIFEST, text: vscodeManifest(read(VSCODE_MANIFEST)) },
    { path: PROTOCOL_DOC, text: replaceBetween(read(PROTOCOL_DOC), DOC_BEGIN, DOC_END, settingsTable(), PROTOCOL_DOC) },
    { path: HELIX_CONFIG, text: replaceBetween(read(HELIX_CONFIG), TOML_BEGIN, TOML_END, tomlDefaults(), HELIX_CONFIG) },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// VS Code: `contributes.configuration.properties` and the settings an untrusted workspace may not set.

type Json = Record<string, unknown>;

/** The JSON Schema of one declared value, as VS Code reads it (`markdownDescription` for the descriptions). */
function jsonSchema(setting: Setting): Json {
  const description = setting.description === undefined ? {} : { markdownDescription: setting.description };
  switch (setting.kind) {
    case 'boolean':
      return { type: 'boolean', ...description };
    case 'number':
      return { type: setting.whole ? 'integer' : 'number', minimum: setting.min, maximum: setting.max, ...description };
    case 'string': {
      const pattern = setting.nonBlank
        ? { minLength: 1, pattern: '\\S', patternErrorMessage: `Must be a non-empty ${setting.nonBlank}.` }
        : setting.url
          ? { pattern: '^https?://', patternErrorMessage: 'Must be an http or https URL.' }
          : {};
      return { type: 'string', ...pattern, ...description };
    }
    case 'enum':
      return { type: 'string', enum: setting.values, ...(setting.valueDescriptions ? { enumDescriptions: setting.valueDescriptions } : {}), ...description };
    case 'list':
      return { type: 'array', items: jsonSchema(setting.item), ...description };
    case 'map':
      return { type: 'object', propertyNames: { enum: setting.keys }, additionalProperties: jsonSchema(setting.value), ...description };
    case 'object': {
      const required = Object.entries(setting.fields).filter(([, field]) => field.required !== undefined).map(([key]) => key);
      const properties = Object.fromEntries(Object.entries(setting.fields).map(([key, field]) => [key, jsonSchema(field)]));
      const oneOf = setting.oneRequired ? { anyOf: setting.oneRequired.fields.map((key) => ({ required: [key] })) } : {};
      return { type: 'object', ...(required.length ? { required } : {}), ...oneOf, additionalProperties: false, properties, ...description };
    }
  }
}

/** One contributed setting: its schema with the default VS Code shows (a string without one shows empty). */
function contributedProperty({ setting }: SettingEntry): Json {
  const { markdownDescription, ...schema } = jsonSchema(setting);
  const fallback = setting.kind === 'string' ? '' : undefined;
  return { ...schema, default: declaredDefault(setting) ?? fallback, markdownDescription };
}

/**
 * The manifest with every `assistant.*` setting contributed from the declaration, ahead of the extension's own
 * `assistantLs.*` ones (kept as written), and the restricted ones listed for untrusted workspaces.
 */
export function vscodeManifest(text: string): string {
  const manifest = JSON.parse(text) as { contributes: { configuration: { properties: Json } }; capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } };
  const ours = (key: string): boolean => key.startsWith(`${SETTINGS_SECTION}.`);
  const entries = settingEntries(SETTINGS);
  const configuration = manifest.contributes.configuration;
  configuration.properties = Object.fromEntries([
    ...entries.map((entry) => [`${SETTINGS_SECTION}.${entry.path}`, contributedProperty(entry)]),
    ...Object.entries(configuration.properties).filter(([key]) => !ours(key)),
  ]);
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  untrusted.restrictedConfigurations = [
    ...untrusted.restrictedConfigurations.filter((key) => !ours(key)),
    ...entries.filter((entry) => entry.setting.restricted).map((entry) => `${SETTINGS_SECTION}.${entry.path}`),
  ];
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// docs/protocol.md: one row per setting, the fields of a list's objects (`agents[].model`) below their list.

/** `"a" or "b"`, `"a", "b" or "c"`, each in code quotes. */
function alternatives(values: readonly string[]): string {
  const quoted = values.map((v) => `\`${v}\``);
  return quoted.length === 1 ? (quoted[0] as string) : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] as string}`;
}

function typeText(setting: Setting): string {
  const required = setting.required !== undefined ? ', required' : '';
  switch (setting.kind) {
    case 'boolean':
      return `boolean${required}`;
    case 'number':
      return `${setting.whole ? 'whole number' : 'number'}, ${setting.min}–${setting.max}${required}`;
    case 'string':
      return `${setting.nonBlank ? `non-empty ${setting.nonBlank}` : setting.url ? 'http or https URL' : 'string'}${required}`;
    case 'enum':
      return `${alternatives(setting.values)}${required}`;
    case 'list':
      return `list of ${setting.noun}${required}`;
    case 'map':
      return `object mapping ${setting.noun}${required}`;
    case 'object':
      return `object${required}`;
  }
}

/** A table cell: pipes escaped, so a description cannot split its row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function row(key: string, setting: Setting): string {
  const value = declaredDefault(setting);
  const byDefault = value === undefined ? '' : `\`${JSON.stringify(value)}\``;
  return `| \`${key}\` | ${cell(typeText(setting))} | ${byDefault} | ${cell(setting.description ?? '')} |`;
}

/** The settings table, between its markers. */
export function settingsTable(): string {
  const rows = settingEntries(SETTINGS).flatMap(({ path, setting }) => {
    const item = setting.kind === 'list' && setting.item.kind === 'object' ? (setting.item as ObjectSetting) : undefined;
    const fields = item ? Object.entries(item.fields).map(([key, field]) => row(`${path}[].${key}`, field)) : [];
    return [row(path, setting), ...fields];
  });
  return ['| Key | Type | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// clients/helix/languages.toml: the defaults, one `key = value` line per top-level setting.

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A value in TOML: JSON spells strings, numbers and booleans as TOML does; objects become inline tables. */
function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (isPlainObject(value)) return `{ ${Object.entries(value).map(([key, inner]) => `${tomlKey(key)} = ${tomlValue(inner)}`).join(', ')} }`;
  return JSON.stringify(value);
}

function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

/** Every top-level default but a list of objects (the model agents), which an example shows better than `[]`. */
export function tomlDefaults(): string {
  const defaults = DEFAULT_SETTINGS as unknown as Record<string, unknown>;
  return Object.entries(SETTINGS.fields)
    .filter(([, field]) => !(field.kind === 'list' && field.item.kind === 'object'))
    .map(([key]) => `${tomlKey(key)} = ${tomlValue(defaults[key])}`)
    .join('\n');
}

/** The text with what lies between the two marker lines replaced; an error naming the file when a marker is missing. */
export function replaceBetween(text: string, begin: string, end: string, content: string, file: string): string {
  const start = text.indexOf(`${begin}\n`);
  const stop = text.indexOf(`\n${end}`, start);
  if (start < 0 || stop < 0) throw new Error(`${file}: the lines "${begin}" and "${end}" mark where the generated text goes; put them back`);
  return `${text.slice(0, start + begin.length + 1)}${content}${text.slice(stop)}`;
}
