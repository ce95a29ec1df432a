// The extension's own command and view ids; distinct from the server's `assistant.*` commands, which the language client registers.

/** Commands contributed in package.json; `assistantLs.*` so they never collide with `Commands` in `protocol/src`. */
export const ExtensionCommands = {
  ask: 'assistantLs.ask',
  showTrace: 'assistantLs.showTrace',
  rate: 'assistantLs.rate',
  revert: 'assistantLs.revert',
  restartServer: 'assistantLs.restartServer',
  answerPlaces: 'assistantLs.answerPlaces',
} as const;

/** The scheme of the read-only documents text answers open as. */
export const ANSWER_SCHEME = 'assistant-answer';

/** The trace view in the Explorer. */
export const TRACE_VIEW_ID = 'assistantLs.trace';

/** The language client's id: its `<id>.trace.server` setting logs the protocol traffic. */
export const CLIENT_ID = 'assistantLs';

/** The extension's own settings live under `assistantLs.`: `assistant.` is the server's namespace, sent to it whole. */
export const CLIENT_SECTION = CLIENT_ID;

/** Which server to start (see `resolveServerLaunch`); read by the extension only. */
export const SERVER_PATH_SETTING = `${CLIENT_SECTION}.server.path`;

/** The documents the server is started for. */
export const DOCUMENT_SELECTOR = ['typescript', 'javascript', 'typescriptreact', 'javascriptreact'].flatMap((language) => [
  { scheme: 'file', language },
  { scheme: 'untitled', language },
]);
