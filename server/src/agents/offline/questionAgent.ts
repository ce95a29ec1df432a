// The offline Question agent (not written yet: it serves no task until it lists one).
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer } from '../agent.js';

export class OfflineQuestionAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'question-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = [];
  readonly description = 'Not written yet.';

  run(): Promise<AgentAnswer> {
    return Promise.resolve({ text: '' });
  }
}
