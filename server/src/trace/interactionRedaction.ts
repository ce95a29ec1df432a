// What of an interaction is kept from the trace: secrets redacted from its free text, the code of excluded files left out.
import type { Interaction } from '../protocol.js';
import { redactSecrets } from '../privacy/secrets.js';
import { describeExclusion } from '../privacy/exclusion.js';
import type { WorkspaceExclusion } from '../privacy/exclusion.js';

/**
 * Secrets never reach the trace raw: the free text of an interaction (its request, code fragment, message) and of
 * each response (answer, error, verdict, feedback) is redacted as it is written, and the code fragment of a file
 * the workspace keeps from models (`exclusion`: its rule) is not recorded at all. Edits and insertion records are
 * kept as they are, since applying and reverting need them exactly; they hold the user's own code.
 */
export function redactInteraction(interaction: Interaction, exclusion?: WorkspaceExclusion): void {
  interaction.text = redactSecrets(interaction.text);
  if (interaction.message !== undefined) interaction.message = redactSecrets(interaction.message);
  const fragment = interaction.context?.fragment;
  const fullPath = interaction.context?.resource?.fullPath;
  const excluded = exclusion && fullPath ? exclusion.check(fullPath) : undefined;
  if (fragment && excluded) fragment.text = `[not recorded: ${describeExclusion(excluded).replace(/, so it is never sent to a model$/, '')}]`;
  else if (fragment && typeof fragment.text === 'string') fragment.text = redactSecrets(fragment.text);
  for (const response of interaction.responses) {
    response.text = redactSecrets(response.text);
    if (response.error !== undefined) response.error = redactSecrets(response.error);
    if (response.outcomeReason !== undefined) response.outcomeReason = redactSecrets(response.outcomeReason);
    if (response.feedback) response.feedback = response.feedback.map(redactSecrets);
    if (response.verdict) {
      response.verdict.summary = redactSecrets(response.verdict.summary);
      if (response.verdict.details) response.verdict.details = response.verdict.details.map(redactSecrets);
    }
  }
}
