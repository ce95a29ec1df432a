// The Question task: a free-text question about the workspace, answered as text (ranked code locations, or a grounded answer).
import type { TaskDefinition } from './task.js';

export const questionTask: TaskDefinition = {
  id: 'question',
  // Questions are about the whole workspace: assistant/ask runs them without a target declaration.
  workspaceWide: true,
  // A question is typed, not found in the code: there is nothing to offer at a selection.
  offersAt: () => [],
  convertAnswer: (answer) => {
    const text = answer.text.trim();
    // The answer is shown, never applied: a proposal from an agent is ignored rather than turned into an edit.
    return text ? { ok: true, kind: 'text', text, ...(answer.places ? { places: answer.places } : {}) } : { ok: false, reason: 'no code in the workspace matches the question' };
  },
};
