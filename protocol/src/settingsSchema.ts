// A small builder for declaring settings once: the TypeScript type, the defaults, the server's validation, VS Code's schema and the docs table all follow from one declaration.

/** What every declared value says about itself. */
interface Described {
  /** Markdown, shown in the editor's settings UI and in the docs table. */
  readonly description: string;
  /** In an untrusted workspace the workspace's own value is ignored: it chooses what runs or where code is sent. */
  readonly restricted?: boolean;
  /** Inside an object of a list: the object is refused without it; the text says what it is, for the problem. */
  readonly required?: string;
}

export interface BooleanSetting extends Described {
  readonly kind: 'boolean';
  readonly default?: boolean;
}

export interface NumberSetting extends Described {
  readonly kind: 'number';
  readonly default?: number;
  readonly min: number;
  readonly max: number;
  /** Counts (attempts, rounds, milliseconds of a delay): fractions are refused. */
  readonly whole?: boolean;
}

export interface StringSetting extends Described {
  readonly kind: 'string';
  readonly default?: string;
  /** Refuse a string of only whitespace; the text names what it is (`path` gives "must be a non-empty path"). */
  readonly nonBlank?: string;
  /** Only an http or https URL. */
  readonly url?: boolean;
  /** Surrounding whitespace is dropped, and a blank string leaves the setting as it was (unset). */
  readonly blankIsUnset?: boolean;
}

export interface EnumSetting<V extends string = string> extends Described {
  readonly kind: 'enum';
  readonly values: readonly V[];
  /** One line per value, in the order of `values`, for the editor's drop-down. */
  readonly valueDescriptions?: readonly string[];
  readonly default?: V;
}

export interface ListSetting<I extends Setting = Setting> extends Described {
  readonly kind: 'list';
  readonly item: I;
  /** What the items are, plural: "must be a list of <noun>". */
  readonly noun: string;
  readonly default?: readonly unknown[];
}

export interface MapSetting<K extends string = string, V extends Setting = Setting> extends Described {
  readonly kind: 'map';
  readonly keys: readonly K[];
  readonly value: V;
  /** What the keys are, singular with its article: "not <keyNoun>". */
  readonly keyNoun: string;
  /** What maps to what: "must map <noun>". */
  readonly noun: string;
}

export type Fields = { readonly [key: string]: Setting };

export interface ObjectSetting<F extends Fields = Fields> extends Omit<Described, 'description'> {
  readonly kind: 'object';
  readonly fields: F;
  readonly description?: string;
  /** A field a bare value of the object stands for (`annotations: false` for `annotations.enabled: false`). */
  readonly shorthand?: keyof F & string;
  /** Fields of which at least one must be given (an endpoint's `model` or a local `modelPath`), and what they are for. */
  readonly oneRequired?: { readonly fields: readonly (keyof F & string)[]; readonly reason: string };
}

export type Setting = BooleanSetting | NumberSetting | StringSetting | EnumSetting | ListSetting | MapSetting | ObjectSetting;

/** The TypeScript type of the values a declaration accepts. */
export type Infer<S> = S extends BooleanSetting
  ? boolean
  : S extends NumberSetting
    ? number
    : S extends StringSetting
      ? string
      : S extends EnumSetting<infer V>
        ? V
        : S extends ListSetting<infer I>
          ? Infer<I>[]
          : S extends MapSetting<infer K, infer V>
            ? { [P in K]?: Infer<V> }
            : S extends ObjectSetting<infer F>
              ? InferFields<F>
              : never;

/** A field is always present when it has a default, is required, or is an object (whose fields have the defaults). */
type Present<S> = S extends { kind: 'object' } ? true : S extends { default: unknown } ? true : S extends { required: string } ? true : false;
type PresentKeys<F> = { [K in keyof F]: Present<F[K]> extends true ? K : never }[keyof F];
type Flatten<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
type InferFields<F> = Flatten<{ -readonly [K in PresentKeys<F>]: Infer<F[K]> } & { -readonly [K in Exclude<keyof F, PresentKeys<F>>]?: Infer<F[K]> }>;

// The builders keep the literal shape of their options (a `default` given or not), which `Present` reads.

type Options<S extends Setting> = Omit<S, 'kind'>;

export function boolean<const O extends Options<BooleanSetting>>(options: O): O & { readonly kind: 'boolean' } {
  return { kind: 'boolean', ...options };
}

export function number<const O extends Options<NumberSetting>>(options: O): O & { readonly kind: 'number' } {
  return { kind: 'number', ...options };
}

export function string<const O extends Options<StringSetting>>(options: O): O & { readonly kind: 'string' } {
  return { kind: 'string', ...options };
}

export function oneOf<const V extends string, const O extends Omit<Options<EnumSetting<NoInfer<V>>>, 'values'>>(values: readonly V[], options: O): O & { readonly kind: 'enum'; readonly values: readonly V[] } {
  return { kind: 'enum', values, ...options };
}

export function list<I extends Setting, const O extends Omit<Options<ListSetting<I>>, 'item' | 'default'> & { readonly default?: readonly Infer<NoInfer<I>>[] }>(item: I, options: O): O & { readonly kind: 'list'; readonly item: I } {
  return { kind: 'list', item, ...options };
}

export function map<const K extends string, V extends Setting, const O extends Omit<Options<MapSetting<K, V>>, 'keys' | 'value'>>(keys: readonly K[], value: V, options: O): O & { readonly kind: 'map'; readonly keys: readonly K[]; readonly value: V } {
  return { kind: 'map', keys, value, ...options };
}

export function object<const F extends Fields, const O extends Omit<Options<ObjectSetting<F>>, 'fields'> = Record<never, never>>(fields: F, options?: O): O & { readonly kind: 'object'; readonly fields: F } {
  return { kind: 'object', fields, ...(options as O) };
}

/** The defaults of an object declaration: every field with a default, nested objects filled the same way. */
export function defaultsOf<F extends Fields>(declaration: ObjectSetting<F>): InferFields<F> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(declaration.fields)) {
    if (field.kind === 'object') out[key] = defaultsOf(field);
    else if (declaredDefault(field) !== undefined) out[key] = structuredClone(declaredDefault(field));
  }
  return out as InferFields<F>;
}

/** The default a declaration gives, if any (maps and objects have none of their own). */
export function declaredDefault(setting: Setting): unknown {
  return 'default' in setting ? setting.default : undefined;
}

/** One setting as editors show it: a dotted path below the section (`orchestrator.maxAttempts`) and its declaration. */
export interface SettingEntry {
  readonly path: string;
  readonly setting: Exclude<Setting, ObjectSetting>;
}

/** The settings an editor lists, in declaration order: every field that is not an object, by its dotted path. */
export function settingEntries(declaration: ObjectSetting, prefix = ''): SettingEntry[] {
  return Object.entries(declaration.fields).flatMap(([key, field]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return field.kind === 'object' ? settingEntries(field, path) : [{ path, setting: field }];
  });
}

/** Whether a value has the object shape settings use (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
