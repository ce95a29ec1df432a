// Unit tests for JSDoc parsing/rendering and for extracting a doc comment from a model's answer.
import { describe, expect, it } from 'vitest';
import { indentBlock, parseJsDoc, renderJsDoc, renderTag, unindentBlock } from '../../server/src/edits/jsdoc.js';
import { extractDocComment } from '../../server/src/edits/docCommentExtract.js';

describe('parseJsDoc', () => {
  it('parses a single-line block', () => {
    expect(parseJsDoc('/** Loads the config. */')).toEqual({ description: 'Loads the config.', tags: [] });
  });

  it('parses a single-line block holding only a tag', () => {
    const block = parseJsDoc('/** @type {number} */');
    expect(block.description).toBe('');
    expect(block.tags).toEqual([{ tag: 'type', type: 'number', text: '', raw: '@type {number}' }]);
  });

  it('parses a multi-line, indented block with every kind of tag', () => {
    const block = parseJsDoc(
      [
        '    /**',
        '     * Loads the config.',
        '     *',
        '     * Reads it from disk.',
        '     * @template T - The item type.',
        '     * @param {string} path - The file',
        '     *   to read.',
        '     * @param timeout how long to wait',
        '     * @param [retries=3] - How often to retry.',
        '     * @param {{ a: { b: number } }} [options] The options.',
        '     * @returns {Promise<Config>} The config.',
        '     * @throws {RangeError} If negative.',
        '     * @deprecated use load2',
        '     */',
      ].join('\n'),
    );
    expect(block.description).toBe('Loads the config.\n\nReads it from disk.');
    expect(block.tags.map((tag) => tag.tag)).toEqual(['template', 'param', 'param', 'param', 'param', 'returns', 'throws', 'deprecated']);
    expect(block.tags[0]).toMatchObject({ name: 'T', text: 'The item type.' });
    expect(block.tags[1]).toMatchObject({ type: 'string', name: 'path', text: 'The file\n  to read.', raw: '@param {string} path - The file\n  to read.' });
    expect(block.tags[2]).toMatchObject({ name: 'timeout', text: 'how long to wait' });
    expect(block.tags[2]?.type).toBeUndefined();
    expect(block.tags[3]).toMatchObject({ name: 'retries', optional: true, defaultValue: '3', text: 'How often to retry.' });
    expect(block.tags[4]).toMatchObject({ type: '{ a: { b: number } }', name: 'options', optional: true, text: 'The options.' });
    expect(block.tags[5]).toMatchObject({ type: 'Promise<Config>', text: 'The config.' });
    expect(block.tags[5]?.name).toBeUndefined();
    expect(block.tags[6]).toMatchObject({ type: 'RangeError', text: 'If negative.' });
    expect(block.tags[7]).toMatchObject({ text: 'use load2', raw: '@deprecated use load2' });
  });

  it('does not start tags inside an example code fence', () => {
    const block = parseJsDoc(['/**', ' * Runs.', ' * @example', ' * ```ts', ' * @decorator()', ' * class A {}', ' * ```', ' */'].join('\n'));
    expect(block.tags).toHaveLength(1);
    expect(block.tags[0]?.text).toContain('@decorator()');
  });
});

describe('renderJsDoc', () => {
  it('renders a description, a blank line and tags, unindented', () => {
    const text = renderJsDoc({ description: 'Loads it.', tags: [{ tag: 'returns', text: 'The config.', raw: '' }] });
    expect(text).toBe('/**\n * Loads it.\n *\n * @returns The config.\n */');
  });

  it('round-trips a parsed block and keeps raw tag text verbatim', () => {
    const original = [
      '/**',
      ' * Loads the config.',
      ' *',
      ' * @param   path    where it is',
      ' * @param {number} [retries=3] - How often.',
      ' * @throws {RangeError} If',
      ' *   negative.',
      ' * @custom anything goes',
      ' */',
    ].join('\n');
    expect(renderJsDoc(parseJsDoc(original))).toBe(original);
    expect(renderJsDoc(parseJsDoc(renderJsDoc(parseJsDoc(original))))).toBe(original);
  });

  it('re-renders a tag from its fields once they change', () => {
    const block = parseJsDoc('/**\n * @param   path    where it is\n */');
    const tag = block.tags[0];
    if (!tag) throw new Error('no tag');
    tag.text = 'The file to read.';
    expect(renderJsDoc(block)).toBe('/**\n * @param path - The file to read.\n */');
  });

  it('never emits a comment end inside the block', () => {
    const text = renderJsDoc({ description: 'Matches src/**/*.ts files */ here.', tags: [{ tag: 'param', name: 'glob', text: 'A glob like a/*/b.', raw: '' }] });
    expect(text.indexOf('*/')).toBe(text.length - 2);
    expect(text).toContain('*\\/');
  });

  it('renders optional names and the hyphen style', () => {
    expect(renderTag({ tag: 'param', type: 'number', name: 'retries', optional: true, defaultValue: '3', text: 'How often.' })).toBe('@param {number} [retries=3] - How often.');
    expect(renderTag({ tag: 'param', name: 'path', text: 'The path.' }, { hyphen: false })).toBe('@param path The path.');
    expect(renderTag({ tag: 'throws', type: 'Error', text: 'If bad.' })).toBe('@throws {Error} If bad.');
  });
});

describe('indentBlock and unindentBlock', () => {
  it('indents every line and ends with a newline', () => {
    expect(indentBlock('/**\n * Hi.\n */', '  ')).toBe('  /**\n   * Hi.\n   */\n');
  });

  it('un-indents a comment taken from source byte-for-byte', () => {
    const block = '/**\n * Hi.\n */';
    expect(unindentBlock('/**\n     * Hi.\n     */', '    ')).toBe(block);
    expect(unindentBlock('/**\n\t * Hi.\n\t */')).toBe(block);
  });
});

describe('extractDocComment', () => {
  const expectNormalised = (result: string | undefined): string => {
    expect(result).toBeDefined();
    const text = result ?? '';
    const lines = text.split('\n');
    expect(lines[0]).toBe('/**');
    expect(lines[lines.length - 1]).toBe(' */');
    for (const line of lines.slice(1, -1)) expect(line === ' *' || line.startsWith(' * ')).toBe(true);
    expect(text.indexOf('*/')).toBe(text.length - 2);
    return text;
  };

  it('normalises a bare JSDoc block', () => {
    const text = expectNormalised(extractDocComment('   /**\n     * Loads the config.\n     * @param path The path.\n     */'));
    expect(text).toBe('/**\n * Loads the config.\n *\n * @param path The path.\n */');
  });

  it('takes the block out of a code fence with any language tag', () => {
    for (const language of ['ts', 'typescript', 'javascript', 'js', '']) {
      const text = expectNormalised(extractDocComment('```' + language + '\n/**\n * Loads it.\n */\n```'));
      expect(text).toBe('/**\n * Loads it.\n */');
    }
  });

  it('takes the comment of an unfenced answer that ends with a stray fence (captured from Qwen2.5-Coder-0.5B)', () => {
    const captured = [
      '/**',
      ' * Calculates the sum of all numbers in a given array.',
      ' * ',
      ' * @param values - An array of numbers to be summed.',
      ' * @returns The sum of all numbers in the array.',
      ' */',
      'export function sumAll(values: readonly number[]): number {',
      '  let total = 0;',
      '  for (const value of values) total += value;',
      '  return total;',
      '}',
      '```',
    ].join('\n');
    const text = expectNormalised(extractDocComment(captured, 'sumAll'));
    expect(text).toContain(' * Calculates the sum of all numbers in a given array.');
    expect(text).not.toContain('function');
  });

  it('takes the comment from a fence surrounded by prose', () => {
    const answer = 'Here is the documentation:\n\n```ts\n/**\n * Loads the config.\n * @returns The config.\n */\nexport function load() {}\n```\n\nLet me know if you need more.';
    const text = expectNormalised(extractDocComment(answer, 'load'));
    expect(text).toBe('/**\n * Loads the config.\n *\n * @returns The config.\n */');
    expect(text).not.toContain('function');
  });

  it('picks the comment directly above the requested declaration', () => {
    const answer = [
      '```ts',
      '/** The cache. */',
      'class Cache {',
      '  /** Clears it. */',
      '  clear(): void {}',
      '',
      '  /**',
      '   * Loads an entry.',
      '   * @param key - The key.',
      '   */',
      '  @logged()',
      '  async load(key: string) {}',
      '}',
      '```',
    ].join('\n');
    expect(extractDocComment(answer, 'load')).toBe('/**\n * Loads an entry.\n *\n * @param key - The key.\n */');
    expect(extractDocComment(answer, 'clear')).toBe('/**\n * Clears it.\n */');
    expect(extractDocComment(answer)).toBe('/**\n * The cache.\n */');
    expect(extractDocComment(answer, 'missing')).toBe('/**\n * The cache.\n */');
  });

  it('converts a // comment series', () => {
    const text = extractDocComment('```ts\n// Loads the config.\n// Falls back to defaults.\nfunction load() {}\n```', 'load');
    expect(text).toBe('/**\n * Loads the config.\n * Falls back to defaults.\n */');
  });

  it('converts a /* */ block', () => {
    expect(extractDocComment('/*\n * Loads the config.\n */\nfunction load() {}')).toBe('/**\n * Loads the config.\n */');
  });

  it('wraps prose, keeping lines and @param-like lines as tags', () => {
    const text = expectNormalised(extractDocComment('Loads the configuration file.\nFalls back to defaults when missing.\n@param path The file to read.\n@returns The config.'));
    expect(text).toBe('/**\n * Loads the configuration file.\n * Falls back to defaults when missing.\n *\n * @param path The file to read.\n * @returns The config.\n */');
  });

  it('strips comment gutters from an answer without delimiters', () => {
    expect(extractDocComment(' * Loads it.\n * @param a - The a.')).toBe('/**\n * Loads it.\n *\n * @param a - The a.\n */');
  });

  it('returns undefined for code without a comment, or nothing at all', () => {
    expect(extractDocComment('function load(path: string) {\n  return read(path);\n}')).toBeUndefined();
    expect(extractDocComment('Here you go:\n```ts\nexport const x = 1;\nfunction f() {\n  return x;\n}\n```')).toBeUndefined();
    expect(extractDocComment('')).toBeUndefined();
    expect(extractDocComment('   \n\t\n')).toBeUndefined();
    expect(extractDocComment('/** */')).toBeUndefined();
    // A remark inside a body is not documentation.
    expect(extractDocComment('```ts\nexport function load() {\n  // read the file\n  return read();\n}\n```', 'load')).toBeUndefined();
  });

  it('neutralises a comment end inside prose', () => {
    const text = expectNormalised(extractDocComment('Matches files like src/**/*.ts */ and more.'));
    expect(text).toContain('*\\/');
  });

  it('handles an unterminated fence and an unterminated comment', () => {
    expect(extractDocComment('```ts\n/**\n * Loads it.\n */\nfunction load() {')).toBe('/**\n * Loads it.\n */');
    expect(extractDocComment('/**\n * Loads it.\n * @returns The config.')).toBe('/**\n * Loads it.\n *\n * @returns The config.\n */');
  });
});
