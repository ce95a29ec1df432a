// Unit tests of AgentsProgress: the count over all of a task's agents, a line per running agent, its seconds and what it does.
import { describe, expect, it } from 'vitest';
import { AgentsProgress } from '../../server/src/tasks/agentsProgress.js';

function tracked(names: string[]) {
  let now = 0;
  const reports: { message: string; percentage?: number }[] = [];
  const progress = new AgentsProgress(names, { report: (message, percentage) => void reports.push({ message, percentage }) }, () => now);
  return { progress, reports, advance: (ms: number) => void (now += ms) };
}

describe('AgentsProgress', () => {
  it('counts every agent of the task and gives each running one a line with its seconds', () => {
    const { progress, reports, advance } = tracked(['doc-offline', 'gpt-4o-mini']);
    progress.start();
    // No percentage: the share of agents done would stand still while the model writes.
    expect(reports.at(-1)).toEqual({ message: '0 of 2 agents done · doc-offline: 0 s · gpt-4o-mini: 0 s', percentage: undefined });
    advance(300);
    progress.done('doc-offline');
    expect(reports.at(-1)).toEqual({ message: '1 of 2 agents done · gpt-4o-mini: 0 s', percentage: undefined });
    advance(11_900);
    expect(progress.message()).toBe('1 of 2 agents done · gpt-4o-mini: 12 s');
    progress.done('gpt-4o-mini');
    expect(reports.at(-1)).toEqual({ message: '2 of 2 agents done', percentage: undefined });
  });

  it('gives a lone agent its own line, without a count of one', () => {
    const { progress, reports, advance } = tracked(['gpt-4o-mini']);
    progress.start();
    advance(12_400);
    progress.written('gpt-4o-mini', 840);
    expect(reports.at(-1)).toEqual({ message: 'gpt-4o-mini: 840 characters written, 12 s', percentage: undefined });
    progress.done('gpt-4o-mini');
    expect(reports.at(-1)).toEqual({ message: 'gpt-4o-mini done', percentage: undefined });
  });

  it('shows what an agent does (a pipeline step, another attempt) until it says something else', () => {
    const { progress, reports, advance } = tracked(['issue-model']);
    progress.start();
    advance(4_000);
    progress.activity('issue-model', 'patch running');
    expect(reports.at(-1)!.message).toBe('issue-model: patch running, 4 s');
    progress.activity('issue-model', undefined);
    expect(reports.at(-1)!.message).toBe('issue-model: 4 s');
    progress.stop();
  });

  it('says how much a model has written, after what the agent does, until it does something else', () => {
    const { progress, reports, advance } = tracked(['local']);
    progress.start();
    advance(2_000);
    progress.written('local', 120);
    expect(reports.at(-1)!.message).toBe('local: 120 characters written, 2 s');
    progress.activity('local', 'attempt 2 (the last was rejected)');
    expect(reports.at(-1)!.message).toBe('local: attempt 2 (the last was rejected), 2 s');
    progress.written('local', 35);
    expect(reports.at(-1)!.message).toBe('local: attempt 2 (the last was rejected), 35 characters written, 2 s');
    progress.done('local');
    progress.written('local', 40);
    expect(reports.at(-1)!.message).toBe('local done');
  });

  it('reports nothing when nothing it shows changed, and ignores agents it does not know or that are done', () => {
    const { progress, reports } = tracked(['a', 'b']);
    progress.start();
    progress.activity('a', undefined);
    progress.activity('nobody', 'x');
    progress.done('a');
    progress.done('a');
    progress.activity('a', 'late');
    expect(reports.map((r) => r.message)).toEqual(['0 of 2 agents done · a: 0 s · b: 0 s', '1 of 2 agents done · b: 0 s']);
    progress.stop();
  });
});
