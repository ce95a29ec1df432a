// The protocol package: every custom method, command id, setting and trace type of assistant-ls, declared once.
export * from './tasks.js';
export * from './traceTypes.js';
export * from './settings.js';
export { defaultsOf, isPlainObject, settingEntries } from './settingsSchema.js';
export type { BooleanSetting, EnumSetting, Fields, Infer, ListSetting, MapSetting, NumberSetting, ObjectSetting, Setting, SettingEntry, StringSetting } from './settingsSchema.js';
export * from './commands.js';
export * from './ask.js';
export * from './apply.js';
export * from './trace.js';
export * from './agents.js';
export * from './rate.js';
export * from './revert.js';
export * from './discard.js';
export * from './feedback.js';
export * from './showAnswer.js';

import { AskRequest } from './ask.js';
import { ApplyRequest } from './apply.js';
import { TraceRequest } from './trace.js';
import { AgentsRequest } from './agents.js';
import { RateRequest } from './rate.js';
import { RevertRequest } from './revert.js';
import { DiscardRequest } from './discard.js';
import { FeedbackRequest, PipelineStepNotification } from './feedback.js';
import { ShowAnswerNotification } from './showAnswer.js';

/** Every custom method, for the documentation guard and the shims' name check. */
export const CUSTOM_METHODS: readonly string[] = [AskRequest.method, ApplyRequest.method, TraceRequest.method, AgentsRequest.method, RateRequest.method, RevertRequest.method, DiscardRequest.method, FeedbackRequest.method, PipelineStepNotification.method, ShowAnswerNotification.method];

/** Error codes of custom failures, in the JSON-RPC server-defined range. */
export const AssistantErrorCodes = {
  /** The interaction or response id is not in the trace. */
  UnknownInteraction: -32010,
  /** The document changed and the edit cannot be moved onto the new text. */
  StaleDocument: -32011,
  /** The request's parameters are well-formed JSON but not valid for the method. */
  InvalidParams: -32602,
} as const;
