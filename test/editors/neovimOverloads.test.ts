// Document on an overloaded function in the real Neovim: from the code-action menu on the second signature, the comment lands on the first.
import { describe, expect, it } from 'vitest';
import { runScenario as runNvim, skipNvim, skipReason } from './harness/neovim.js';
import type { Run } from './harness/neovim.js';

/**
 * What the user does: open src/overloads.ts, put the cursor on the second overload of `pad`, open the code-action
 * menu (vim.lsp.buf.code_action) and pick Document; then the buffer is read as it is on screen.
 */
function runScenario(): Promise<Run> {
  return runNvim(
    `
    T.pick('Document')
    T.cursor_on('pad(value')
    vim.lsp.buf.code_action()
    T.wait('the doc comment', function() return T.text():find('/**', 1, true) ~= nil end)
`,
    { fixture: 'placement', file: 'src/overloads.ts' },
  );
}

describe.skipIf(skipNvim)(`Document on overloads in headless nvim${skipReason}`, () => {
  it('puts the comment above the first overload when Document is picked from the menu on the second', async () => {
    const { result, original } = await runScenario();
    expect(result.selects[0]!.picked).toBe('Assistant: Document function pad');
    const lines = result.text.split('\n');
    const open = lines.indexOf('/**');
    const close = lines.indexOf(' */');
    // The comment sits right above the first signature; the overloads and the implementation follow it untouched.
    expect(open).toBeGreaterThan(0);
    // Its annotation line right below it, as for any doc comment.
    expect(lines[close + 1]).toMatch(/^\/\/ @assistant task=document agent=doc-offline /);
    expect(lines[close + 2]).toBe('export function pad(text: string, width: number): string;');
    expect(lines[close + 3]).toBe('export function pad(value: number, width: number, fill?: string): string;');
    expect(lines.slice(open, close + 1).join('\n')).toMatch(/ \* @param value - (?:[^\n]* )?In the second overload only\./);
    expect([...lines.slice(0, open), ...lines.slice(close + 2)].join('\n')).toBe(original);
  });
});
