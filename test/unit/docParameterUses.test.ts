// Unit tests of what the offline Document agent says a function does with each parameter, on shapes taken from real packages.
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { parameterUses } from '../../server/src/agents/offline/docParameterUses.js';
import type { FunctionLike } from '../../server/src/agents/offline/declarationLocator.js';

/** The `@param` texts of the first function, method or constructor named `name` in `text`. */
function usesOf(text: string, name: string, locals: string[] = []): Record<string, string> {
  const root = ts.createSourceFile('fixture.ts', text, ts.ScriptTarget.ES2022, true);
  let found: FunctionLike | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name?.getText(root) === name) found = node;
    else if (ts.isConstructorDeclaration(node) && name === 'constructor') found = node;
    else if (ts.isVariableDeclaration(node) && node.name.getText(root) === name && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) found = node.initializer;
    ts.forEachChild(node, visit);
  };
  visit(root);
  if (!found) throw new Error(`no function ${name}`);
  const bindings = found.parameters.flatMap((parameter) => (ts.isIdentifier(parameter.name) ? [{ tagName: parameter.name.text, variable: parameter.name.text }] : []));
  return Object.fromEntries([...parameterUses(found, root, bindings, new Set(locals))].map(([tag, text]) => [tag, text.text]));
}

describe('parameterUses', () => {
  it('says which call a parameter is passed to, as which option, and which constructor gets it', () => {
    const text = [
      'export function _uuidv6<T>(Class: new (def: object) => T, params?: string | { message?: string }): T {',
      '  return new Class({ type: "string", format: "uuid", ...util.normalizeParams(params) });',
      '}',
      'export function _lt(value: number, params?: string): object {',
      '  return new checks.$ZodCheckLessThan({ check: "less_than", value, inclusive: false, ...util.normalizeParams(params) });',
      '}',
      'export function setQueryDefaults(queryKey: string[], options: object): void {',
      '  this.#queryDefaults.set(hashKey(queryKey), { queryKey, defaultOptions: options });',
      '}',
    ].join('\n');
    expect(usesOf(text, '_uuidv6')).toEqual({ Class: 'Instantiated with `new`.', params: 'Passed to `util.normalizeParams`.' });
    expect(usesOf(text, '_lt')).toEqual({ value: 'Passed to the `checks.$ZodCheckLessThan` constructor.', params: 'Passed to `util.normalizeParams`.' });
    expect(usesOf(text, 'setQueryDefaults')).toEqual({ queryKey: 'Passed to `hashKey` and `this.#queryDefaults.set`.', options: 'Passed to `this.#queryDefaults.set` (as `defaultOptions`).' });
  });

  it('says which members are read, which methods called, which fields it is stored in', () => {
    const text = [
      'class ParseInputLazyPath {',
      '  constructor(parent: Ctx, value: unknown, path: string[], key: string) {',
      '    this.parent = parent;',
      '    this.data = value;',
      '    this._path = path;',
      '    this._key = key;',
      '  }',
      '}',
      'export function matchMutation(filters: Filters, mutation: Mutation): boolean {',
      '  const { exact, status, predicate, mutationKey } = filters;',
      '  if (mutationKey) {',
      '    if (!mutation.options.mutationKey) return false;',
      '  }',
      '  if (status && mutation.state.status !== status) return false;',
      '  return !predicate || predicate(mutation);',
      '}',
    ].join('\n');
    expect(usesOf(text, 'constructor')).toEqual({ parent: 'Stored in `this.parent`.', value: 'Stored in `this.data`.', path: 'Stored in `this._path`.', key: 'Stored in `this._key`.' });
    // Reading an options object's members tells what it is used for, but is no evidence a comment is worth proposing.
    const root = ts.createSourceFile('fixture.ts', text, ts.ScriptTarget.ES2022, true);
    const matcher = root.statements.find(ts.isFunctionDeclaration)!;
    expect(parameterUses(matcher, root, [{ tagName: 'filters', variable: 'filters' }], new Set()).get('filters')).toEqual({ text: 'Its `exact`, `status`, `predicate` and `mutationKey` are read.', telling: '' });
    // `mutation` is read only on some paths: said with `may`, never as if always; `predicate` is the body's own variable.
    expect(usesOf(text, 'matchMutation')).toEqual({ filters: 'Its `exact`, `status`, `predicate` and `mutationKey` are read.', mutation: 'Its `options` and `state` may be read.' });
  });

  it('says under which condition something happens, after an early return, in a callback, or in the function returned', () => {
    const text = [
      'export function replaceData(prevData: unknown, data: unknown, options: { structuralSharing: boolean }): unknown {',
      '  if (options.structuralSharing === false) return data;',
      '  return replaceEqualDeep(prevData, data);',
      '}',
      'export function exclude(values: string[], params?: object): object {',
      '  return ZodEnum.create(this.options.filter((opt) => !values.includes(opt)), params);',
      '}',
      'export const withLogging = (label: string) => (fn: () => void) => () => {',
      '  logger.info(label);',
      '  fn();',
      '};',
    ].join('\n');
    expect(usesOf(text, 'replaceData')).toEqual({
      prevData: 'Passed to `replaceEqualDeep` unless `options.structuralSharing === false`.',
      data: 'Returned unchanged when `options.structuralSharing === false`. Passed to `replaceEqualDeep` unless `options.structuralSharing === false`.',
      options: 'Its `structuralSharing` is read.',
    });
    expect(usesOf(text, 'exclude')).toEqual({ values: 'Its `includes` method is called in the callback given to `this.options.filter`.', params: 'Passed to `ZodEnum.create`.' });
    expect(usesOf(text, 'withLogging')).toEqual({ label: 'Passed to `logger.info` by the function it returns.' });
  });

  it('reads a type test of the parameter itself as the condition, and says what stands in for a nullish value', () => {
    const text = [
      'export function functionalUpdate<T>(updater: T | ((input: T) => T), input: T): T {',
      "  return typeof updater === 'function' ? (updater as (input: T) => T)(input) : updater;",
      '}',
      'export function hashKey(queryKey: unknown[], hashFn?: (key: unknown[]) => string): string {',
      '  const hash = hashFn ?? defaultHash;',
      '  return hash(queryKey);',
      '}',
    ].join('\n');
    expect(usesOf(text, 'functionalUpdate', [])).toEqual({ updater: 'Returned unchanged when it is not a function. Called when it is a function.', input: "Passed to `updater` when `typeof updater === 'function'`." });
    expect(usesOf(text, 'hashKey', ['hash'])).toEqual({ hashFn: '`defaultHash` is used in its place when it is `null` or `undefined`.' });
  });

  it('names nothing local to the body, and says nothing of a parameter shadowed or reassigned there', () => {
    const text = [
      'export function handle(result: Result, input: Input, limit: number, retries: number): void {',
      '  const found = lookup(input);',
      '  const local = (value: Result) => value;',
      '  local(result);',
      '  if (limit > found.size) return;',
      '  [1, 2].forEach((input) => send(input));',
      '  retries = retries + 1;',
      '  report(retries);',
      '}',
    ].join('\n');
    // `result` goes only to a local function, `limit` is compared only with a local, `input` is shadowed in a callback,
    // `retries` is another value after its reassignment.
    expect(usesOf(text, 'handle', ['found', 'local'])).toEqual({});
  });
});
