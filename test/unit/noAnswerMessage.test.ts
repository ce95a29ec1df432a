// Unit tests of the message that says why a task has nothing to use: one agent's reason first, several agents' each.
import { describe, expect, it } from 'vitest';
import type { TraceResponse } from '../../server/src/protocol.js';
import { noAnswerMessage, REJECTED_BY_CHECK } from '../../server/src/tasks/failures.js';

function failed(name: string, error: string): TraceResponse {
  return { id: name, agent: { name, technology: 'rule', isLLM: false }, status: 'empty', text: '', error, used: false, startedAt: '2026-11-28T00:00:00.000Z', durationMs: 1 };
}

describe('noAnswerMessage', () => {
  it("puts one agent's reason first, without the check's name, and the agent after it", () => {
    const jest = 'jest is not installed in this project (no node_modules/jest): install it to run the generated tests';
    expect(noAnswerMessage('isDraftable', [failed('test-scaffold-offline', `${REJECTED_BY_CHECK}${jest}`)])).toBe(`No usable answer for isDraftable: ${jest} (test-scaffold-offline).`);
    // Only a leading check's name goes: the same words inside a reason are the reason's.
    expect(noAnswerMessage('f', [failed('a', `timed out; ${REJECTED_BY_CHECK}x`)])).toBe(`No usable answer for f: timed out; ${REJECTED_BY_CHECK}x (a).`);
  });

  it("lists each agent's reason when there are several", () => {
    expect(noAnswerMessage('f', [failed('a', 'timeout'), failed('b', 'HTTP 429')])).toBe('No usable answer for f (a: timeout; b: HTTP 429).');
    expect(noAnswerMessage('f', [])).toBe('No usable answer for f.');
  });
});
