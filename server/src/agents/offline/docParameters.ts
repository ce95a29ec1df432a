// The `@param` and `@template` descriptions, from each parameter's name, type and default.
import { ts } from 'ts-morph';
import type { JsDocTag } from '../../edits/jsdoc.js';
import type { FunctionLike } from './declarationLocator.js';
import { joinList, nounOfShape } from './docSummaries.js';
import type { NamingContext } from './docSummaries.js';
import { compactType } from './docTypes.js';
import type { TypeFacts, TypeShape, TypeSource } from './docTypes.js';
import { ADJECTIVES, backticked, isPluralWord, isVerb, lastWordsMatch, phrase, pluralize, predicateComplement, sentence, splitAtPreposition, splitIdentifier } from './identifierProse.js';

// ---------------------------------------------------------------------------------------------
// Parameters

interface ParameterEntry {
  /** The name as the `@param` tag writes it: `timeout`, `root0`, `root0.retries`. */
  tagName: string;
  /** The identifier (or property key) the description is derived from. */
  sourceName: string;
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
      entries.push(withDefault({ tagName: parameter.name.text, sourceName: parameter.name.text, facts: types.ofBinding(parameter, optional), optional, rest, position, isProperty: false }, defaultText));
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

const UNIT_SUFFIXES: Array<[RegExp, string]> = [
  [/^(ms|millis|milliseconds)$/i, 'milliseconds'],
  [/^(sec|secs|seconds)$/i, 'seconds'],
  [/^(mins|minutes)$/i, 'minutes'],
  [/^(hours)$/i, 'hours'],
  [/^(days)$/i, 'days'],
  [/^(px|pixels)$/i, 'pixels'],
  [/^(bytes)$/i, 'bytes'],
  [/^(kb)$/i, 'kilobytes'],
  [/^(mb)$/i, 'megabytes'],
];

/** A description of one parameter derived from its name and type. */
export function describeParameter(entry: ParameterEntry, context: NamingContext, positionCount: number): string {
  const shape = entry.facts.shape.kind === 'optional' ? entry.facts.shape.inner : entry.facts.shape;
  let text = parameterPhrase(entry, shape, context, positionCount);
  if (entry.defaultText !== undefined) text += ` Defaults to ${backticked(entry.defaultText)}.`;
  else if (entry.optional) text += ' Optional.';
  return text;
}

function parameterPhrase(entry: ParameterEntry, shape: TypeShape, context: NamingContext, positionCount: number): string {
  if (entry.pattern === 'object') {
    if (entry.isProperty) return sentence(`The ${phrase(splitIdentifier(entry.sourceName))} settings`);
    return shape.kind === 'named' ? sentence(`The ${phrase(splitIdentifier(shape.name))}`) : 'The options object.';
  }
  if (entry.pattern === 'array') return 'The values to destructure.';
  const words = splitIdentifier(entry.sourceName);
  const lowerWords = words.map((word) => word.toLowerCase());
  if (words.length === 0) return sentence(`The ${ordinal(entry.position)} argument`);
  if (shape.kind === 'boolean') {
    const parentName = entry.isProperty ? entry.tagName.split('.').slice(-2, -1)[0] : undefined;
    const parentPhrase = parentName && !/^root\d+$/.test(parentName) ? phrase(splitIdentifier(parentName)) : undefined;
    const subject = parentPhrase ? (/^[A-Z0-9/-]+$/.test(parentPhrase) ? parentPhrase : `the ${parentPhrase}`) : 'it';
    return sentence(whetherPhrase(words, subject));
  }
  if (shape.kind === 'function') return sentence(calledPhrase(words, shape.parameterNames));
  const last = lowerWords[lowerWords.length - 1] ?? '';
  const unit = UNIT_SUFFIXES.find(([pattern]) => pattern.test(last));
  if (unit && (shape.kind === 'number' || shape.kind === 'bigint' || shape.kind === 'any')) {
    const base = phrase(words.slice(0, -1));
    return sentence(`The ${base || 'duration'} in ${unit[1]}`);
  }
  if ((lowerWords[0] === 'max' || lowerWords[0] === 'min') && words.length > 1) {
    const extreme = lowerWords[0] === 'max' ? 'maximum' : 'minimum';
    const rest = words.slice(1);
    return sentence(isPluralWord(rest[rest.length - 1] ?? '') && shape.kind === 'number' ? `The ${extreme} number of ${phrase(rest)}` : `The ${extreme} ${phrase(rest)}`);
  }
  if (last === 'count' && words.length > 1) return sentence(`The number of ${pluralize(phrase(words.slice(0, -1)))}`);
  if (lowerWords[0] === 'num' && words.length > 1) return sentence(`The number of ${phrase(words.slice(1))}`);
  if (shape.kind === 'number' && words.length === 1 && isPluralWord(last)) return sentence(`The number of ${phrase(words)}`);
  const { head: nameHead, tail: nameTail } = splitAtPreposition(context.rest);
  if (!entry.isProperty && nameTail[0]?.toLowerCase() === 'by' && nameHead.length > 0 && phrase(nameTail.slice(1)) === phrase(words) && context.verb) {
    // `getUserById(id)`: the ID of the user (what the function then does with it is not the name's to say).
    return sentence(`The ${phrase(words)} of the ${phrase(nameHead)}`);
  }
  if (last === 'id' && words.length > 1) return sentence(`The ID of the ${phrase(words.slice(0, -1))}`);
  if (lowerWords.length === 1 && last === 'id') return 'The identifier.';
  if (entry.sourceName.length === 1) return singleLetterPhrase(entry.sourceName, shape, entry.position, positionCount);
  if (context.kind === 'setter') return sentence(`The new ${phrase(context.words)}`);
  const namePhrase = phrase(words);
  if (shape.kind === 'named' && lastWordsMatch(phrase(splitIdentifier(shape.name)), namePhrase) && splitIdentifier(shape.name).length > words.length) {
    return sentence(`The ${phrase(splitIdentifier(shape.name))}`);
  }
  if (shape.kind === 'named' && GENERIC_PARAMETER_NAMES.has(entry.sourceName.toLowerCase()) && !['Object', 'Record', 'Partial', 'Map', 'Set'].includes(shape.name)) {
    return sentence(`The ${phrase(splitIdentifier(shape.name))}`);
  }
  if (entry.rest) return sentence(`The ${pluralize(namePhrase)}`);
  if (words.length === 1 && (ADJECTIVES.has(last) || ['initial', 'final', 'default', 'previous', 'next', 'original', 'fallback'].includes(last))) {
    const noun = shape.kind === 'named' ? nounOfShape(shape) : 'value';
    return sentence(`The ${namePhrase} ${noun}`);
  }
  return sentence(`The ${namePhrase}`);
}

const GENERIC_PARAMETER_NAMES = new Set(['options', 'opts', 'config', 'cfg', 'settings', 'props', 'params', 'args', 'data', 'input', 'payload']);

export function ordinal(position: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'][position] ?? `${position + 1}th`;
}

function singleLetterPhrase(name: string, shape: TypeShape, position: number, positionCount: number): string {
  const lower = name.toLowerCase();
  if (['x', 'y', 'z'].includes(lower)) return `The ${lower}-coordinate.`;
  if (['i', 'j', 'k'].includes(lower) && shape.kind === 'number') return 'The index.';
  const noun = nounOfShape(shape);
  return sentence(positionCount > 1 ? `The ${ordinal(position)} ${noun}` : `The ${noun}`);
}

/** `Whether …` for a boolean parameter. */
function whetherPhrase(words: string[], subject: string): string {
  const first = (words[0] ?? '').toLowerCase();
  const rest = words.slice(1);
  switch (first) {
    case 'is':
    case 'are':
      return `Whether ${subject} is ${predicateComplement(rest)}`;
    case 'has':
      return `Whether ${subject} has ${phrase(rest)}`;
    case 'should':
    case 'must':
      return `Whether to ${phrase(rest)}`;
    case 'can':
      return `Whether it can ${phrase(rest)}`;
  }
  if (isVerb(first)) return `Whether to ${phrase(words)}`;
  const text = phrase(words);
  if (words.length === 1 && predicateComplement(words) === text && !isPluralWord(first)) return `Whether ${subject} is ${text}`;
  return /\bmode$/.test(text) ? `Whether ${text} is enabled` : `Whether ${text} mode is enabled`;
}

/** `Called …` for a function-typed parameter. */
function calledPhrase(words: string[], parameterNames: string[]): string {
  const first = (words[0] ?? '').toLowerCase();
  const generic = ['callback', 'cb', 'fn', 'func', 'function', 'handler', 'listener', 'done', 'next'].includes(words.join('').toLowerCase());
  let text = 'Called';
  if (first === 'on' && words.length > 1) text += ` on ${phrase(words.slice(1))}`;
  else if (!generic && isVerb(first)) text += ` to ${phrase(words)}`;
  else if (!generic) text += ` as the ${phrase(words)}`;
  const named = parameterNames.filter((name) => name && !name.startsWith('__'));
  if (named.length > 0) text += `${text === 'Called' ? '' : ','} with ${joinList(named.map(backticked))}`;
  else if (text === 'Called') text += ' with no arguments';
  return text;
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
