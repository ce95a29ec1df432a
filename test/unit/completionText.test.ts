// How model completions are shaped before they are shown: line or block, cut where they repeat the suffix or leave the block.
import { describe, expect, it } from 'vitest';
import { insertionFromChat, shapeAt, shapeCompletion, stopsFor } from '../../server/src/completion/completionText.js';

describe('shapeAt', () => {
  it('is one line mid-line or after text, a block on an empty line or after an opening bracket', () => {
    expect(shapeAt('  return values.reduce(', ', 0);\n}')).toBe('line');
    expect(shapeAt('const x = ', '\n')).toBe('line');
    expect(shapeAt('function f() {\n  ', '\n}')).toBe('block');
    expect(shapeAt('function f() {', '\n}')).toBe('block');
    expect(shapeAt('const f = () =>', '\n')).toBe('block');
    expect(shapeAt('  foo(', ');')).toBe('block');
  });

  it('stops a line at its line break, and keeps the user\'s stops', () => {
    expect(stopsFor('line', ['//'])).toEqual(['\n', '//']);
    expect(stopsFor('block', [])).toEqual([]);
  });
});

describe('shapeCompletion', () => {
  it('cuts what the rest of the line already holds, but not a closer the completion opened', () => {
    expect(shapeCompletion('a + b;\n}\n', '  return ', ';\n}', 'line')).toBe('a + b');
    expect(shapeCompletion('(sum, v) => sum + v, 0);', 'values.reduce(', ', 0);', 'line')).toBe('(sum, v) => sum + v');
    expect(shapeCompletion('foo()', 'bar(', ')', 'line')).toBe('foo()');
    expect(shapeCompletion('counter', 'x = ', 'er)', 'line')).toBe('counter');
  });

  it('ends a block where it leaves the cursor\'s indentation or repeats the lines after the cursor', () => {
    expect(shapeCompletion('let s = 0;\n  return s;\n}\n\nfunction g() {', 'function f() {\n  ', '\n}\n', 'block')).toBe('let s = 0;\n  return s;');
    expect(shapeCompletion('\n  return 1;\n}\nconst y = 2;', 'function f() {', '\n}\nconst y = 2;', 'block')).toBe('\n  return 1;');
  });
});

describe('insertionFromChat', () => {
  it('takes the fenced code without what it repeats of the text before the cursor', () => {
    const answer = 'Sure:\n```ts\n  return values.reduce((sum, v) => sum + v, 0);\n```';
    expect(insertionFromChat(answer, 'function t() {\n  return values.reduce(', ', 0);\n}', 'line', '<CURSOR>')).toBe('(sum, v) => sum + v');
    expect(insertionFromChat('(a, b) => a + b', 'x.reduce(', ', 0);', 'line', '<CURSOR>')).toBe('(a, b) => a + b');
  });
});
