// What a declaration's name says it does: its naming context, its summary sentence and its `@returns` sentence.
import type { DeclarationKind } from '../../repo/declarations.js';
import type { TypeShape } from './docTypes.js';
import { backticked, capitalize, isPluralWord, isVerb, lastWordsMatch, pastParticiple, phrase, pluralize, predicateComplement, PREPOSITIONS, QUANTIFIERS, SELECTOR_WORDS, sentence, singularize, splitAtPreposition, splitIdentifier, thirdPerson, withArticle } from './identifierProse.js';

// ---------------------------------------------------------------------------------------------
// What the declaration is called and where it lives

export interface NamingContext {
  kind: DeclarationKind;
  /** The identifier's words, e.g. `get`, `User`, `By`, `Id`. */
  words: string[];
  /** The lower-case first word when it is a verb. */
  verb?: string;
  /** The words after the verb (all words when there is no verb). */
  rest: string[];
  /** ` asynchronously` or ` synchronously` when the name ends with Async or Sync. */
  manner: string;
  /** The enclosing class's prose name: `user cache`. */
  owner?: string;
  /** How the first parameter is referred to as a subject: `the given email`, `` `n` ``. */
  firstParameterSubject?: string;
  firstParameterPhrase?: string;
  /** Whether the first parameter is a destructuring pattern (`{ host, port }`). */
  destructuredFirstParameter?: boolean;
  /** Whether the name has an identifier form (not `[Symbol.iterator]` or a string literal). */
  plainName: boolean;
  rawName: string;
}

export function namingContext(kind: DeclarationKind, rawName: string, owner: string | undefined, firstParameter: string | undefined): NamingContext {
  const plainName = /^#?[\w$]+$/.test(rawName) || rawName === '';
  let words = plainName ? splitIdentifier(rawName) : [];
  let manner = '';
  const lastWord = words[words.length - 1]?.toLowerCase();
  if (words.length > 1 && (lastWord === 'async' || lastWord === 'sync')) {
    manner = lastWord === 'async' ? ' asynchronously' : ' synchronously';
    words = words.slice(0, -1);
  }
  const first = words[0]?.toLowerCase() ?? '';
  // `to` and `on` start a verb phrase only with something after them (`toJson`, `onClick`).
  const leadsPhrase = ['is', 'are', 'has', 'have', 'can', 'should'].includes(first) || (['to', 'on'].includes(first) && words.length > 1);
  const verb = isVerb(first) || leadsPhrase ? first : undefined;
  const context: NamingContext = { kind, words, rest: verb ? words.slice(1) : words, manner, plainName, rawName };
  if (verb) context.verb = verb;
  if (owner) context.owner = owner;
  if (firstParameter) {
    const parameterWords = splitIdentifier(firstParameter);
    context.firstParameterPhrase = phrase(parameterWords);
    context.firstParameterSubject = firstParameter.length === 1 ? backticked(firstParameter) : `the given ${phrase(parameterWords)}`;
  }
  return context;
}

/** The clause a boolean-returning name asserts: `the given email is valid`, or undefined for other names. */
export function predicateClause(context: NamingContext): string | undefined {
  const subject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : 'it');
  const rest = context.rest;
  switch (context.verb) {
    case 'is':
    case 'are': {
      // `isValidEmail(email)` is about the email: "the given email is valid", not "is a valid email".
      const restWithoutSubject = context.firstParameterPhrase && rest.length > 1 && lastWordsMatch(phrase(rest), context.firstParameterPhrase) ? rest.slice(0, -1) : rest;
      return `${subject} ${context.verb === 'are' && subject === 'it' ? 'they are' : 'is'} ${predicateComplement(restWithoutSubject)}`.replace(/^it they/, 'they');
    }
    case 'has':
    case 'have':
      if (rest.length === 0) return context.firstParameterSubject && context.owner ? `the ${context.owner} contains ${context.firstParameterSubject}` : `${subject} is present`;
      if (context.firstParameterSubject && context.firstParameterPhrase && lastWordsMatch(phrase(rest), context.firstParameterPhrase)) {
        return `${context.owner ? `the ${context.owner}` : 'it'} has ${context.firstParameterSubject}`;
      }
      return `${subject} has ${phrase(rest)}`;
    case 'can':
      return `${context.owner && !context.firstParameterSubject ? `the ${context.owner}` : context.firstParameterSubject ?? 'it'} can ${phrase(rest)}`;
    case 'should':
      return rest[0]?.toLowerCase() === 'be' ? `${subject} should ${phrase(rest)}` : `to ${phrase(rest)}`;
  }
  const last = context.words[context.words.length - 1]?.toLowerCase() ?? '';
  if (!context.verb && context.words.length > 1 && ['exists', 'equals', 'matches', 'contains', 'includes', 'supports', 'needs', 'requires', 'allows'].includes(last)) {
    return `the ${phrase(context.words.slice(0, -1))} ${last}`;
  }
  return undefined;
}

/** What a value-returning name says it produces: `user`, `parsed config`, `JSON representation`. */
function producedNoun(context: NamingContext): string | undefined {
  const leading = (context.words[0] ?? '').toLowerCase();
  if (!context.verb && leading === 'as' && context.words.length > 1) return `${phrase(context.words.slice(1))} representation`;
  const { head } = splitAtPreposition(context.rest);
  if (head.length === 0) return undefined;
  const object = phrase(head);
  switch (context.verb) {
    case undefined:
      return selectorNoun(context) ?? object;
    case 'is': case 'are': case 'has': case 'have': case 'can': case 'should': case 'on':
      return undefined;
    case 'to':
      return `${object} representation`;
    case 'get': case 'find': case 'lookup': case 'load': case 'read': case 'fetch': case 'select': case 'pick': case 'resolve': case 'list':
    case 'query': case 'search': case 'retrieve': case 'collect': case 'receive': case 'take': case 'peek': case 'pop': case 'shift': case 'dequeue': case 'count':
      return context.verb === 'count' ? `number of ${pluralize(object)}` : object;
    case 'create': case 'make': case 'build': case 'new': case 'construct': case 'clone': case 'copy': case 'generate': case 'gen':
      return `new ${object}`;
    default:
      return `${pastParticiple(context.verb)} ${object}`;
  }
}

/** `first item` for `first(items)`: a selector name and what it selects from. */
function selectorNoun(context: NamingContext): string | undefined {
  const word = context.words.length === 1 ? (context.words[0] ?? '').toLowerCase() : '';
  if (!SELECTOR_WORDS.has(word)) return undefined;
  const selected = context.firstParameterPhrase && isPluralWord(context.firstParameterPhrase.split(' ').pop() ?? '') ? singularize(context.firstParameterPhrase) : 'element';
  return `${phrase([word])} ${selected}`;
}

/** The object of a verb: `the user`, `all users`; undefined when the name has none. */
function objectPhrase(head: readonly string[], context: NamingContext): string | undefined {
  if (head.length === 0) return undefined;
  const first = (head[0] ?? '').toLowerCase();
  if (QUANTIFIERS.has(first)) {
    if (head.length > 1) return `${first} ${phrase(head.slice(1))}`;
    return `${first} ${context.firstParameterPhrase ? pluralize(context.firstParameterPhrase) : 'items'}`;
  }
  return `the ${phrase(head)}`;
}

/** A prepositional rest; a bare trailing preposition (`idsOf`) is completed with the first parameter. */
function prepositionalText(tail: readonly string[], context: NamingContext): string {
  if (tail.length === 0) return '';
  const subject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : undefined);
  if (tail.length === 1 && subject) return ` ${phrase(tail)} ${subject}`;
  return ` ${phrase(tail)}`;
}

// ---------------------------------------------------------------------------------------------
// Summary sentences

export function functionSummary(context: NamingContext, returns: TypeShape | undefined): string {
  if (!context.rawName) return isNothing(returns ?? { kind: 'void' }) ? "Runs this module's default export." : "Computes the result of this module's default export.";
  if (!context.plainName) return sentence(`Implements ${backticked(context.rawName)}`);
  if (context.words.length === 0) return "Runs this module's default export.";
  const predicate = predicateClause(context);
  if (predicate) return sentence(`Checks whether ${predicate}${context.manner}`);
  const firstWord = (context.words[0] ?? '').toLowerCase();
  if (!context.verb && PREPOSITIONS.has(firstWord)) return prepositionSummary(firstWord, context, returns);
  const { head, tail } = splitAtPreposition(context.rest);
  const object = phrase(head);
  const theObject = objectPhrase(head, context);
  const tailText = prepositionalText(tail, context);
  const returnNoun = returns ? nounOfShape(returns) : undefined;
  const fallbackObject = context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : returnNoun && returnNoun !== 'value' ? `the ${returnNoun}` : undefined);
  const manner = context.manner;
  switch (context.verb) {
    case 'get':
      return sentence(`Gets ${theObject ?? `the ${returnNoun ?? 'value'}`}${tailText}${manner}`);
    case 'set':
      return sentence(`Sets ${theObject ?? 'the value'}${tailText}${manner}`);
    case 'create':
    case 'make':
    case 'build':
    case 'new': {
      const created = object ? (isPluralWord(head[head.length - 1] ?? '') || QUANTIFIERS.has((head[0] ?? '').toLowerCase()) ? object : withArticle(object)) : `a new ${returnNoun && returnNoun !== 'value' ? returnNoun : (context.owner ?? 'instance')}`;
      return sentence(`Creates ${created}${tailText}${manner}`);
    }
    case 'to': {
      const target = ['string', 'number', 'array', 'object', 'map', 'set', 'list'].includes(object) ? withArticle(object) : object;
      return sentence(`Converts ${context.firstParameterSubject ?? (context.owner ? `the ${context.owner}` : 'the value')} to ${target}${manner}`);
    }
    case 'on':
      return sentence(`Handles the ${phrase(context.rest)} event`);
    case undefined: {
      // A noun phrase names what the function computes.
      const selected = selectorNoun(context);
      if (selected) return sentence(`Gets the ${selected}${context.firstParameterSubject && !selected.endsWith('element') ? '' : context.firstParameterSubject ? ` of ${context.firstParameterSubject}` : ''}${manner}`);
      if (returns && !isNothing(returns)) {
        const verbText = context.kind === 'method' && !context.firstParameterSubject ? 'Gets' : 'Computes';
        return sentence(`${verbText} the ${phrase(head)}${tailText}${manner}`);
      }
      return sentence(`Runs the ${phrase(context.words)} routine${manner}`);
    }
    default: {
      const verbText = capitalize(thirdPerson(context.verb));
      if (theObject) return sentence(`${verbText} ${theObject}${tailText}${manner}`);
      if (tail.length > 0) {
        const leadingObject = fallbackObject && ['load', 'read', 'fetch', 'parse', 'create', 'build'].includes(context.verb) && tail.length > 1 ? ` ${fallbackObject}` : '';
        return sentence(`${verbText}${leadingObject}${prepositionalText(tail, context)}${manner}`);
      }
      if (fallbackObject) return sentence(`${verbText} ${fallbackObject}${manner}`);
      return sentence(`${verbText}${context.destructuredFirstParameter ? ' with the given options' : ''}${manner}`);
    }
  }
}

/** Names that start with a preposition: `withStatus`, `fromJson`, `asString`. */
function prepositionSummary(preposition: string, context: NamingContext, returns: TypeShape | undefined): string {
  const rest = phrase(context.words.slice(1));
  const given = rest ? `the given ${rest}` : (context.firstParameterSubject ?? 'the given value');
  switch (preposition) {
    case 'with':
      return sentence(`Returns ${returns?.kind === 'this' ? 'this instance' : 'a copy'} with ${given}`);
    case 'from': {
      const made = returns && returns.kind !== 'any' && returns.kind !== 'other' && !isNothing(returns) ? nounOfShape(returns) : (context.owner ?? 'instance');
      return sentence(`Creates ${withArticle(made)} from ${rest ? (/^[A-Z0-9/-]+$/.test(rest) ? rest : withArticle(rest)) : given}`);
    }
    case 'as':
      return sentence(`Returns ${context.owner && !context.firstParameterSubject ? `the ${context.owner}` : (context.firstParameterSubject ?? 'the value')} as ${rest ? withArticle(rest) : 'another type'}`);
    default:
      return sentence(`Computes the result ${phrase(context.words)}`);
  }
}

export function joinList(items: string[], conjunction = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1] ?? ''}`;
}

// ---------------------------------------------------------------------------------------------
// Returns

export function isNothing(shape: TypeShape): boolean {
  return shape.kind === 'void' || shape.kind === 'null' || (shape.kind === 'promise' && (shape.inner.kind === 'void' || shape.inner.kind === 'null'));
}

/** A noun for what a type holds: `config`, `strings`, `value`. */
export function nounOfShape(shape: TypeShape): string {
  switch (shape.kind) {
    case 'named':
      return phrase(splitIdentifier(shape.name.replace(/^I(?=[A-Z][a-z])/, '')));
    case 'string':
    case 'number':
      return shape.kind;
    case 'bigint':
      return 'big integer';
    case 'boolean':
      return 'flag';
    case 'array':
      return pluralize(nounOfShape(shape.element));
    case 'promise':
      return 'promise';
    case 'function':
      return 'function';
    case 'optional':
      return nounOfShape(shape.inner);
    case 'this':
      return 'instance';
    default:
      return 'value';
  }
}

/** Type names that transform another type: their name says nothing about the value. */
const TYPE_OPERATORS = new Set(['Omit', 'Pick', 'Partial', 'Required', 'Readonly', 'Record', 'Exclude', 'Extract', 'NonNullable', 'ReturnType', 'Awaited', 'InstanceType', 'Parameters']);

const ITERATOR_TYPES = new Set(['Generator', 'AsyncGenerator', 'Iterable', 'Iterator', 'IterableIterator', 'AsyncIterable', 'AsyncIterableIterator', 'AsyncIterator']);

export function returnsPhrase(shape: TypeShape, context: NamingContext): string {
  const noun = producedNoun(context);
  switch (shape.kind) {
    case 'promise':
      return `a promise that resolves to ${returnsPhrase(shape.inner, context)}`;
    case 'boolean': {
      // Only a name that is a whole predicate (`isEmpty`, `hasUser`) says when the answer is `true`; `isStaleByTime` does not.
      const predicate = predicateClause(context);
      const last = (predicate ?? '').split(' ').pop()?.toLowerCase() ?? '';
      // The name is about its first parameter only when it ends with it (`isValidEmail(email)`), else about `this`.
      const aboutParameter = context.firstParameterPhrase !== undefined && lastWordsMatch(phrase(context.rest), context.firstParameterPhrase);
      const aboutOwner = context.owner !== undefined && context.firstParameterPhrase === undefined;
      if (predicate && !predicate.startsWith('to ') && !PREPOSITIONS.has(last) && (aboutParameter || aboutOwner)) return `\`true\` if ${predicate}, otherwise \`false\``;
      return '`true` or `false`';
    }
    case 'optional': {
      const lookup = context.verb !== undefined && ['get', 'find', 'lookup', 'search', 'resolve', 'read', 'load', 'fetch', 'query', 'pick', 'select', 'retrieve'].includes(context.verb);
      return `${returnsPhrase(shape.inner, context)}, or \`${shape.missing}\` if ${lookup ? 'not found' : 'there is none'}`;
    }
    case 'this':
      return 'this instance, for chaining';
    case 'array':
      return noun && isPluralWord(noun.split(' ').pop() ?? '') ? `the ${noun}` : `the ${pluralize(noun && lastWordsMatch(noun, nounOfShape(shape.element)) ? noun : nounOfShape(shape.element))}`;
    case 'named': {
      if (ITERATOR_TYPES.has(shape.name)) {
        const element = shape.typeArguments[0];
        return `an iterator over the ${element && element.kind !== 'any' ? pluralize(nounOfShape(element)) : (noun ?? 'values')}`;
      }
      // The type names what comes back; the name may only say so when it agrees (`stringToInt` returns a codec).
      if (TYPE_OPERATORS.has(shape.name)) return 'the result';
      return `the ${noun && lastWordsMatch(noun, nounOfShape(shape)) ? noun : nounOfShape(shape)}`;
    }
    case 'string':
    case 'number':
    case 'bigint':
      return noun ? `the ${noun}` : `the resulting ${nounOfShape(shape)}`;
    case 'literals':
      return shape.values.length <= 5 ? `one of ${joinList(shape.values.map(backticked), 'or')}` : `the ${noun ?? 'resulting value'}`;
    case 'function':
      return noun ? `the ${noun}` : 'the resulting function';
    case 'null':
    case 'void':
      return 'nothing';
    default:
      return 'the result';
  }
}
