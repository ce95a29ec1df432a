// Held-out evaluation of the offline intent classifier, plus the symbol extractor and the model-classifier prompt helpers.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TASK_DESCRIPTIONS, TASK_IDS } from '../../server/src/protocol.js';
import type { TaskId, TaskOrNone } from '../../server/src/protocol.js';
import { DEFAULT_INTENT_THRESHOLD, classifyIntent, extractNamedSymbols, requestForm } from '../../server/src/agents/intentClassifier.js';
import { INTENT_PHRASES, OUT_OF_SCOPE_PHRASES } from '../../server/src/agents/intentPhrases.js';
import { buildClassificationPrompt, parseClassification } from '../../server/src/agents/modelClassifier.js';

/**
 * Requests written apart from the training phrases, to measure how the classifier generalises. Failing cases
 * stay in the set: a weak category is a reason to improve the phrases or the algorithm, not the test.
 */
const HELD_OUT: readonly [string, TaskId][] = [
  // document
  ['write documentation for the load method', 'document'],
  ['add a JSDoc comment to parseConfig', 'document'],
  ['please document the UserService class', 'document'],
  ['can you write a doc comment for this function?', 'document'],
  ['describe the parameters and return value of computeTotal in a comment', 'document'],
  ['this method needs a docstring', 'document'],
  ['generate TSDoc for the exported functions in this file', 'document'],
  ['add header comments documenting what this module is for', 'document'],
  ['I need docs for the Cache interface', 'document'],
  // explain
  ['explain this function', 'explain'],
  ['what does this code do?', 'explain'],
  ['walk me through how the reducer works', 'explain'],
  ['can you tell me what normalizePath is doing', 'explain'],
  ["I don't understand this regex, break it down for me", 'explain'],
  ['give me a step-by-step explanation of the sort method', 'explain'],
  ['help me understand the recursion in traverseTree', 'explain'],
  ['what is the purpose of this loop?', 'explain'],
  ['summarize what the selected code does', 'explain'],
  // rename
  ['rename fetchData to loadUsers', 'rename'],
  ['suggest a better name for this variable', 'rename'],
  ['the name tmp is meaningless, what should I call this variable?', 'rename'],
  ['change the method name getVal to getValue', 'rename'],
  ['rename the count property to total', 'rename'],
  ['give parseStuff a more descriptive name', 'rename'],
  ['can you come up with a clearer identifier for the helper function', 'rename'],
  ['rename the x parameter to something readable', 'rename'],
  ['find a better name for the UserManager class', 'rename'],
  // test
  ['generate unit tests for the Parser class', 'test'],
  ['write tests for this function', 'test'],
  ['add test cases covering the edge cases of splitWords', 'test'],
  ['I need a vitest spec for the tokenizer', 'test'],
  ['create a test suite for UserService', 'test'],
  ['cover calculateTax with unit tests including negative inputs', 'test'],
  ['add jest tests that check the error handling of loadConfig', 'test'],
  ['write a test that verifies sortUsers returns a stable order', 'test'],
  ['how should I test this method? write the tests for me', 'test'],
  // fix
  ['fix this type error', 'fix'],
  ["the compiler says property 'id' does not exist on type User, fix it", 'fix'],
  ['resolve the warning on this line', 'fix'],
  ['this line throws cannot read properties of undefined, please fix', 'fix'],
  ["there's a bug in this function, it returns NaN", 'fix'],
  ['get rid of the eslint error about unused variables', 'fix'],
  ['repair the broken import in this file', 'fix'],
  ['quick fix for the diagnostic: argument of type string is not assignable to parameter of type number', 'fix'],
  ['this code crashes with a null pointer exception, fix the bug', 'fix'],
  // optimize
  ['make this loop faster', 'optimize'],
  ['optimize the sorting function', 'optimize'],
  ['this method is too slow, speed it up', 'optimize'],
  ['reduce the time complexity of findDuplicates', 'optimize'],
  ['refactor this function to be more readable', 'optimize'],
  ['simplify this nested if statement', 'optimize'],
  ['can you improve the performance of the render method', 'optimize'],
  ['reduce the memory usage of the cache', 'optimize'],
  ["clean up this code, it's hard to read", 'optimize'],
  // generate
  ['write a function that checks whether a string is a palindrome', 'generate'],
  ['generate code to read a CSV file and return the rows', 'generate'],
  ['fill in the body of this function', 'generate'],
  ['give me a snippet that debounces a callback', 'generate'],
  ['create a helper that converts celsius to fahrenheit', 'generate'],
  ['complete the TODO in this method', 'generate'],
  ['write code that retries a fetch three times with exponential backoff', 'generate'],
  ['produce a function to merge two sorted arrays', 'generate'],
  ['generate an async function that downloads a file', 'generate'],
  // implement
  ['implement the Repository interface', 'implement'],
  ['create a class implementing the Comparable interface', 'implement'],
  ['make a subclass of BaseController', 'implement'],
  ['extend the abstract Shape class with a Circle', 'implement'],
  ['provide a concrete implementation of the Logger abstract class', 'implement'],
  ['write a class that implements EventEmitter', 'implement'],
  ['add the missing interface methods to InMemoryStore', 'implement'],
  ['derive a new class from Animal called Dog', 'implement'],
  ['stub out all the methods required by the Storage interface', 'implement'],
  // class
  ['create a class that caches HTTP responses with an LRU policy', 'class'],
  ['generate a class representing a bank account with deposit and withdraw', 'class'],
  ['write a new class for a priority queue', 'class'],
  ['I need a Matrix class with add and multiply methods', 'class'],
  ['make a class to manage user sessions', 'class'],
  ['build a TypeScript class that wraps the fetch API', 'class'],
  ['design a class for parsing command line options', 'class'],
  ['scaffold a new EventBus class', 'class'],
  ['new class: RateLimiter with a token bucket', 'class'],
  // issue
  ['parseConfig should reject negative timeouts', 'issue'],
  ['add support for YAML configuration files across the project', 'issue'],
  ['the CLI should accept a --verbose flag', 'issue'],
  ['fix issue #42: login fails when the password contains spaces', 'issue'],
  ['implement the feature request to export reports as PDF', 'issue'],
  ['the API should let users reset their password by email', 'issue'],
  ['when the cache is full, evict the oldest entry instead of throwing', 'issue'],
  ['change the logger so that it writes to a file in every module', 'issue'],
  ['add a dark mode setting to the app', 'issue'],
  // question
  ['where is the retry logic implemented?', 'question'],
  ['which files import the database module?', 'question'],
  ['how is authentication handled in this project?', 'question'],
  ['where do we define the HTTP routes?', 'question'],
  ['does the codebase use any global variables?', 'question'],
  ['who calls the saveOrder function?', 'question'],
  ['is there a helper for formatting dates in the repo?', 'question'],
  ['how many classes extend BaseModel?', 'question'],
  ['what library do we use for logging?', 'question'],
  ['which version of TypeScript does the project target', 'question'],
  // Written after the first round of tuning, to check that it generalised; kept whatever the result.
  // document
  ['put a JSDoc block on top of the exported helper', 'document'],
  ['the Router class lacks documentation', 'document'],
  ['write a short description comment for each field of the Options type', 'document'],
  ['doc this', 'document'],
  ['could you add doc comments to all public methods of OrderService', 'document'],
  ['explain in a JSDoc what the options parameter does', 'document'],
  ['the exported function formatPrice has no docs', 'document'],
  ['write a TSDoc comment with an example for this function', 'document'],
  // explain
  ["what's happening in this reduce call?", 'explain'],
  ['could you explain the difference between these two methods?', 'explain'],
  ['why is this variable declared with let instead of const?', 'explain'],
  ['how does the memoization in this hook work?', 'explain'],
  ["what's the point of this wrapper?", 'explain'],
  ["I'm lost, how does this state machine transition between states?", 'explain'],
  ['explain why this promise never resolves', 'explain'],
  ['describe step by step what happens in handleRequest', 'explain'],
  // rename
  ['fetchAll is a bad name, suggest something better', 'rename'],
  ['rename the constant MAX to MAX_RETRIES', 'rename'],
  ['what should I name this boolean flag?', 'rename'],
  ['rename all occurrences of oldName to newName', 'rename'],
  ['give this callback a name that reflects what it does', 'rename'],
  ['rename the helper util2 to something meaningful', 'rename'],
  ['is `data` a good name for this parameter or should I change it?', 'rename'],
  ['the interface IThing needs a better name', 'rename'],
  // test
  ['I want a test that proves parseDate handles leap years', 'test'],
  ['generate spec files for the validators', 'test'],
  ['what edge cases should my tests for this function cover?', 'test'],
  ['mock the HTTP client and test fetchUser', 'test'],
  ['write vitest cases for formatDuration covering zero and negative values', 'test'],
  ['generate a unit test for the happy path of checkout', 'test'],
  ['could you add tests to make sure the cache expires entries?', 'test'],
  ['produce a test file for the string utils', 'test'],
  // fix
  ['TS2345 error here, please fix', 'fix'],
  ['my build is broken because of this import error', 'fix'],
  ['the linter complains about a missing return type, fix it', 'fix'],
  ['this function returns undefined instead of the user, find the bug', 'fix'],
  ["Type 'null' is not assignable to type 'string', please fix", 'fix'],
  ['this function has an off-by-one bug, fix it', 'fix'],
  ["fix the 'cannot find module' error in this import", 'fix'],
  ['why does TypeScript complain here? fix the error', 'fix'],
  // optimize
  ['this query takes forever, optimize it', 'optimize'],
  ['rewrite this using a Set for constant time lookups', 'optimize'],
  ['the render method re-renders too often, make it more efficient', 'optimize'],
  ['deduplicate the code in these two methods', 'optimize'],
  ['can you make this function use less memory?', 'optimize'],
  ['speed up the search in this list', 'optimize'],
  ['replace these nested loops with something more efficient', 'optimize'],
  ["refactor this method, it's way too complex", 'optimize'],
  // generate
  ['write a function to validate a credit card number', 'generate'],
  ['generate a snippet that reads environment variables with defaults', 'generate'],
  ['write the implementation of this empty function', 'generate'],
  ['give me a function that formats bytes as KB, MB or GB', 'generate'],
  ['write a function that converts a hex string to RGB', 'generate'],
  ['generate code that paginates an array', 'generate'],
  ['give me a function to compute a SHA-256 hash of a string', 'generate'],
  ['write the code for this function based on its doc comment', 'generate'],
  // implement
  ['implement the Comparator interface for the Person type', 'implement'],
  ['create a subclass of HttpError for 404 responses', 'implement'],
  ['this class should implement Disposable, add the members', 'implement'],
  ['provide an implementation of the abstract method area() in Square', 'implement'],
  ['implement the missing methods of the PaymentGateway interface', 'implement'],
  ['make this class implement the Iterable interface', 'implement'],
  ['subclass EventTarget to create a custom emitter', 'implement'],
  ['write a concrete class for the abstract Repository', 'implement'],
  // class
  ['create a class representing a deck of cards', 'class'],
  ['generate a Logger class with info, warn and error methods', 'class'],
  ['write a class that wraps localStorage with typed getters', 'class'],
  ['I want a new class to hold the user preferences', 'class'],
  ['create a class called Money with currency and amount', 'class'],
  ['write a class that represents a chess board', 'class'],
  ['generate a CircularBuffer class with a fixed capacity', 'class'],
  ["I'd like a class to parse and hold semantic versions", 'class'],
  // issue
  ['the search should be case-insensitive', 'issue'],
  ['add an --output option to the CLI', 'issue'],
  ['closing the dialog must discard unsaved changes', 'issue'],
  ['support reading the config from environment variables across all services', 'issue'],
  ['the export button should also support JSON', 'issue'],
  ['add retry on network failures throughout the app', 'issue'],
  ['when a user logs out, clear all cached data', 'issue'],
  ['ticket #17: make the timeout configurable', 'issue'],
  // question
  ['where are the unit tests for the parser?', 'question'],
  ['which function sends the emails?', 'question'],
  ['is lodash used anywhere in the project?', 'question'],
  ['what calls the cleanup function?', 'question'],
  ['where is the logger instantiated?', 'question'],
  ['which modules use the EventBus?', 'question'],
  ['does anything call the deprecated sendLegacy function?', 'question'],
  ['what database does the project talk to?', 'question'],
];

/** Requests the assistant is not for; every one must come out `none`, questions included. */
const OUT_OF_DOMAIN: readonly string[] = [
  'what is the weather in Paris',
  'will it rain tomorrow in London?',
  'give me a recipe for banana bread',
  'how long should I boil an egg',
  'who won the world cup in 2018',
  "what's the score of the Lakers game",
  'hi, how are you today?',
  'thanks, have a nice day',
  'do you know any good jokes?',
  'tell me a funny joke about cats',
  'book a flight to Tokyo for next Monday',
  'what are the best places to visit in Italy',
  'find me a cheap pair of running shoes',
  'add milk and eggs to my shopping list',
  'what is 15 percent of 240',
  'solve for x: 3x + 5 = 20',
  'help me with my algebra homework on quadratic equations',
  'what is the capital of Australia',
  'translate good morning into Spanish',
  'recommend a good book for the summer',
  'how do I fix a flat bicycle tire',
  'write a poem about the ocean',
  'explain the offside rule in football',
  'set an alarm for 7 am',
  'order a large pepperoni pizza',
  'what should I cook for dinner tonight',
  'how many calories are in an apple',
  'who is the president of France',
  'how do I get to the train station',
  'is it going to be sunny on Saturday',
  "what's a good name for my dog?",
  'write a birthday message for my mom',
  'can you test my knowledge of world capitals?',
  'explain how photosynthesis works',
  'fix my relationship with my sister',
  "what's the best pizza place near me",
  'convert 30 miles to kilometers',
  'who wrote Pride and Prejudice',
  'I feel tired today',
  'what should I name my new cat?',
  'remind me to call mom at 6',
  'how do I fix a leaking tap',
  'how far is the moon',
  'tell me about the history of Rome',
  'generate a shopping list for a barbecue',
];

describe('classifyIntent', () => {
  it('is accurate on the held-out in-domain requests', () => {
    const misses: string[] = [];
    const confusion = new Map<string, number>();
    for (const [text, expected] of HELD_OUT) {
      const result = classifyIntent(text);
      if (result.task !== expected) {
        misses.push(`  ${expected} → ${result.task} (${result.confidence}): ${text}`);
        const key = `${expected} → ${result.task}`;
        confusion.set(key, (confusion.get(key) ?? 0) + 1);
      }
    }
    const accuracy = (HELD_OUT.length - misses.length) / HELD_OUT.length;
    const table = [...confusion].sort((a, b) => b[1] - a[1]).map(([pair, count]) => `  ${pair}: ${count}`);
    console.log(
      `held-out accuracy ${accuracy.toFixed(3)} (${HELD_OUT.length - misses.length}/${HELD_OUT.length})` +
        (misses.length > 0 ? `\nconfusion of misses (expected → got):\n${table.join('\n')}\nmisses:\n${misses.join('\n')}` : ''),
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.85);
  });

  it('answers none for every out-of-domain request', () => {
    const wrong = OUT_OF_DOMAIN.map((text) => ({ text, result: classifyIntent(text) })).filter(({ result }) => result.task !== 'none');
    expect(wrong.map(({ text, result }) => `${text} → ${result.task} (${result.confidence})`)).toEqual([]);
  });

  it.each([
    ['write documentation for the load method', 'document'],
    ['what is the weather in Paris', 'none'],
    ['add a JSDoc comment to parseConfig', 'document'],
    ['explain this function', 'explain'],
    ['rename fetchData to loadUsers', 'rename'],
    ['generate unit tests for the Parser class', 'test'],
    ['fix this type error', 'fix'],
    ['make this loop faster', 'optimize'],
    ['implement the Repository interface', 'implement'],
    ['create a class that caches HTTP responses with an LRU policy', 'class'],
    ['parseConfig should reject negative timeouts', 'issue'],
    ['where is the retry logic implemented?', 'question'],
  ] as [string, TaskOrNone][])('classifies "%s" as %s', (text, expected) => {
    expect(classifyIntent(text).task).toBe(expected);
  });

  it('covers the held-out set as the brief asks', () => {
    for (const task of TASK_IDS) expect(HELD_OUT.filter(([, label]) => label === task).length).toBeGreaterThanOrEqual(5);
    expect(OUT_OF_DOMAIN.length).toBeGreaterThanOrEqual(15);
    expect(HELD_OUT.length + OUT_OF_DOMAIN.length).toBeGreaterThanOrEqual(80);
  });

  it('keeps the held-out set apart from the training phrases', () => {
    const training = new Set([...Object.values(INTENT_PHRASES).flat(), ...OUT_OF_SCOPE_PHRASES].map((phrase) => phrase.toLowerCase()));
    const copies = [...HELD_OUT.map(([text]) => text), ...OUT_OF_DOMAIN].filter((text) => training.has(text.toLowerCase()));
    expect(copies).toEqual([]);
    for (const task of TASK_IDS) expect(INTENT_PHRASES[task].length).toBeGreaterThanOrEqual(15);
  });

  it('keeps the intent evaluation sets apart from the phrases and from each other', () => {
    const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'intents');
    const sets = ['tuning', 'heldOut', 'terse', 'tuning2'].map((name) => (JSON.parse(fs.readFileSync(path.join(folder, `${name}.json`), 'utf8')) as { cases: { text: string }[] }).cases.map((c) => c.text.toLowerCase()));
    const phrases = new Set([...Object.values(INTENT_PHRASES).flat(), ...OUT_OF_SCOPE_PHRASES].map((phrase) => phrase.toLowerCase()));
    expect(sets.flat().filter((text) => phrases.has(text))).toEqual([]);
    const [tuning = [], heldOut = [], terse = [], tuning2 = []] = sets;
    expect(heldOut.filter((text) => tuning.includes(text) || terse.includes(text) || tuning2.includes(text))).toEqual([]);
    expect(terse.filter((text) => tuning.includes(text) || tuning2.includes(text))).toEqual([]);
    expect(tuning2.filter((text) => tuning.includes(text))).toEqual([]);
  });

  it('returns every task score sorted descending with a confidence in 0..1', () => {
    const result = classifyIntent('explain this function');
    expect(result.scores.map(({ task }) => task).sort()).toEqual([...TASK_IDS].sort());
    for (let i = 1; i < result.scores.length; i++) expect(result.scores[i - 1]!.score).toBeGreaterThanOrEqual(result.scores[i]!.score);
    expect(result.confidence).toBeGreaterThan(DEFAULT_INTENT_THRESHOLD);
    expect(result.confidence).toBeLessThanOrEqual(1);
  });

  it('falls back to none when the threshold is above the confidence, and is deterministic', () => {
    const text = 'make this loop faster';
    const first = classifyIntent(text);
    expect(classifyIntent(text)).toEqual(first);
    expect(classifyIntent(text, { threshold: 1.01 }).task).toBe('none');
    expect(classifyIntent('', {}).task).toBe('none');
    expect(classifyIntent('the of and').task).toBe('none');
    expect(classifyIntent('what is the weather in Paris').confidence).toBe(0);
  });

  it('treats spelling variants alike', () => {
    expect(classifyIntent('optimise the parser').task).toBe('optimize');
    expect(classifyIntent('documenting `Config.load`').task).toBe('document');
    expect(classifyIntent('testing parse_config').task).toBe('test');
  });

  it("counts a name the document declares as talk about code: \"make spread faster\" is optimize only where spread exists", () => {
    expect(classifyIntent('make spread more efficient').task).toBe('none');
    expect(classifyIntent('make spread more efficient', { symbols: new Set(['spread', 'median']) }).task).toBe('optimize');
    expect(classifyIntent('write the body of median', { symbols: new Set(['spread', 'median']) }).task).toBe('generate');
  });
});

describe('classifyIntent with typos, terse forms and the cursor', () => {
  const onError = { inCode: true, offers: ['fix'] as TaskId[] };
  const inEmptyBody = { inCode: true, offers: ['generate'] as TaskId[] };
  const inCode = { inCode: true, offers: [] as TaskId[] };

  it.each([
    ['expalin parseConfig', 'explain'],
    ['tset parseConfig', 'test'],
    ['docuemnt parseConfig', 'document'],
    ['optimzie parseConfig', 'optimize'],
  ] as [string, TaskOrNone][])('reads the misspelt "%s" as %s', (text, expected) => {
    expect(classifyIntent(text).task).toBe(expected);
  });

  it('corrects neither names nor everyday words into code words', () => {
    // "Paris" is a name, not "parse"; "letter" is two edits from "linter", a word no phrase uses.
    expect(classifyIntent('what is the weather in Paris').task).toBe('none');
    expect(classifyIntent('write a love letter').task).toBe('none');
  });

  it('counts the code at the cursor as what a request without code words is about', () => {
    expect(classifyIntent('correct it').task).toBe('none');
    expect(classifyIntent('correct it', { cursor: onError }).task).toBe('fix');
    expect(classifyIntent('make the red squiggle vanish', { cursor: onError }).task).toBe('fix');
    expect(classifyIntent('fill it in', { cursor: inEmptyBody }).task).toBe('generate');
    expect(classifyIntent('wat is this', { cursor: inCode }).task).toBe('explain');
    // Everyday words stay out of scope wherever the cursor is.
    expect(classifyIntent('what is the weather in Paris', { cursor: onError }).task).toBe('none');
  });

  it('reads "a class named X" as a new class, not a rename', () => {
    expect(classifyIntent('write a class named Ledger that records payments').task).toBe('class');
    expect(classifyIntent('generate a class called Ledger').task).toBe('class');
  });

  it('sends a bug described in words to the issue task, and a bug at a diagnostic to fix', () => {
    expect(classifyIntent('fix the bug where saving drops the last line of parseConfig').task).toBe('issue');
    expect(classifyIntent('fix the bug where saving drops the last line of parseConfig', { cursor: onError }).task).toBe('fix');
  });
});

describe('classifyIntent by the form of the request', () => {
  const symbols = new Set(['parseConfig', 'loadUser', 'Store', 'slugify']);
  const implementable = new Set(['Store']);
  const onError = { inCode: true, offers: ['fix'] as TaskId[] };
  const inBody = { inCode: true, offers: [] as TaskId[] };

  it('reads what a request asks from the order and kind of its words', () => {
    expect(requestForm('what calls parseConfig')).toMatchObject({ asksOrSearches: true, aboutUses: true, aboutBehaviour: false });
    expect(requestForm('what does parseConfig return when the file is missing')).toMatchObject({ aboutBehaviour: true, aboutUses: false });
    expect(requestForm('how do I write a function that flattens arrays')).toMatchObject({ asksOrSearches: true, aboutBehaviour: false });
    expect(requestForm('list the callers of loadUser')).toMatchObject({ asksOrSearches: true });
    expect(requestForm('parseConfig ought to reject negative timeouts')).toMatchObject({ requirement: true, asksOrSearches: false });
    expect(requestForm('should parseConfig reject negative timeouts?')).toMatchObject({ requirement: false });
    expect(requestForm('make it shorter')).toMatchObject({ pointing: true });
  });

  it('sends an instruction that neither asks nor searches to a task other than the question', () => {
    expect(classifyIntent('this parameter has an implicit any, type it', { symbols, cursor: onError }).task).toBe('fix');
  });

  it('answers a question about what code does with an explanation, not new code or an issue', () => {
    expect(classifyIntent('what does parseConfig return when the file is missing', { symbols }).task).toBe('explain');
  });

  it('sends a question about what uses a declaration to the question task', () => {
    expect(classifyIntent('what calls loadUser', { symbols }).task).toBe('question');
  });

  it('reads a requirement on named code as an issue, whatever modal it uses', () => {
    expect(classifyIntent('loadUser ought to cache its result', { symbols }).task).toBe('issue');
    expect(classifyIntent('loadUser has to refuse blank names', { symbols }).task).toBe('issue');
  });

  it('reads a fault said of named code as an issue, and the same words on a compiler error as a fix', () => {
    expect(classifyIntent('slugify swallows the error when the input is empty', { symbols }).task).toBe('issue');
    expect(classifyIntent('slugify swallows the error when the input is empty', { symbols, cursor: onError }).task).toBe('fix');
  });

  it('reads a name mapped onto a new one as a rename', () => {
    expect(classifyIntent('parseConfig -> readConfig', { symbols }).task).toBe('rename');
    expect(classifyIntent('rnmae loadUser to fetchUserRecord', { symbols }).task).toBe('rename');
  });

  it('reads naming an interface as pointing at it, and a new name next to "class" as a new class', () => {
    expect(classifyIntent('a Redis-backed Store', { symbols, implementable }).task).toBe('implement');
    expect(classifyIntent('make me a Money class with amount and currency', { symbols, implementable }).task).toBe('class');
  });

  it('reads a new function or method described by what it does as code to write, whatever words describe it', () => {
    // Words of faults and questions ("issues", "problems", "error") in what the new code returns are no bug report.
    expect(requestForm('add a method that returns the number of issues')).toMatchObject({ newCodeUnit: true });
    expect(requestForm('please write a helper to count the errors')).toMatchObject({ newCodeUnit: true });
    expect(requestForm('add a feature that exports issues')).toMatchObject({ newCodeUnit: false });
    expect(classifyIntent('add a method that returns the number of issues', { symbols }).task).toBe('generate');
    expect(classifyIntent('write a function that counts the problems found', { symbols }).task).toBe('generate');
    expect(classifyIntent('fix the issue where saving fails', { symbols }).task).not.toBe('generate');
  });

  it('does not read "make this a one-liner" on written code as a request for new code', () => {
    expect(classifyIntent('make this a one-liner', { symbols, cursor: inBody }).task).toBe('optimize');
  });
});

describe('extractNamedSymbols', () => {
  it.each([
    ['write documentation for the load method', ['load']],
    ['add a JSDoc comment to `parseConfig`', ['parseConfig']],
    ['add a JSDoc comment to parseConfig', ['parseConfig']],
    ['rename fooBar to bazQux', ['fooBar', 'bazQux']],
    ['explain Config.load', ['Config.load']],
    ['generate unit tests for the Parser class', ['Parser']],
    ['implement the Repository interface', ['Repository']],
    ['rename the count property to total', ['count', 'total']],
    ['rename this method to loadAll', ['loadAll']],
    ['what does parse_config() return?', ['parse_config']],
    ['call `save()` from the method handleSubmit', ['save', 'handleSubmit']],
    ['make a class named Invoice', ['Invoice']],
    ['create a class InMemoryRepo that implements Repo', ['InMemoryRepo', 'Repo']],
    ['make a Square that extends Shape', ['Shape']],
  ])('finds the symbols in "%s"', (text, expected) => {
    expect(extractNamedSymbols(text)).toEqual(expected);
  });

  it.each([
    'what is the weather in Paris',
    'explain this function',
    'create a class that caches HTTP responses with an LRU policy',
    'write a new class for a priority queue',
    'fix this type error',
    'update config.json, e.g. the port',
    'rename it to something shorter',
  ])('finds no symbol in "%s"', (text) => {
    expect(extractNamedSymbols(text)).toEqual([]);
  });
});

describe('buildClassificationPrompt', () => {
  const tasks = TASK_IDS.map((id) => ({ id, description: TASK_DESCRIPTIONS[id] }));

  it('lists the tasks 1..n and "None of the above" as n+1, and asks for the number only', () => {
    const { system, user } = buildClassificationPrompt('make this loop faster', tasks);
    expect(system.length).toBeGreaterThan(0);
    const prompt = `${system}\n${user}`;
    tasks.forEach((task, index) => expect(prompt).toContain(`${index + 1}. ${task.description}`));
    expect(prompt).toContain(`${tasks.length + 1}. None of the above`);
    expect(prompt).toContain('make this loop faster');
    expect(prompt.toLowerCase()).toContain('number');
  });

  it('fills a user template with the request and the list', () => {
    const { user } = buildClassificationPrompt('explain this', tasks.slice(0, 2), 'Tasks:\n{{tasks}}\nRequest: {{request}}\nNumber?');
    expect(user).toBe(`Tasks:\n1. ${tasks[0]!.description}\n2. ${tasks[1]!.description}\n3. None of the above\nRequest: explain this\nNumber?`);
    expect(buildClassificationPrompt('replace $& and $1', tasks, '{{ request }}').user).toBe('replace $& and $1');
  });
});

describe('parseClassification', () => {
  const tasks = TASK_IDS.map((id) => ({ id, description: TASK_DESCRIPTIONS[id] }));
  const none = String(tasks.length + 1);

  it.each([
    ['3', 'rename'],
    ['3.', 'rename'],
    ['Answer: 3', 'rename'],
    ['4) Generate tests', 'test'],
    ['**4**', 'test'],
    [' 7\n', 'generate'],
    ['The request is about task 5.', 'fix'],
    ['optimize', 'optimize'],
    ['Category: question', 'question'],
    ['Generate unit tests for a function or class', 'test'],
    ['It asks to explain what a piece of code does.', 'explain'],
    [none, 'none'],
    [`${none}. None of the above`, 'none'],
    ['None of the above', 'none'],
    ['none', 'none'],
  ] as [string, TaskOrNone][])('reads %j as %s', (reply, expected) => {
    expect(parseClassification(reply, tasks)).toBe(expected);
  });

  it('prefers the number to the words after it', () => {
    const three = [tasks[0]!, tasks[1]!, tasks[3]!];
    expect(parseClassification('3) Generate tests', three)).toBe('test');
    expect(parseClassification('4', three)).toBe('none');
    expect(parseClassification('5', three)).toBeUndefined();
  });

  it.each(['', '   ', 'I am not sure', '42', '0', 'banana'])('gives up on %j', (reply) => {
    expect(parseClassification(reply, tasks)).toBeUndefined();
  });
});
