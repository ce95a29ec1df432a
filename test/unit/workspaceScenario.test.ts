// The workspace scenario's scoring: symbol identity by declaration, places of every kind of declaration, and the rank of the first location at any expected place.
import { describe, expect, it } from 'vitest';
import { namedDeclarations, rankOf, symbolLines } from '../../server/src/eval/workspaceScenario.js';

const SCHEMAS = `export interface $ZodType {
  parse(value: unknown): unknown;
}

/** The base of every schema. */
export const $ZodType: Constructor<$ZodType> = make("$ZodType", (inst) => {
  inst.parse = (v) => v;
});

export const email: RegExp =
  /^[^@]+@[^@]+$/;

export type Shape = Record<string, $ZodType>;

export class Registry {
  get(key: string): unknown {
    return key;
  }
}

export function get(): void {}
`;

describe('workspace scoring', () => {
  it('counts a name that is both an interface and a const once, either declaration answering', () => {
    expect(symbolLines('schemas.ts', SCHEMAS, '$ZodType')).toEqual([{ from: 1, to: 3 }, { from: 5, to: 8 }]);
    // The answer pointing at the const (the runtime value) is a hit, as one pointing at the interface is.
    const accept = symbolLines('schemas.ts', SCHEMAS, '$ZodType').map((l) => ({ file: 'src/schemas.ts', ...l }));
    expect(rankOf([{ file: 'src/other.ts', line: 6 }, { file: 'src/schemas.ts', line: 6 }], accept)).toBe(2);
    expect(rankOf([{ file: 'src/schemas.ts', line: 2 }], accept)).toBe(1);
  });

  it('finds exported constants and type aliases, which are not functions, instead of dropping them as missing', () => {
    expect(symbolLines('schemas.ts', SCHEMAS, 'email')).toEqual([{ from: 10, to: 11 }]);
    expect(symbolLines('schemas.ts', SCHEMAS, 'Shape')).toEqual([{ from: 13, to: 13 }]);
    expect(symbolLines('schemas.ts', SCHEMAS, 'missing')).toEqual([]);
  });

  it('tells a member from a top-level declaration of the same name', () => {
    expect(symbolLines('schemas.ts', SCHEMAS, 'Registry.get')).toEqual([{ from: 16, to: 18 }]);
    expect(symbolLines('schemas.ts', SCHEMAS, 'get')).toEqual([{ from: 21, to: 21 }]);
    expect(namedDeclarations('schemas.ts', SCHEMAS).map((d) => d.name)).toContain('$ZodType.parse');
  });

  it('ranks the first location at any of several expected places, and 0 when none is', () => {
    const accept = [{ file: 'a.ts', from: 10, to: 12 }, { file: 'b.ts' }];
    expect(rankOf([{ file: 'a.ts', line: 3 }, { file: 'b.ts', line: 99 }], accept)).toBe(2);
    expect(rankOf([{ file: 'a.ts', line: 11 }], accept)).toBe(1);
    expect(rankOf([{ file: 'c.ts', line: 11 }], accept)).toBe(0);
  });
});
