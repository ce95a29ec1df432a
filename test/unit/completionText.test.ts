// How model completions are shaped before they are shown: line or block, cut where they repeat the suffix or leave the block.
import { describe, expect, it } from 'vitest';
import { insertionFromChat, insertionFromFill, shapeAt, shapeCompletion, stopsFor } from '../../server/src/completion/completionText.js';

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

describe('a fresh line in a function nothing after the cursor closes yet', () => {
  const prefix = 'export function uniqueBy<T>(items: Array<T>, key: (item: T) => string): Array<T> {\n  ';
  const answer = '  const seen = new Set<string>()\n  return items.filter((item) => {\n    const k = key(item)\n    if (seen.has(k)) return false\n    seen.add(k)\n    return true\n  })\n}\n\nexport function other() {';

  it('takes the indentation the model wrote again off the first line and keeps the function\'s closing brace', () => {
    expect(insertionFromFill(answer, prefix, '\n\nexport function next(): void {}\n', 'block')).toBe(answer.slice(2, answer.indexOf('}\n\n') + 1));
    expect(insertionFromFill(answer, prefix, '', 'block')).toBe(answer.slice(2, answer.indexOf('}\n\n') + 1));
  });

  it('leaves the brace to the code after the cursor when that closes the function', () => {
    expect(insertionFromFill(answer, prefix, '\n}\n', 'block')).toBe(answer.slice(2, answer.indexOf('\n}')));
    // A blank line between two statements: the function's own brace comes later.
    expect(insertionFromFill('x()\n}', 'function f() {\n  a()\n  ', '\n  b()\n}\n', 'block')).toBe('x()');
  });

  it('keeps a first line that the model wrote at the cursor', () => {
    expect(insertionFromFill('const seen = 1\n  return seen\n}', prefix, '', 'block')).toBe('const seen = 1\n  return seen\n}');
  });
});

describe('a completion mid-line', () => {
  it('does not end by closing brackets that the rest of the line closes', () => {
    expect(shapeCompletion('pdatedAt / 1000)', '  return Math.max(u', ', 0)', 'line')).toBe('pdatedAt / 1000');
    expect(shapeCompletion('pdatedAt(now));', '  return Math.max(u', ', 0)', 'line')).toBe('pdatedAt(now)');
    // Nothing for the rest of the line to close: the completion's own closers stay.
    expect(shapeCompletion('lamp(x))', 'const y = c', '', 'line')).toBe('lamp(x))');
  });
});

describe('insertionFromChat', () => {
  it('takes the fenced code without what it repeats of the text before the cursor', () => {
    const answer = 'Sure:\n```ts\n  return values.reduce((sum, v) => sum + v, 0);\n```';
    expect(insertionFromChat(answer, 'function t() {\n  return values.reduce(', ', 0);\n}', 'line', '<CURSOR>')).toBe('(sum, v) => sum + v');
    expect(insertionFromChat('(a, b) => a + b', 'x.reduce(', ', 0);', 'line', '<CURSOR>')).toBe('(a, b) => a + b');
  });
});
