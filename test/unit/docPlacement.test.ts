// Unit tests for where a doc comment goes (first overload, above the `//` lines over the code) and for the summary those lines give.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryFromComments } from '../../server/src/agents/offline/commentProse.js';
import { declarationAt, listDeclarations, parseDocument, withSyntaxTree } from '../../server/src/repo/declarations.js';
import { REPO_ROOT } from '../support/lspClient.js';

/** The line a new doc comment of `name` goes on, as text. */
function docLine(text: string, name: string): string {
  const target = listDeclarations(`/virtual/placement/${name}.ts`, text).find((d) => d.name === name);
  if (!target) throw new Error(`no declaration ${name}`);
  return text.slice(target.docLineStart, text.indexOf('\n', target.docLineStart));
}

describe('where a doc comment goes', () => {
  it('goes on the first overload signature of a function, a method and a constructor', () => {
    const text = 'export function f(a: string): string;\nexport function f(a: number): number;\nexport function f(a: unknown) {\n  return a;\n}\nclass C {\n  constructor(a: string);\n  constructor(a: number);\n  constructor(a: unknown) {}\n  static m(): void;\n  static m(a?: number) {}\n  m(): void {}\n}\n';
    expect(docLine(text, 'f')).toBe('export function f(a: string): string;');
    expect(docLine(text, 'C.constructor')).toBe('  constructor(a: string);');
    // An instance method of the same name is another declaration, not an overload of the static one.
    expect(listDeclarations('/virtual/placement/m.ts', text).filter((d) => d.name === 'C.m').map((d) => text.slice(d.docLineStart, text.indexOf('\n', d.docLineStart)))).toEqual(['  static m(): void;', '  m(): void {}']);
  });

  it('goes above the `//` lines directly over the code, but below a blank line, a banner, a section title or a licence', () => {
    expect(docLine('const x = 1;\n// Adds.\n// eslint-disable-next-line\nfunction add() {}\n', 'add')).toBe('// Adds.');
    expect(docLine('// A section.\n\n// @ts-ignore\nfunction add() {}\n', 'add')).toBe('// @ts-ignore');
    expect(docLine('//////////    REFINES     //////////\nfunction add() {}\n', 'add')).toBe('function add() {}');
    expect(docLine('// ------------\n// Parsing\n// Reads the header first.\nfunction add() {}\n', 'add')).toBe('// Reads the header first.');
    expect(docLine('// #region helpers\nfunction add() {}\n', 'add')).toBe('function add() {}');
    expect(docLine('// Copyright 2024 Example Ltd.\n// Adds two numbers.\nfunction add() {}\n', 'add')).toBe('// Adds two numbers.');
    expect(docLine('/// <reference types="node" />\nfunction add() {}\n', 'add')).toBe('function add() {}');
    expect(docLine('run(); // not about add\nfunction add() {}\n', 'add')).toBe('function add() {}');
    expect(docLine('export {};\n// Doubles.\nconst double = (n: number) => n * 2;\n', 'double')).toBe('// Doubles.');
    // The lines that open a file say what the file is, even right above its first declaration.
    expect(docLine('// Number helpers.\nexport function clamp() {}\n', 'clamp')).toBe('export function clamp() {}');
    expect(docLine('#!/usr/bin/env node\n// The command line.\nfunction main() {}\n', 'main')).toBe('function main() {}');
  });

  it('finds the doc comment TypeScript shows: over the `//` lines, and on the first overload before the implementation', () => {
    const notes = listDeclarations('/virtual/placement/notes.ts', '/** Adds. */\n// eslint-disable-next-line\nfunction add() {}\n')[0];
    expect(notes?.existingDoc?.text).toBe('/** Adds. */');
    const both = listDeclarations('/virtual/placement/both.ts', '/** On the first. */\nfunction f(a: string): void;\nfunction f(a: number): void;\n/** On the implementation. */\nfunction f(a: unknown) {}\n')[0];
    expect(both?.existingDoc?.text).toBe('/** On the first. */');
    const implementation = listDeclarations('/virtual/placement/impl.ts', 'function f(a: string): void;\nfunction f(a: number): void;\n/** On the implementation. */\nfunction f(a: unknown) {}\n')[0];
    expect(implementation?.existingDoc?.text).toBe('/** On the implementation. */');
    expect(listDeclarations('/virtual/placement/block.ts', '/** Old. */\n/* a block */\nfunction f() {}\n')[0]?.existingDoc).toBeUndefined();
  });

  it('offers the implementation on each overload, in a file being edited as in a settled one', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'placement', 'src', 'overloads.ts'), 'utf8');
    const fileName = '/virtual/placement/edited/overloads.ts';
    // An earlier text makes this file one being edited: only the nodes near each place are walked.
    parseDocument(fileName, `${text}\n// an earlier text`);
    expect(withSyntaxTree(fileName, text, (_source, edited) => edited)).toBe(true);
    const near = [...text].map((_, offset) => declarationAt(fileName, text, offset)?.name);
    const whole = [...text].map((_, offset) => declarationAt(`${fileName}.copy.ts`, text, offset)?.name);
    expect(near).toEqual(whole);
    expect(near[text.indexOf('pad(value')]).toBe('pad');
    expect(near[text.indexOf('lookup(key: string): number | undefined')]).toBe('Registry.lookup');
  });
});

describe('the summary `//` lines give', () => {
  it('is their prose, in sentences, without TODOs, directives or commented-out code', () => {
    expect(summaryFromComments(['// splits a header line into name and value'])).toBe('Splits a header line into name and value.');
    expect(summaryFromComments(['// Splits a header line.', '// TODO: fold continuation', '//   lines too', '// eslint-disable-next-line no-console'])).toBe('Splits a header line.');
    expect(summaryFromComments(['// @ts-expect-error the global is a number at run time'])).toBeUndefined();
    expect(summaryFromComments(['// @__NO_SIDE_EFFECTS__'])).toBeUndefined();
    expect(summaryFromComments(['// FIXME: this walks every node twice'])).toBeUndefined();
    expect(summaryFromComments(['// const old = parse(text);'])).toBeUndefined();
    expect(summaryFromComments(['// invalid_type | too_big | too_small'])).toBeUndefined();
    expect(summaryFromComments(['// Reads the value back, so a check may rewrite', '// `ctx.value` too — `(v, ctx) => { ctx.value =', '// v.trim() }` is a transform.'])).toBe('Reads the value back, so a check may rewrite `ctx.value` too — `(v, ctx) => { ctx.value = v.trim() }` is a transform.');
    expect(summaryFromComments(['// Parses the header.', '//', '// Lines are folded first:'])).toBe('Parses the header.\n\nLines are folded first.');
  });

  it('is no summary when it is a label', () => {
    expect(summaryFromComments(['// helpers'])).toBeUndefined();
    expect(summaryFromComments(['// ZodUUIDv6'])).toBeUndefined();
    expect(summaryFromComments(['// Codec utility functions'])).toBeUndefined();
  });
});
