// What of an interaction is kept from the trace: secrets replaced by placeholders everywhere in it, edits included, the code of excluded files left out.
import type { Interaction } from '../protocol.js';
import { describeExclusion } from '../privacy/exclusion.js';
import type { WorkspaceExclusion } from '../privacy/exclusion.js';

/** Replaces the secrets of one text with placeholders. */
export type RedactText = (text: string) => string;

/** Every `newText` of a workspace edit, wherever it sits (`changes`, `documentChanges`), through `rewrite`. */
function rewriteEditTexts(edit: unknown, rewrite: RedactText): void {
  if (Array.isArray(edit)) {
    for (const item of edit) rewriteEditTexts(item, rewrite);
    return;
  }
  if (typeof edit !== 'object' || edit === null) return;
  const record = edit as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'newText' && typeof value === 'string') record[key] = rewrite(value);
    else if (typeof value === 'object') rewriteEditTexts(value, rewrite);
  }
}

/**
 * Secrets never reach the trace raw: the free text of an interaction (its request, code fragment, message), of each
 * response (answer, error, verdict, feedback, the labels of the places it cites), and the code of its proposed edit
 * and of what was inserted and replaced are redacted as they are written, and the code fragment of a file the
 * workspace keeps from models (`exclusion`: its rule) is not recorded at all. The editor gets the real values from the proposal in memory; the
 * trace store puts them back for this session's revert and tracking (see `TraceStore.getWithSecrets`).
 */
export function redactInteraction(interaction: Interaction, exclusion: WorkspaceExclusion | undefined, redact: RedactText): void {
  interaction.text = redact(interaction.text);
  if (interaction.message !== undefined) interaction.message = redact(interaction.message);
  if (typeof interaction.completion?.offered === 'string') interaction.completion.offered = redact(interaction.completion.offered);
  const fragment = interaction.context?.fragment;
  const fullPath = interaction.context?.resource?.fullPath;
  const excluded = exclusion && fullPath ? exclusion.check(fullPath) : undefined;
  if (fragment && excluded) fragment.text = `[not recorded: ${describeExclusion(excluded).replace(/, so it is never sent to a model$/, '')}]`;
  else if (fragment && typeof fragment.text === 'string') fragment.text = redact(fragment.text);
  for (const response of interaction.responses) {
    response.text = redact(response.text);
    if (response.error !== undefined) response.error = redact(response.error);
    if (response.outcomeReason !== undefined) response.outcomeReason = redact(response.outcomeReason);
    if (response.feedback) response.feedback = response.feedback.map(redact);
    if (response.verdict) {
      response.verdict.summary = redact(response.verdict.summary);
      if (response.verdict.details) response.verdict.details = response.verdict.details.map(redact);
    }
    if (response.edit) rewriteEditTexts(response.edit, redact);
    for (const insertion of response.insertedAt ?? []) rewriteInsertion(insertion, redact);
    // A place's label is words of the code there (a comment's first line, say).
    for (const location of Array.isArray(response.locations) ? response.locations : []) if (typeof location?.label === 'string') location.label = redact(location.label);
  }
}

/** The code of one insertion record through `rewrite`: what was inserted, what it replaced, what it became. */
export function rewriteInsertion(insertion: { text: string; replaced: string; editedText?: string }, rewrite: RedactText): void {
  if (typeof insertion.text === 'string') insertion.text = rewrite(insertion.text);
  if (typeof insertion.replaced === 'string') insertion.replaced = rewrite(insertion.replaced);
  if (typeof insertion.editedText === 'string') insertion.editedText = rewrite(insertion.editedText);
}

/** The interaction's edit and insertions with placeholders put back by `restore` (the other way from `redactInteraction`). */
export function restoreInteractionCode(interaction: Interaction, restore: RedactText): void {
  for (const response of interaction.responses) {
    if (response.edit) rewriteEditTexts(response.edit, restore);
    for (const insertion of response.insertedAt ?? []) rewriteInsertion(insertion, restore);
  }
}
