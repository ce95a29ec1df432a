// The preview in a real Emacs 28 with Eglot, in a terminal (tmux): a Document code action shows its diff; q discards it, a applies it, and nothing is saved.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { endTerminals, readInteractions as interactions, requireEmacs, terminalEmacs, terminalInit } from './harness/emacs.js';

afterEach(() => {
  endTerminals();
});

describe('clients/emacs/assistant-ls.el: the preview', () => {
  it('shows the Document edit as a diff buffer; q discards it (traced as discarded), a applies it to the buffer, unsaved', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    const root = copyFixture('basic');
    const original = fs.readFileSync(path.join(root, 'src/config.ts'), 'utf8');
    const term = await terminalEmacs({ root, init: terminalInit(root, '(:preview "always")'), file: 'src/config.ts', columns: 150, lines: 45, deadlineMs: 100_000 });

    const documentParseConfig = async (): Promise<string> => {
      // M-< then C-s to parseConfig's name, M-x eglot-code-actions, and the Document action (the default) with RET.
      term.keys('M-<');
      term.keys('C-s');
      term.type('parseConfig(text');
      term.keys('Enter');
      term.keys('M-x');
      term.type('eglot-code-actions');
      term.keys('Enter');
      await term.screenShowing('the code actions', 'Pick an action (default Assistant: Document function parseConfig)');
      term.keys('Enter');
      // The prompt and the diff window (Emacs may draw the echo area first).
      return term.screenShowing('the preview', /\+\+\+ b\/src\/config\.ts[\s\S]*Apply this edit\? \(a or RET: apply, q or d: discard\)/);
    };

    const shown = await documentParseConfig();
    // The diff buffer under the code, titled with the task and the agent, and the keys in the prompt.
    expect(shown).toContain(' Assistant: document parseConfig (by doc-offline (rule))    a or RET: apply   q or d: discard');
    expect(shown).toMatch(/\*assistant-ls preview\*.*\(Diff\)/);
    const lines = shown.split('\n');
    const header = lines.indexOf('--- a/src/config.ts');
    expect(header).toBeGreaterThan(0);
    expect(lines[header + 1]).toBe('+++ b/src/config.ts');
    expect(lines[header + 2]).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(lines).toContain('+/**');
    expect(lines).toContainEqual(expect.stringMatching(/^\+ \* @param text /));
    expect(lines).toContain('+ */');
    // While it is shown nothing has landed, and the server, waiting for the answer, has recorded no outcome.
    expect(lines.filter((l) => l.startsWith('/**'))).toEqual([]);
    expect(interactions(root).flatMap((i) => i.responses).filter((r) => r.outcome)).toEqual([]);

    term.keys('q');
    await term.until('the discard in the trace', () => interactions(root).some((i) => i.responses[0]?.outcome === 'discarded'));
    const afterDiscard = await term.screenShowing('the preview closed', 'assistant-ls: discarded; nothing changed', '*assistant-ls preview*');
    expect(afterDiscard).not.toContain('*assistant-ls preview*');
    expect(afterDiscard).not.toContain('+/**');
    // The source buffer, unmodified (no ** in its mode line).
    expect(afterDiscard).toMatch(/-UUU:----F1 {2}config\.ts/);

    await documentParseConfig();
    term.keys('a');
    await term.until('the applied edit in the trace', () => interactions(root).some((i) => i.responses[0]?.used === true));
    const applied = await term.screenShowing('the comment in the buffer', /\n \* @param text [^\n]*\n/, '*assistant-ls preview*');
    // In the buffer, modified (**) and not saved: the file on disk is as it was.
    expect(applied).toMatch(/-UUU:\*\*--F1 {2}config\.ts/);
    expect(applied).toMatch(/\n\/\*\*\n \* [^\n]+\n(?: \*[^\n]*\n)* \*\/\n\/\/ @assistant [^\n]*\nexport function parseConfig\(/);
    expect(applied).not.toContain('*assistant-ls preview*');
    expect(fs.readFileSync(path.join(root, 'src/config.ts'), 'utf8')).toBe(original);
    const [discarded, used] = interactions(root).filter((i) => i.task === 'document');
    expect(discarded!.responses[0]).toMatchObject({ used: false, outcome: 'discarded' });
    expect(used!.responses[0]).toMatchObject({ used: true, outcome: 'applied' });
  }, 120_000);
});
