// Workspace questions about zod 4.1.12, phrased as users type them, each answer checked by reading the package's sources.
import type { QuestionSets } from './questionSet.js';

const core = 'src/v4/core';
const classic = 'src/v4/classic';

/** The held-out questions were written with the tuning ones and never looked at while changing the ranking. */
export const ZOD_QUESTIONS: QuestionSets = {
  tuning: [
    { query: 'convert a schema to JSON Schema', expected: [{ file: `${core}/to-json-schema.ts`, symbol: 'toJSONSchema' }], keywords: ['toJSONSchema'] },
    { query: 'where is email validated?', expected: [{ file: `${core}/regexes.ts`, symbol: 'email' }, { file: `${core}/schemas.ts`, symbol: '$ZodEmail' }], keywords: ['email'] },
    { query: 'how does safeParse work', expected: [{ file: `${core}/parse.ts`, symbol: '_safeParse' }, { file: `${core}/parse.ts`, symbol: 'safeParse' }, { file: `${classic}/parse.ts`, symbol: 'safeParse' }], keywords: ['safeParse'] },
    { query: 'how are discriminated unions parsed', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodDiscriminatedUnion' }], keywords: ['DiscriminatedUnion'] },
    { query: 'flatten errors into field errors', expected: [{ file: `${core}/errors.ts`, symbol: 'flattenError' }], keywords: ['flattenError'] },
    { query: 'where is the global registry for schema metadata', expected: [{ file: `${core}/registries.ts`, symbol: 'globalRegistry' }, { file: `${core}/registries.ts`, symbol: '$ZodRegistry' }], keywords: ['registry'] },
    { query: 'how does .default() fill in undefined values', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodDefault' }, { file: `${classic}/schemas.ts`, symbol: '_default' }], keywords: ['default'] },
    // Added in a second round, written after the first seven were nearly solved, as a user new to zod would type them.
    { query: 'how do I make a field optional', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodOptional' }, { file: `${classic}/schemas.ts`, symbol: 'optional' }], keywords: ['optional'] },
    { query: 'where is the minimum length of a string checked', expected: [{ file: `${core}/checks.ts`, symbol: '$ZodCheckMinLength' }, { file: `${core}/api.ts`, symbol: '_minLength' }], keywords: ['minLength'] },
    { query: 'how does z.coerce.number turn strings into numbers', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodNumber' }, { file: `${classic}/coerce.ts`, symbol: 'number' }, { file: `${core}/api.ts`, symbol: '_coercedNumber' }], keywords: ['coerce'] },
    { query: 'what happens to unknown keys in an object schema', expected: [{ file: `${core}/schemas.ts`, symbol: 'handleCatchall' }, { file: `${core}/schemas.ts`, symbol: '$ZodObject' }], keywords: ['catchall'] },
    { query: 'add a custom validation with refine', expected: [{ file: `${classic}/schemas.ts`, symbol: 'refine' }, { file: `${core}/api.ts`, symbol: '_refine' }, { file: `${core}/schemas.ts`, symbol: '$ZodCustom' }], keywords: ['refine'] },
    { query: 'how does a union pick which option matched', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodUnion' }, { file: `${core}/schemas.ts`, symbol: 'handleUnionResults' }], keywords: ['union'] },
    { query: 'get the typescript type of a schema', expected: [{ file: `${core}/core.ts`, symbol: 'output' }, { file: `${core}/core.ts`, symbol: 'input' }], keywords: ['output'] },
    { query: 'combine two object schemas into one', expected: [{ file: `${core}/util.ts`, symbol: 'merge' }, { file: `${core}/util.ts`, symbol: 'extend' }, { file: `${classic}/schemas.ts`, symbol: 'ZodObject' }], keywords: ['merge'] },
    { query: 'how are enum values checked', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodEnum' }, { file: `${core}/api.ts`, symbol: '_enum' }], keywords: ['enum'] },
    { query: 'parse with async refinements', expected: [{ file: `${core}/parse.ts`, symbol: 'parseAsync' }, { file: `${core}/parse.ts`, symbol: '_parseAsync' }, { file: `${core}/parse.ts`, symbol: 'safeParseAsync' }], keywords: ['parseAsync'] },
    // Added in a third round, written after the second as a user new to zod would type them, before running them.
    { query: 'how do I transform a value after parsing', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodTransform' }, { file: `${classic}/schemas.ts`, symbol: 'transform' }], keywords: ['transform'] },
    { query: 'pretty print validation errors', expected: [{ file: `${core}/errors.ts`, symbol: 'prettifyError' }], keywords: ['prettifyError'] },
    { query: 'how do I define a recursive schema', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodLazy' }, { file: `${classic}/schemas.ts`, symbol: 'lazy' }], keywords: ['lazy'] },
    { query: 'make every field of an object optional', expected: [{ file: `${core}/util.ts`, symbol: 'partial' }], keywords: ['partial'] },
  ],
  heldOut: [
    { query: 'print a readable message from a ZodError', expected: [{ file: `${core}/errors.ts`, symbol: 'prettifyError' }], keywords: ['prettifyError'] },
    { query: 'what regex is used for uuids', expected: [{ file: `${core}/regexes.ts`, symbol: 'uuid' }], keywords: ['uuid'] },
    { query: 'where does a transform run', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodTransform' }], keywords: ['transform'] },
    { query: 'how does catch recover from a failed parse', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodCatch' }], keywords: ['catch'] },
    { query: 'how are lazy recursive schemas resolved', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodLazy' }], keywords: ['lazy'] },
    { query: 'where is the global config for custom error messages set', expected: [{ file: `${core}/core.ts`, symbol: 'config' }, { file: `${core}/core.ts`, symbol: 'globalConfig' }], keywords: ['config'] },
  ],
  // Written later, from the sources alone, by an engineer who never saw how the product ranks them: measured only.
  heldOut2: [
    { query: 'check that a string is a valid url', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodURL' }, { file: `${classic}/schemas.ts`, symbol: 'url' }, { file: `${core}/api.ts`, symbol: '_url' }], keywords: ['url'] },
    { query: 'report several issues from one custom check with superRefine', expected: [{ file: `${classic}/schemas.ts`, symbol: 'superRefine' }, { file: `${core}/api.ts`, symbol: '_superRefine' }], keywords: ['superRefine'] },
    { query: 'accept null as well as a string', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodNullable' }, { file: `${classic}/schemas.ts`, symbol: 'nullable' }, { file: `${core}/api.ts`, symbol: '_nullable' }], keywords: ['nullable'] },
    { query: 'how does pipe pass the output of one schema into the next', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodPipe' }, { file: `${core}/schemas.ts`, symbol: 'handlePipeResult' }, { file: `${classic}/schemas.ts`, symbol: 'pipe' }], keywords: ['pipe'] },
    { query: 'validate an ISO 8601 date-time string', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodISODateTime' }, { file: `${core}/regexes.ts`, symbol: 'datetime' }, { file: `${classic}/iso.ts`, symbol: 'datetime' }, { file: `${core}/api.ts`, symbol: '_isoDateTime' }], keywords: ['datetime'] },
    { query: 'an object whose keys can be any string, like a dictionary', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodRecord' }, { file: `${classic}/schemas.ts`, symbol: 'record' }, { file: `${core}/api.ts`, symbol: '_record' }], keywords: ['record'] },
    { query: 'array with a fixed number of items of different types', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodTuple' }, { file: `${classic}/schemas.ts`, symbol: 'tuple' }, { file: `${core}/api.ts`, symbol: '_tuple' }], keywords: ['tuple'] },
    { query: 'keep only a few fields of an object schema', expected: [{ file: `${core}/util.ts`, symbol: 'pick' }, { file: `${classic}/schemas.ts`, symbol: 'ZodObject.pick' }], keywords: ['pick'] },
    { query: 'the number must be between 1 and 10', expected: [{ file: `${core}/checks.ts`, symbol: '$ZodCheckGreaterThan' }, { file: `${core}/checks.ts`, symbol: '$ZodCheckLessThan' }, { file: `${core}/api.ts`, symbol: '_gte' }, { file: `${core}/api.ts`, symbol: '_lte' }, { file: `${classic}/schemas.ts`, symbol: '_ZodNumber.min' }, { file: `${classic}/schemas.ts`, symbol: '_ZodNumber.max' }], keywords: ['gte'] },
    { query: 'parse "yes" and "no" strings as booleans', expected: [{ file: `${core}/api.ts`, symbol: '_stringbool' }, { file: `${classic}/schemas.ts`, symbol: 'stringbool' }], keywords: ['stringbool'] },
  ],
  // Written after held-out-2 was measured, in its newcomer manner (everyday words, typos), to tune the next ranking round on.
  tuning3: [
    { query: 'my form has nested objects, how do i get the errors in the same nested shape as the form', expected: [{ file: `${core}/errors.ts`, symbol: 'treeifyError' }, { file: `${core}/errors.ts`, symbol: 'formatError' }, { file: `${classic}/errors.ts`, symbol: 'ZodError.format' }], keywords: ['treeifyError'] },
    { query: 'make the fields required again after .partial()', expected: [{ file: `${core}/util.ts`, symbol: 'required' }, { file: `${classic}/schemas.ts`, symbol: 'ZodObject.required' }, { file: `${core}/schemas.ts`, symbol: '$ZodNonOptional' }], keywords: ['required'] },
    { query: 'how do i stop userId and orderId getting mixed up? theyre both just strings', expected: [{ file: `${core}/core.ts`, symbol: '$brand' }, { file: `${core}/core.ts`, symbol: '$ZodBranded' }, { file: `${classic}/schemas.ts`, symbol: 'ZodType.brand' }], keywords: ['brand'] },
    { query: 'freeze the parsed result so nobody can change it afterwards', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodReadonly' }, { file: `${core}/schemas.ts`, symbol: 'handleReadonlyResult' }, { file: `${classic}/schemas.ts`, symbol: 'readonly' }], keywords: ['readonly'] },
    { query: 'validate an uploaded file: max 5mb and only images', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodFile' }, { file: `${core}/checks.ts`, symbol: '$ZodCheckMaxSize' }, { file: `${core}/checks.ts`, symbol: '$ZodCheckMimeType' }, { file: `${classic}/schemas.ts`, symbol: 'file' }, { file: `${core}/api.ts`, symbol: '_maxSize' }, { file: `${core}/api.ts`, symbol: '_mime' }], keywords: ['mime'] },
    { query: 'string has to mach my own regex', expected: [{ file: `${core}/checks.ts`, symbol: '$ZodCheckRegex' }, { file: `${core}/api.ts`, symbol: '_regex' }, { file: `${classic}/schemas.ts`, symbol: '_ZodString.regex' }], keywords: ['regex'] },
    { query: 'strip the spaces and lowercase the input before validating it', expected: [{ file: `${core}/api.ts`, symbol: '_trim' }, { file: `${core}/api.ts`, symbol: '_toLowerCase' }, { file: `${core}/checks.ts`, symbol: '$ZodCheckOverwrite' }, { file: `${classic}/schemas.ts`, symbol: '_ZodString.trim' }, { file: `${classic}/schemas.ts`, symbol: '_ZodString.toLowerCase' }], keywords: ['trim'] },
    { query: 'what is z.codec for and how does encode run a schema backwards', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodCodec' }, { file: `${core}/schemas.ts`, symbol: 'handleCodecAResult' }, { file: `${classic}/schemas.ts`, symbol: 'codec' }, { file: `${core}/parse.ts`, symbol: '_encode' }, { file: `${core}/parse.ts`, symbol: 'encode' }], keywords: ['codec'] },
    { query: "only allow the exact string 'admin'", expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodLiteral' }, { file: `${core}/api.ts`, symbol: '_literal' }, { file: `${classic}/schemas.ts`, symbol: 'literal' }], keywords: ['literal'] },
    { query: 'no decimals allowed, whole numbers only', expected: [{ file: `${core}/checks.ts`, symbol: '$ZodCheckNumberFormat' }, { file: `${core}/api.ts`, symbol: '_int' }, { file: `${classic}/schemas.ts`, symbol: 'int' }, { file: `${core}/regexes.ts`, symbol: 'integer' }], keywords: ['integer'] },
    { query: 'what does .and() do when both sides have the same key with different values', expected: [{ file: `${core}/schemas.ts`, symbol: '$ZodIntersection' }, { file: `${core}/schemas.ts`, symbol: 'mergeValues' }, { file: `${core}/schemas.ts`, symbol: 'handleIntersectionResults' }, { file: `${classic}/schemas.ts`, symbol: 'intersection' }, { file: `${classic}/schemas.ts`, symbol: 'ZodType.and' }], keywords: ['intersection'] },
    { query: 'validation msgs in spanish pls', expected: [{ file: 'src/v4/locales/es.ts', symbol: 'error' }, { file: `${core}/core.ts`, symbol: 'config' }, { file: `${core}/util.ts`, symbol: 'finalizeIssue' }], keywords: ['locale'] },
  ],
};
