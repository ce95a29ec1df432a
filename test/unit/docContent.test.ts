// Unit tests for the doc scenario's content metrics on small hand cases: restatement, agreement (ROUGE-L) and claims contradicted by the code.
import { describe, expect, it } from 'vitest';
import { Project, ts } from 'ts-morph';
import { addedWords, agreement, claimFacts, contentWords, contradictions, measureRestatement, rougeL, signatureTexts, signatureVocabulary, stem } from '../../server/src/eval/docContent.js';
import type { ClaimFacts } from '../../server/src/eval/docContent.js';
import { listDeclarations } from '../../server/src/repo/declarations.js';

let fileCounter = 0;

/** The signature vocabulary and claim facts of the declaration `name` in `code`, from a real checker. */
function analyse(code: string, name: string): { signature: Set<string>; claims: ClaimFacts } {
  const fileName = `/work/content${fileCounter++}.ts`;
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'] } });
  const sourceFile = project.createSourceFile(fileName, code);
  const checker = project.getProgram().compilerObject.getTypeChecker();
  const target = listDeclarations(fileName, code).find((d) => d.name === name);
  if (!target) throw new Error(`no declaration ${name}`);
  const claims = claimFacts(sourceFile.compilerNode, target, checker);
  if (!claims) throw new Error(`no claim facts for ${name}`);
  return { signature: signatureVocabulary(signatureTexts(sourceFile.compilerNode, target, checker)), claims };
}

const STALE = [
  'interface Query { state: { dataUpdatedAt: number } }',
  'export function isStaleByTime(query: Query, staleTime: number): boolean {',
  '  const age = Date.now() - query.state.dataUpdatedAt;',
  '  return age > staleTime;',
  '}',
].join('\n');

describe('words', () => {
  it('stems inflections to one form', () => {
    expect(['parse', 'parses', 'parsed', 'parsing'].map(stem)).toEqual(['pars', 'pars', 'pars', 'pars']);
    expect(['queries', 'query'].map(stem)).toEqual(['query', 'query']);
    expect(stem('stopped')).toBe(stem('stop'));
    expect(stem('status')).toBe('status');
  });

  it('keeps content words: identifiers split, stop words, filler and numbers dropped', () => {
    expect(contentWords('Computes the `prevData` of the 3 given queries.')).toEqual(['prev', 'data', 'query']);
    expect(contentWords('Returns `true` if successful, otherwise `false`.')).toEqual([]);
  });
});

describe('restatement', () => {
  it('finds that the generated comments the issue quotes add nothing to their signatures', () => {
    const { signature } = analyse(STALE, 'isStaleByTime');
    const generated = measureRestatement('/**\n * Checks whether the given stale time is stale by.\n *\n * @param query - The query.\n * @param staleTime - The stale time.\n * @returns `true` if the given stale time is stale by, otherwise `false`.\n */', signature);
    expect(generated).toMatchObject({ restates: true, summaryRestates: true, paramRestating: 1, returnsRestates: true });
  });

  it('finds what a human comment adds, unit by unit', () => {
    const { signature } = analyse(STALE, 'isStaleByTime');
    const human = measureRestatement('/**\n * Whether the data is older than the stale time.\n * @param query - The query.\n * @param staleTime - Milliseconds after which data goes stale.\n */', signature);
    expect(human.restates).toBe(false);
    expect(human.summaryRestates).toBe(false);
    expect(human.units.find((u) => u.kind === 'summary')?.added).toEqual(['data', 'older']);
    expect(human.paramRestating).toBe(0.5);
    expect(human.returnsRestates).toBeNull();
  });

  it('counts the checker\'s inferred return type among the signature\'s words', () => {
    const code = 'class ZodCodec { constructor(readonly from: string) {} }\nexport function stringToInt(name: string) {\n  const codec = new ZodCodec(name);\n  return codec;\n}\n';
    const { signature } = analyse(code, 'stringToInt');
    expect(addedWords('A codec.', signature)).toEqual([]);
    expect(addedWords('The string.', signature)).toEqual([]);
    expect(addedWords('A codec that parses integers.', signature)).toEqual(['pars', 'integer']);
  });

  it('counts a @throws condition from the body as added', () => {
    const { signature } = analyse(STALE, 'isStaleByTime');
    expect(measureRestatement('/**\n * @throws {RangeError} If `query.state.dataUpdatedAt < 0`.\n */', signature).restates).toBe(false);
    expect(measureRestatement('/** @internal */', signature).restates).toBeNull();
  });
});

describe('agreement', () => {
  it('is ROUGE-L F1 of the content words', () => {
    expect(rougeL(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(1);
    expect(rougeL(['a', 'b'], ['c', 'd'])).toBe(0);
    // LCS of (a b c d) and (a c e) is (a c): precision 2/4, recall 2/3.
    expect(rougeL(['a', 'b', 'c', 'd'], ['a', 'c', 'e'])).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 10);
    expect(rougeL([], ['a'])).toBe(0);
  });

  it('compares the prose of two comments, examples left out', () => {
    const human = '/**\n * Removes the query from the cache.\n * @example\n * ```ts\n * cache.remove(query)\n * ```\n */';
    expect(agreement('/** Removes the query from the cache. */', human)).toBe(1);
    expect(agreement('/** Computes the result. */', human)).toBe(0);
  });
});

describe('claims checked against the code', () => {
  it('flags a @param naming no parameter, but not a destructured property', () => {
    const { claims } = analyse('export function replaceData(prevData: number, { structural, mode }: { structural: boolean; mode: string }): number {\n  void structural; void mode;\n  return prevData;\n}\n', 'replaceData');
    expect(contradictions('/**\n * @param prevData - The previous data.\n * @param structural - Share structure.\n * @param mode - The mode.\n * @returns The data.\n */', claims)).toEqual([]);
    expect(contradictions('/**\n * @param prevData - The previous data.\n * @param options - Options.\n * @param extra - More.\n */', claims)).toEqual(['@param extra names no parameter']);
  });

  it('accepts the parameters of overloads on an implementation, and @returns on a generator', () => {
    const overloads = analyse('export function merge(a: number): number;\nexport function merge(a: number, scheduler: string): number;\nexport function merge(...args: unknown[]): number {\n  const n = args.length;\n  return n;\n}\n', 'merge').claims;
    expect(contradictions('/**\n * @param a - First.\n * @param scheduler - Where.\n * @param other - Nothing.\n */', overloads)).toEqual(['@param other names no parameter']);
    const optionalInOverload = analyse('export function pick(key: string, fallback?: string): string;\nexport function pick(key: string, fallback: string): string {\n  const v = key || fallback;\n  return v;\n}\n', 'pick').claims;
    expect(contradictions('/** @param fallback - Used instead. Optional. */', optionalInOverload)).toEqual([]);
    const generator = analyse('export function* count(limit: number) {\n  for (let i = 0; i < limit; i++) yield i;\n  return;\n}\n', 'count').claims;
    expect(contradictions('/** @returns The counted values. */', generator)).toEqual([]);
  });

  it('flags defaults and optionality the signature does not have', () => {
    const { claims } = analyse('export function retry(count: number, delayMs = 100): number {\n  const total = count * delayMs;\n  return total;\n}\n', 'retry');
    expect(contradictions('/**\n * @param count - How often. Optional.\n * @param delayMs - The delay. Defaults to `200`.\n */', claims)).toEqual(['@param count calls a required parameter optional', '@param delayMs states a default the code does not have']);
    expect(contradictions('/**\n * @param count - How often.\n * @param delayMs - The delay. Defaults to `100`.\n */', claims)).toEqual([]);
  });

  it('flags a @returns that contradicts the return type', () => {
    const number = analyse('export function size(items: string[]): number {\n  const n = items.length;\n  return n;\n}\n', 'size').claims;
    expect(contradictions('/** @returns `true` if the list is empty, otherwise `false`. */', number)).toEqual(['@returns a boolean, but the function returns another type']);
    expect(contradictions('/** @returns A promise that resolves to the size. */', number)).toEqual(['@returns a promise, but the function does not return one']);
    expect(contradictions('/** @returns Nothing. */', number)).toEqual(['@returns nothing, but the function returns a value']);
    expect(contradictions('/** @returns The number of items. */', number)).toEqual([]);
    const nothing = analyse('export function log(message: string): void {\n  console.log(message);\n  return;\n}\n', 'log').claims;
    expect(contradictions('/** @returns The message. */', nothing)).toEqual(['@returns a value the function does not return']);
  });

  it('flags a @throws condition naming a local variable', () => {
    const code = 'export function parse(text: string): number {\n  const value = Number(text);\n  if (Number.isNaN(value)) throw new TypeError(text);\n  return value;\n}\n';
    const { claims } = analyse(code, 'parse');
    expect([...claims.locals]).toEqual(['value']);
    expect(contradictions('/** @throws {TypeError} If `Number.isNaN(value)`. */', claims)).toEqual(['@throws names the local value']);
    expect(contradictions('/** @throws {TypeError} If `text` is not a number. */', claims)).toEqual([]);
    expect(contradictions('/** @throws {TypeError} If `this.value` is not a number. */', claims)).toEqual([]);
  });

  it('flags a @throws on a function that runs nothing that can throw', () => {
    const pure = analyse('export function clamp(n: number, max: number): number {\n  const run = () => { throw new Error(); };\n  void run;\n  return n > max ? max : n;\n}\n', 'clamp').claims;
    expect(contradictions('/** @throws {RangeError} If n is too large. */', pure)).toEqual(['@throws on a function that runs nothing that can throw']);
    const calling = analyse('export function size(text: string): number {\n  return JSON.parse(text).length;\n}\n', 'size').claims;
    expect(contradictions('/** @throws {SyntaxError} If the text is no JSON. */', calling)).toEqual([]);
  });
});
