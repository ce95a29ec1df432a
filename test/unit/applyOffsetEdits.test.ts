// Unit tests of applying offset edits: non-overlapping edits in any order, and inserts at one offset in the order given.
import { describe, expect, it } from 'vitest';
import { applyOffsetEdits } from '../../server/src/edits/textEdits.js';

describe('applyOffsetEdits', () => {
  it('applies edits given in any order', () => {
    expect(applyOffsetEdits('abcdef', [{ start: 0, end: 1, newText: 'A' }, { start: 4, end: 6, newText: 'EF!' }, { start: 2, end: 2, newText: '-' }])).toBe('Ab-cdEF!');
  });

  it("keeps inserts at one offset in the order given, as TypeScript's import update writes them", () => {
    const text = 'import {\n\tMapState\n} from "../internal"\n';
    const at = text.indexOf('MapState') + 'MapState'.length;
    const edits = [{ start: at, end: at, newText: ',' }, { start: at, end: at, newText: '\n\tDRAFT_STATE' }];
    expect(applyOffsetEdits(text, edits)).toBe('import {\n\tMapState,\n\tDRAFT_STATE\n} from "../internal"\n');
  });
});
