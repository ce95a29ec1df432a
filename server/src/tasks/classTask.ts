// The Class task: a whole new class from a description, as a new file, through the class pipeline of a model agent.
import type { TaskDefinition } from './task.js';

export const classTask: TaskDefinition = {
  id: 'class',
  // A class is described in words; the user's document only decides the folder the new file goes into.
  workspaceWide: true,
  // The pipeline checks each attempt and improves it itself (tools, reflection): no second round from the orchestrator.
  selfCorrecting: true,
  offersAt: () => [],
  convertAnswer: (answer) => {
    if (!answer.proposal || answer.proposal.creates.length === 0) return { ok: false, reason: answer.reason ?? 'the pipeline wrote no class' };
    return { ok: true, kind: 'edit', proposal: answer.proposal, text: answer.text };
  },
};
