// Shape checks of client-supplied params at the protocol boundary: a wrong type is InvalidParams here, never a TypeError in the core.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { isPosition, isRange } from '../edits/textEdits.js';

type Check = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString: Check = (value) => typeof value === 'string';
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const isDocument: Check = (value) => isObject(value) && isString(value.uri) && (value.version === undefined || value.version === null || Number.isInteger(value.version));
const isDiagnostic: Check = (value) => isObject(value) && isRange(value.range) && isString(value.message);
const isStringMap: Check = (value) => isObject(value) && Object.values(value).every(isString);
const isToken: Check = (value) => isString(value) || Number.isInteger(value);

/** Throws InvalidParams naming the first field of `value` that does not pass its check. */
function expectShape(what: string, value: unknown, fields: Record<string, Check>): void {
  if (!isObject(value)) throw new ResponseError(ErrorCodes.InvalidParams, `${what} must be an object.`);
  for (const [field, check] of Object.entries(fields)) {
    if (!check(value[field])) throw new ResponseError(ErrorCodes.InvalidParams, `${what}: "${field}" does not have the expected type.`);
  }
}

/** `TaskCommandArgs`: the document and range are optional here (a question needs neither); their types are not. */
export function expectTaskArgs(what: string, value: unknown): void {
  expectShape(what, value, { textDocument: optional(isDocument), range: optional(isRange), symbol: optional(isString), agent: optional(isString), diagnostic: optional(isDiagnostic), parameters: optional(isStringMap) });
}

export function expectAskParams(value: unknown): void {
  expectShape('assistant/ask', value, { text: optional(isString), textDocument: optional(isDocument), range: optional(isRange), task: optional(isString), workDoneToken: optional(isToken) });
}

const isStepFeedback: Check = (value) => isObject(value) && isString(value.text) && (value.step === undefined || isString(value.step) || Number.isInteger(value.step)) && optional(isString)(value.modelResponseId);

export function expectFeedbackParams(value: unknown): void {
  expectShape('assistant/feedback', value, { interactionId: isString, responseId: isString, feedback: (v) => Array.isArray(v) && v.every(isStepFeedback), workDoneToken: optional(isToken) });
}

export function expectTraceParams(value: unknown): void {
  if (value === undefined || value === null) return;
  expectShape('assistant/trace', value, { textDocument: optional(isDocument), position: optional(isPosition), id: optional(isString), sessionId: optional(isString), agent: optional(isString), text: optional(isString) });
}

export function expectDiscardParams(value: unknown): void {
  expectShape('assistant/discard', value, { interactionId: isString });
}

export function expectResponseIds(what: string, value: unknown): void {
  expectShape(what, value, { interactionId: isString, responseId: isString });
}

export function expectPositionArgs(what: string, value: unknown): void {
  expectShape(what, value, { textDocument: isDocument, position: isPosition });
}

/** `CodeActionContext.only`: absent, or a list of kinds. */
export function onlyKinds(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every(isString)) throw new ResponseError(ErrorCodes.InvalidParams, 'textDocument/codeAction: "context.only" must be a list of kinds.');
  return value;
}
