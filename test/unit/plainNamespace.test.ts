// The plain copy of TypeScript's namespace the bundle hands the server: the same members, functions and enums as plain values, variables still live.
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { plainNamespace } from '../../server/src/plainNamespace.js';

describe('plainNamespace', () => {
  it("has every member of ts-morph's ts, with the same values, and the walkers' functions and enums as plain properties", () => {
    const plain = plainNamespace(ts);
    expect(Object.keys(plain).sort()).toEqual(Object.keys(ts).sort());
    for (const key of Object.keys(ts)) expect((plain as unknown as Record<string, unknown>)[key], key).toBe((ts as unknown as Record<string, unknown>)[key]);
    // What the real namespace does not offer: a member that is a value, not a getter.
    expect(Object.getOwnPropertyDescriptor(ts, 'isIdentifier')?.get).toBeTypeOf('function');
    for (const key of ['isIdentifier', 'forEachChild', 'createSourceFile', 'SyntaxKind', 'ScriptTarget', 'NodeFlags']) {
      const descriptor = Object.getOwnPropertyDescriptor(plain, key);
      expect(descriptor?.get, key).toBeUndefined();
      expect(descriptor?.value, key).toBe((ts as unknown as Record<string, unknown>)[key]);
    }
    // And it works as the namespace: a parse and a walk through it.
    const source = plain.createSourceFile('a.ts', 'function f(x: number) { return x; }', plain.ScriptTarget.Latest, true);
    const names: string[] = [];
    const visit = (node: ts.Node): void => {
      if (plain.isIdentifier(node)) names.push(node.text);
      plain.forEachChild(node, visit);
    };
    visit(source);
    expect(names).toEqual(['f', 'x', 'x']);
  });

  it('keeps the members that are variables live, since TypeScript may assign them again', () => {
    let current = { name: 'first' };
    const namespace = {
      get sys() {
        return current;
      },
      get version() {
        return '1.0';
      },
      get isThing() {
        return (value: unknown): boolean => value === 'thing';
      },
      get Kind() {
        return { A: 0, B: 1 };
      },
    };
    const plain = plainNamespace(namespace);
    expect(plain.sys.name).toBe('first');
    current = { name: 'second' };
    expect(plain.sys.name).toBe('second');
    expect(Object.getOwnPropertyDescriptor(plain, 'sys')?.get).toBeTypeOf('function');
    expect(plain.version).toBe('1.0');
    // Functions and capitalised members are read once.
    expect(Object.getOwnPropertyDescriptor(plain, 'isThing')?.value).toBeTypeOf('function');
    expect(plain.isThing('thing')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(plain, 'Kind')?.value).toEqual({ A: 0, B: 1 });
  });
});
