// The parameters a `@param` tag names (destructured properties included, with their defaults), and the `@template` descriptions.
import { ts } from 'ts-morph';
import type { JsDocTag } from '../../edits/jsdoc.js';
import type { FunctionLike } from './declarationLocator.js';
import { compactType } from './docTypes.js';
import type { TypeFacts, TypeSource } from './docTypes.js';
import { backticked, phrase, splitIdentifier } from './identifierProse.js';

// ---------------------------------------------------------------------------------------------
// Parameters

interface ParameterEntry {
  /** The name as the `@param` tag writes it: `timeout`, `root0`, `root0.retries`. */
  tagName: string;
  /** The identifier (or property key) the description is derived from. */
  sourceName: string;
  /** The variable that holds it in the body; none for a destructuring pattern. */
  variable?: string;
  facts: TypeFacts;
  optional: boolean;
  defaultText?: string;
  rest: boolean;
  pattern?: 'object' | 'array';
  /** The parameter's position among the declaration's parameters. */
  position: number;
  isProperty: boolean;
}

export function collectParameters(fn: FunctionLike, types: TypeSource, root: ts.SourceFile, rootAliases: Map<number, string>): ParameterEntry[] {
  const entries: ParameterEntry[] = [];
  let destructuredCount = 0;
  const parameters = fn.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === 'this'));
  parameters.forEach((parameter, position) => {
    const optional = parameter.questionToken !== undefined || parameter.initializer !== undefined || isJsDocOptional(parameter);
    const defaultText = parameter.initializer ? shortDefault(parameter.initializer, root) : undefined;
    const rest = parameter.dotDotDotToken !== undefined;
    if (ts.isIdentifier(parameter.name)) {
      entries.push(withDefault({ tagName: parameter.name.text, sourceName: parameter.name.text, variable: parameter.name.text, facts: types.ofBinding(parameter, optional), optional, rest, position, isProperty: false }, defaultText));
      return;
    }
    const rootName = rootAliases.get(position) ?? `root${destructuredCount}`;
    destructuredCount++;
    const pattern = ts.isObjectBindingPattern(parameter.name) ? 'object' : 'array';
    entries.push(withDefault({ tagName: rootName, sourceName: rootName, facts: types.ofBinding(parameter, optional), optional, rest, pattern, position, isProperty: false }, defaultText));
    if (ts.isObjectBindingPattern(parameter.name)) collectPatternProperties(parameter.name, rootName, position, types, root, entries);
  });
  return entries;
}

function collectPatternProperties(pattern: ts.ObjectBindingPattern, prefix: string, position: number, types: TypeSource, root: ts.SourceFile, entries: ParameterEntry[]): void {
  for (const element of pattern.elements) {
    const key = element.propertyName ? propertyKeyText(element.propertyName, root) : ts.isIdentifier(element.name) ? element.name.text : undefined;
    if (!key) continue;
    const tagName = `${prefix}.${key}`;
    const optional = element.initializer !== undefined || (element.dotDotDotToken === undefined && types.isOptionalProperty(pattern, key));
    const defaultText = element.initializer ? shortDefault(element.initializer, root) : undefined;
    const nested = ts.isObjectBindingPattern(element.name) ? 'object' : ts.isArrayBindingPattern(element.name) ? 'array' : undefined;
    const entry: ParameterEntry = { tagName, sourceName: key, facts: types.ofBinding(element, optional), optional, rest: element.dotDotDotToken !== undefined, position, isProperty: true };
    if (nested) entry.pattern = nested;
    if (ts.isIdentifier(element.name)) entry.variable = element.name.text;
    entries.push(withDefault(entry, defaultText));
    if (ts.isObjectBindingPattern(element.name)) collectPatternProperties(element.name, tagName, position, types, root, entries);
  }
}

function withDefault(entry: ParameterEntry, defaultText: string | undefined): ParameterEntry {
  if (defaultText !== undefined) entry.defaultText = defaultText;
  return entry;
}

function propertyKeyText(name: ts.PropertyName, root: ts.SourceFile): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return name.getText(root);
}

function isJsDocOptional(parameter: ts.ParameterDeclaration): boolean {
  return ts.getJSDocParameterTags(parameter).some((tag) => tag.isBracketed);
}

/** A default value short enough to quote, on one line. */
function shortDefault(initializer: ts.Expression, root: ts.SourceFile): string | undefined {
  const text = initializer.getText(root).replace(/\s+/g, ' ');
  return text.length <= 40 ? text : undefined;
}

export function ordinal(position: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'][position] ?? `${position + 1}th`;
}

// ---------------------------------------------------------------------------------------------
// Type parameters

export function templateTags(typeParameters: readonly ts.TypeParameterDeclaration[] | undefined, fn: FunctionLike | undefined, root: ts.SourceFile, javascript: boolean): Array<Omit<JsDocTag, 'raw'>> {
  return (typeParameters ?? []).map((parameter) => {
    const name = parameter.name.text;
    const constraint = parameter.constraint ? compactType(parameter.constraint.getText(root)) : undefined;
    let text = templateUsage(name, fn, root);
    if (constraint && !javascript) text += ` Must extend ${backticked(constraint)}.`;
    if (parameter.default) text += ` Defaults to ${backticked(compactType(parameter.default.getText(root)))}.`;
    const tag: Omit<JsDocTag, 'raw'> = { tag: 'template', name, text };
    if (constraint && javascript) tag.type = constraint;
    return tag;
  });
}

function templateUsage(name: string, fn: FunctionLike | undefined, root: ts.SourceFile): string {
  if (fn) {
    for (const parameter of fn.parameters) {
      const annotation = parameter.type?.getText(root).replace(/\s+/g, '');
      if (!annotation || !ts.isIdentifier(parameter.name)) continue;
      const parameterName = parameter.name.text;
      if (annotation === name) return `The type of ${backticked(parameterName)}.`;
      if ([`${name}[]`, `Array<${name}>`, `readonly${name}[]`, `ReadonlyArray<${name}>`].includes(annotation)) return `The type of the elements of ${backticked(parameterName)}.`;
    }
    const returnAnnotation = fn.type?.getText(root).replace(/\s+/g, '');
    if (returnAnnotation === name || returnAnnotation === `Promise<${name}>`) return 'The type of the result.';
  }
  const descriptive = /^T[A-Z]/.test(name) ? name.slice(1) : name.length > 1 ? name : undefined;
  return descriptive ? `The ${phrase(splitIdentifier(descriptive))} type.` : `The ${name} type parameter.`;
}
