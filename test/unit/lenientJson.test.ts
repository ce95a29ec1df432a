// Reading JSON the way models write it: fenced or bare, amid prose, JavaScript-style, cut off; and the issue pipeline's places read from JSON, a diff or file paths.
import { describe, expect, it } from 'vitest';
import { firstObject, objectsIn, parseLenient, writtenCalls } from '../../server/src/agents/lenientJson.js';
import { locationsIn } from '../../server/src/pipeline/issueLocations.js';
import { jsonIn } from '../../server/src/pipeline/exploration.js';

describe('lenient JSON', () => {
  it('reads strict JSON, fenced or bare, with prose around it', () => {
    expect(firstObject('{"a": 1}')).toEqual({ a: 1 });
    expect(firstObject('Here it is:\n```json\n{"a": [1, 2]}\n```\nHope this helps!')).toEqual({ a: [1, 2] });
    expect(firstObject('I found it {"a": "x"} and that is all.')).toEqual({ a: 'x' });
  });

  it('reads the first balanced object, not from the first brace to the last one', () => {
    // The old reader took everything between the first `{` and the last `}`, and failed on this.
    expect(firstObject('{"verdict": "approve"}\n\nNote: use `{}` for empty objects.')).toEqual({ verdict: 'approve' });
    expect(objectsIn('{"a": 1} then {"b": 2}').map((o) => o.value)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('reads JavaScript-style objects: single quotes, bare keys, trailing commas, comments', () => {
    const text = "```js\n{\n  locations: [\n    { file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'multiply by the quantity', }, // the bug\n  ],\n}\n```";
    expect(firstObject(text)).toEqual({ locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'multiply by the quantity' }] });
    expect(parseLenient("{ 'it\\'s': \"a \\\"quote\\\"\", n: -1.5e3, u: undefined }")).toEqual({ "it's": 'a "quote"', n: -1500, u: null });
  });

  it('completes an object an answer was cut off inside, dropping the member it stopped in', () => {
    const cut = '```json\n{"locations": [{"file": "src/pricing.ts", "symbol": "lineTotal", "intent": "multiply the price by';
    const [found] = objectsIn(cut);
    expect(found).toEqual({ value: { locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal' }] }, cutOff: true });
    expect(firstObject('{"a": 1, "b": ')).toEqual({ a: 1 });
  });

  it('refuses what is not data', () => {
    expect(firstObject('function f() { return x + 1; }')).toBeUndefined();
    expect(firstObject('no braces at all')).toBeUndefined();
    expect(parseLenient('{ a: someCall() }')).toBeUndefined();
  });

  it('picks the object a step asks for', () => {
    expect(jsonIn('{"note": 1}\n{"verdict": "reject", "explanation": "no"}', (v) => 'verdict' in v)).toEqual({ verdict: 'reject', explanation: 'no' });
  });
});

describe('the issue pipeline’s places', () => {
  it('reads the JSON asked for, strict or JavaScript-style', () => {
    expect(locationsIn('{"locations": [{"file": "src/a.ts", "symbol": "f", "intent": "x"}]}')).toEqual({ locations: [{ file: 'src/a.ts', symbol: 'f', intent: 'x' }], form: 'json' });
    expect(locationsIn("{locations: ['src/a.ts', {path: 'src/b.ts'},]}")).toEqual({ locations: [{ file: 'src/a.ts', intent: '' }, { file: 'src/b.ts', intent: '' }], form: 'json' });
  });

  it('reads a diff written where the places were asked for', () => {
    const diff = ['The fix:', '```diff', '--- a/src/pricing.ts', '+++ b/src/pricing.ts', '@@ -10,4 +10,4 @@ export function lineTotal(item: LineItem): number {', '-  return item.price;', '+  return item.price * item.quantity;', '```'].join('\n');
    expect(locationsIn(diff)).toEqual({ locations: [{ file: 'src/pricing.ts', symbol: 'lineTotal', intent: 'as the model’s diff changes it' }], form: 'diff' });
  });

  it('falls back on the source files the prose names', () => {
    expect(locationsIn('The bug is in `src/pricing.ts`, where lineTotal ignores quantity (see ./src/cart.ts).')).toEqual({
      locations: [
        { file: 'src/pricing.ts', intent: '' },
        { file: 'src/cart.ts', intent: '' },
      ],
      form: 'paths',
    });
    expect(locationsIn('I cannot tell.')).toEqual({ locations: [] });
  });
});

describe('tool calls written as text', () => {
  const allowed = new Set(['search_method', 'get_class_info']);

  it('takes a JSON call naming an offered tool', () => {
    const text = '```json\n{\n  "name": "search_method",\n  "arguments": {\n    "name": "lineTotal"\n  }\n}\n```';
    expect(writtenCalls(text, allowed)).toEqual([{ id: 'written_0', name: 'search_method', arguments: '{"name":"lineTotal"}' }]);
  });

  it('ignores objects that name no offered tool (captured from Qwen2.5-Coder-0.5B, which named the function it looked for)', () => {
    const captured = '```json\n{\n  "name": "parseConfig",\n  "arguments": {\n    "name": "config"\n  }\n}\n```';
    expect(writtenCalls(captured, allowed)).toEqual([]);
    expect(writtenCalls('{"locations": []}', allowed)).toEqual([]);
  });
});
