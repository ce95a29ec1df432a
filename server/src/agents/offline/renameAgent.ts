// The offline Rename agent (not written yet: it serves no task until it lists one).
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer } from '../agent.js';

export class OfflineRenameAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'rename-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = [];
  readonly description = 'Not written yet.';

  run(): Promise<AgentAnswer> {
    return Promise.resolve({ text: '' });
  }
}
