// The server's V8 setting: the inlining budget is set unless the node command line already chose one.
import { describe, expect, it } from 'vitest';
import { compilerFlags } from '../../server/src/compilerTuning.js';

describe('compilerFlags', () => {
  it("sets a smaller inlining budget than V8's default", () => {
    const [flag, ...rest] = compilerFlags([]);
    expect(rest).toEqual([]);
    const budget = Number(/^--max-inlined-bytecode-size-cumulative=(\d+)$/.exec(flag ?? '')?.[1]);
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThan(920);
    expect(compilerFlags(['--enable-source-maps', '--cpu-prof'])).toEqual([flag]);
  });

  it('leaves the budget to a node command line that sets it, in either spelling', () => {
    expect(compilerFlags(['--max-inlined-bytecode-size-cumulative=920'])).toEqual([]);
    expect(compilerFlags(['--cpu-prof', '--max_inlined_bytecode_size_cumulative=500'])).toEqual([]);
  });
});
