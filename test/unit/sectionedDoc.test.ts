// Unit tests of reading documentation a model wrote as markdown sections, and of keeping the whole part of one cut off at its token limit (shapes a local 0.5B model wrote on @tanstack/query-core).
import { describe, expect, it } from 'vitest';
import { parseJsDoc } from '../../server/src/edits/jsdoc.js';
import { salvageCutDoc, sectionedDocBlock } from '../../server/src/edits/sectionedDoc.js';

describe('sectionedDocBlock', () => {
  it('reads bold headings inside a block, with typed items, and leaves the behaviour out', () => {
    const answer = [
      '/**',
      ' * **Function `hashKey`:**',
      ' *',
      ' * **Purpose:** Converts a query key into a JSON string.',
      ' *',
      ' * **Parameters:**',
      ' *',
      ' * - **`queryKey`: QueryKey | MutationKey**: The key to be hashed.',
      ' *',
      ' * **Returns:**',
      ' *',
      ' * - **`string`:** The hashed query key as a JSON string.',
      ' *',
      ' * **Behaviour:**',
      ' *',
      ' * - **Hashing:** The function uses `JSON.stringify` on the key.',
      ' */',
    ].join('\n');
    const block = parseJsDoc(sectionedDocBlock(answer) as string);
    expect(block.description).toBe('Converts a query key into a JSON string.');
    expect(block.tags.map((t) => [t.tag, t.name ?? '', t.text])).toEqual([
      ['param', 'queryKey', 'The key to be hashed.'],
      ['returns', '', 'The hashed query key as a JSON string.'],
    ]);
  });

  it('reads nested list headings and bare markdown outside a block', () => {
    const nested = [
      '/**',
      ' * **Function `shouldFetchOptionally`**:',
      ' * - **Purpose**: Checks if the query should be fetched.',
      ' * - **Parameters**:',
      ' *   - `query`: The current query object.',
      ' *   - `prevQuery`: The previous query object.',
      ' * - **Returns**:',
      ' *   - A boolean indicating whether the query should be fetched.',
      ' */',
    ].join('\n');
    const parsed = parseJsDoc(sectionedDocBlock(nested) as string);
    expect(parsed.description).toBe('Checks if the query should be fetched.');
    expect(parsed.tags.map((t) => `${t.tag} ${t.name ?? ''}`.trim())).toEqual(['param query', 'param prevQuery', 'returns']);

    const bare = ['**Purpose**: Removes a query.', '', '**Parameters**:', '- `query`: The query to remove.', '  It must be in the cache.', '', '### Throws', '- If the query is locked.'].join('\n');
    const block = parseJsDoc(sectionedDocBlock(bare) as string);
    expect(block.description).toBe('Removes a query.');
    expect(block.tags.map((t) => [t.tag, t.text])).toEqual([
      ['param', 'The query to remove. It must be in the cache.'],
      ['throws', 'If the query is locked.'],
    ]);
  });

  it('leaves comments with tags, and prose with one bold phrase, alone', () => {
    expect(sectionedDocBlock('/**\n * **Note**: fast.\n *\n * @param a - A.\n * @returns B.\n */')).toBeUndefined();
    expect(sectionedDocBlock('/**\n * Sums **both** numbers.\n *\n * Returns: the sum.\n */')).toBeUndefined();
    expect(sectionedDocBlock('**Parameters**:\n- `a`: A.\n\n**Returns**: B.')).toBeUndefined(); // no summary: nothing to say first
  });
});

describe('salvageCutDoc', () => {
  it('keeps a block that closed before the cut', () => {
    expect(salvageCutDoc('/**\n * The default options.\n */\nexport type DefaultQueryOptions<\n  TQueryFnData = unknown,')).toBe('/**\n * The default options.\n */');
  });

  it('drops the section item the cut ended in, and keeps the whole ones', () => {
    const partial = [
      '**Purpose**: Gets the optimistic results for the given queries.',
      '',
      '**Parameters**:',
      '- `queries`: The queries to observe.',
      '- `combine`: Combines the results into one value. If not provided, it defaults to the',
    ].join('\n');
    const block = parseJsDoc(salvageCutDoc(partial) as string);
    expect(block.description).toBe('Gets the optimistic results for the given queries.');
    expect(block.tags.map((t) => t.name)).toEqual(['queries']);
  });

  it('closes a plain block left open, without the paragraph the cut was in', () => {
    const partial = '/**\n * Sets the options.\n *\n * Later options win over earlier ones, and a query key change makes the observer';
    expect(salvageCutDoc(partial)).toBe('/**\n * Sets the options.\n */');
    expect(salvageCutDoc('/**\n * Sets the opt')).toBeUndefined();
  });
});
