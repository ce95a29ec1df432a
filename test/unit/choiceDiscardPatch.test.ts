// The choice-discard amendment on a response: the outcome only of an answer nothing else became of, the first time kept.
import { describe, expect, it } from 'vitest';
import type { Interaction, TraceResponse } from '../../server/src/protocol.js';
import { applyResponsePatch, CHOICE_DISCARDED_REASON } from '../../server/src/trace/amendments.js';

function interaction(...responses: Partial<TraceResponse>[]): Interaction {
  return {
    id: 'i',
    sessionId: 's',
    timestamp: '2024-05-01T10:00:00.000Z',
    role: 'developer',
    user: 'u',
    source: 'text',
    text: 'document load',
    task: 'document',
    context: {},
    responses: responses.map((r, n) => ({ id: `r${n}`, agent: { name: 'doc-offline', technology: 'rule', isLLM: false }, status: 'ok', text: '', used: false, startedAt: '2024-05-01T10:00:00.000Z', durationMs: 1, ...r })),
  };
}

describe('choiceDiscardedAt', () => {
  it('makes an untouched answer discarded, and keeps the first time when said again', () => {
    const record = interaction({});
    applyResponsePatch(record, 'r0', { choiceDiscardedAt: '2024-05-01T10:01:00.000Z' });
    applyResponsePatch(record, 'r0', { choiceDiscardedAt: '2024-05-01T10:02:00.000Z' });
    expect(record.responses[0]).toMatchObject({ used: false, outcome: 'discarded', outcomeReason: CHOICE_DISCARDED_REASON, choiceDiscardedAt: '2024-05-01T10:01:00.000Z' });
  });

  it('leaves the outcome of an answer applied (even after the discard, in the record it lands on), refused or discarded in the preview', () => {
    const record = interaction({ used: true, outcome: 'applied', insertedAt: [] }, { outcome: 'refused', outcomeReason: 'outside' }, { outcome: 'discarded', outcomeReason: 'Discarded in the preview; nothing was changed.' });
    for (const response of record.responses) applyResponsePatch(record, response.id, { choiceDiscardedAt: '2024-05-01T10:01:00.000Z' });
    expect(record.responses.map((r) => [r.outcome, r.outcomeReason, r.used])).toEqual([
      ['applied', undefined, true],
      ['refused', 'outside', false],
      ['discarded', 'Discarded in the preview; nothing was changed.', false],
    ]);
  });
});
