// The Issue task: fix an issue or add a feature across the repository, through the issue pipeline of a model agent.
import type { TaskDefinition } from './task.js';

export const issueTask: TaskDefinition = {
  id: 'issue',
  // An issue is about the repository: assistant/ask runs it with the user's document only as a hint of where they are.
  workspaceWide: true,
  // The pipeline type-checks, tests and reviews its own patch and self-fixes: no second round from the orchestrator.
  selfCorrecting: true,
  // Issues are typed, or come from a failure a listener reported (a type error, a failing test): "fix with assistant".
  offersAt({ start, end, diagnostics }) {
    const seen = new Set<string>();
    return diagnostics.flatMap((d) => {
      if ((d.listener !== 'typecheck' && d.listener !== 'tests') || d.start > end || d.end < start || seen.has(d.message)) return [];
      seen.add(d.message);
      const first = d.message.split('\n')[0] ?? d.message;
      const short = first.length > 60 ? `${first.slice(0, 57)}…` : first;
      return [{ task: 'issue' as const, title: `Assistant: Fix with assistant: "${short}"`, kind: 'quickfix', target: { name: 'the workspace', start: d.start, end: d.end }, parameters: { question: d.detail ?? d.message }, needsModel: true }];
    });
  },
  convertAnswer: (answer) => {
    if (!answer.proposal) return { ok: false, reason: answer.reason ?? 'the pipeline produced no patch' };
    const files = answer.proposal.documents.length + answer.proposal.creates.length;
    if (files === 0) return { ok: false, reason: 'the patch changes nothing' };
    // No annotation: a patch over several files is traced by its recorded insertions, not by comments in the code.
    return { ok: true, kind: 'edit', proposal: answer.proposal, text: answer.text };
  },
};
