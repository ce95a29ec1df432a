// The expected failures of the core, each with a message for the user; the LSP layer maps them to ResponseErrors.

export class AssistantError extends Error {
  constructor(
    readonly code: 'invalid-params' | 'unknown-interaction' | 'stale' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'AssistantError';
  }
}
