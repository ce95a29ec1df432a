// Unit tests for confinement: edits only inside the workspace once `..` and symlinks are resolved, and sensitive places flagged for confirmation.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { confine, realPathOf, sensitivity } from '../../server/src/workspace/confinement.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tree(): { root: string; outside: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'confine-'));
  made.push(base);
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'elsewhere');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.symlinkSync(outside, path.join(root, 'linked'));
  return { root, outside };
}

const uri = (p: string): string => pathToFileURL(p).href;

describe('confine', () => {
  it('allows files inside the workspace, existing or new', () => {
    const { root } = tree();
    expect(confine(root, [uri(path.join(root, 'src', 'a.ts'))], [uri(path.join(root, 'src', 'deep', 'new', 'b.ts'))])).toEqual({ ok: true, sensitive: [] });
  });

  it('refuses paths that leave the workspace through .. or a symlink, and the root itself', () => {
    const { root, outside } = tree();
    const escaped = confine(root, [], [`${uri(root)}/src/../../elsewhere/x.ts`]);
    expect(escaped).toMatchObject({ ok: false, reason: expect.stringContaining('is outside the workspace') });
    const linked = confine(root, [], [uri(path.join(root, 'linked', 'x.ts'))]);
    expect(linked).toMatchObject({ ok: false, reason: expect.stringContaining(`(really ${path.join(fs.realpathSync(outside), 'x.ts')})`) });
    expect(confine(root, [uri(root)], [])).toMatchObject({ ok: false });
    expect(confine(root, [uri('/etc/passwd')], [])).toMatchObject({ ok: false });
  });

  it('refuses URIs that are not files, and creating untitled buffers; editing one is fine', () => {
    const { root } = tree();
    expect(confine(root, ['https://example.com/a.ts'], [])).toMatchObject({ ok: false, reason: expect.stringContaining('is not a file in the workspace') });
    expect(confine(root, ['untitled:Untitled-1'], [])).toEqual({ ok: true, sensitive: [] });
    expect(confine(root, [], ['untitled:Untitled-1'])).toMatchObject({ ok: false });
  });

  it('flags version control, secrets, CI configuration and editor settings for confirmation', () => {
    const { root } = tree();
    const files = ['.git/config', '.env.local', '.github/workflows/ci.yml', '.ci/run', '.vscode/settings.json', 'src/a.ts'].map((f) => uri(path.join(root, f)));
    const judged = confine(root, [], files);
    expect(judged).toEqual({
      ok: true,
      sensitive: ['.git/config (version control)', '.env.local (environment secrets)', '.github/workflows/ci.yml (CI configuration)', '.ci/run (CI configuration)', '.vscode/settings.json (editor settings)'],
    });
    expect(sensitivity('src/environment.ts')).toBeUndefined();
    expect(sensitivity('src/.envrc')).toBe('environment secrets');
    expect(sensitivity('config/.env')).toBe('environment secrets');
  });

  it('resolves the real path of files that do not exist yet through their nearest existing folder', () => {
    const { root, outside } = tree();
    expect(realPathOf(path.join(root, 'linked', 'new', 'x.ts'))).toBe(path.join(fs.realpathSync(outside), 'new', 'x.ts'));
  });
});
