// The workspace's one listing of files, on real folders: ignore files at any depth, secret names, built, vendored and hidden folders, symlinks (cycles, leaving the workspace), the limits, and when it walks again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_WORKSPACE_FILES, WorkspaceFiles } from '../../server/src/workspace/workspaceFiles.js';
import { isGeneratedPath, toolMadeKind } from '../../server/src/workspace/generatedFiles.js';

const directories: string[] = [];

function folder(prefix: string): string {
  const made = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `assistant-ls-${prefix}-`)));
  directories.push(made);
  return made;
}

function workspace(files: Record<string, string>): string {
  const root = folder('walker');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

const listed = (files: WorkspaceFiles, kind: Parameters<WorkspaceFiles['list']>[0] = 'source', maxAgeMs?: number): string[] => files.list(kind, maxAgeMs).files.map((f) => f.relative);

afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

describe('the workspace listing', () => {
  it('applies the ignore files at every depth, deeper ones winning, and leaves out secret names, other kinds of files and built, vendored and hidden folders', () => {
    const root = workspace({
      '.gitignore': 'private/\n*.local.ts\n',
      '.assistantignore': 'src/internal/\n',
      'src/a.ts': '',
      'src/b.test.ts': '',
      'src/types.d.ts': '',
      'src/c.local.ts': '',
      'src/internal/hidden.ts': '',
      'src/credentials.ts': '',
      'src/.env.ts': '',
      'src/readme.md': '',
      'private/key.ts': '',
      'lib/.gitignore': 'gen.js\n!keep.local.ts\n',
      'lib/gen.js': '',
      'lib/keep.local.ts': '',
      'lib/index.js': '',
      'dist/out.js': '',
      'build/out.js': '',
      'coverage/lcov.js': '',
      'node_modules/pkg/index.js': '',
      'vendor/lib.js': '',
      'third_party/lib.js': '',
      '.next/server.js': '',
      '.git/hooks/pre-commit.js': '',
      '.assistant/x.js': '',
      '.eslintrc.cjs': '',
    });
    const files = new WorkspaceFiles(root);
    expect(listed(files)).toEqual(['.eslintrc.cjs', 'lib/index.js', 'lib/keep.local.ts', 'src/a.ts', 'src/b.test.ts']);
    expect(listed(files, 'declaration')).toEqual(['src/types.d.ts']);
    expect(listed(files, 'test')).toEqual(['src/b.test.ts']);
    expect(listed(files, 'script')).toEqual(['.eslintrc.cjs', 'lib/index.js', 'lib/keep.local.ts', 'src/a.ts', 'src/b.test.ts', 'src/types.d.ts']);
    expect(files.list().files[0]).toMatchObject({ fsPath: path.join(root, '.eslintrc.cjs'), declaration: false, test: false });
    // One rule for paths that come from elsewhere (an open document, a tsconfig's list).
    expect(files.unlisted(path.join(root, 'dist', 'out.js'))).toBe('built-or-vendored');
    expect(files.unlisted(path.join(root, '.next', 'server.js'))).toBe('hidden-folder');
    expect(files.unlisted(path.join(root, 'src', 'internal', 'hidden.ts'))).toBe('ignored');
    expect(files.unlisted(path.join(root, 'src', 'credentials.ts'))).toBe('secret');
    expect(files.unlisted(path.join(root, 'src', 'readme.md'))).toBe('not-a-script');
    expect(files.unlisted(path.join(root, '..', 'elsewhere.ts'))).toBe('not-in-workspace');
    expect(files.unlisted(path.join(root, 'src', 'a.ts'))).toBeUndefined();
  });

  it('follows a symlink inside the workspace once, never round a cycle, and lists each file once, where it really is', () => {
    const root = workspace({ 'src/a.ts': '', 'src/deep/b.ts': '', 'generated/g.ts': '', '.gitignore': 'generated/\n' });
    fs.symlinkSync(root, path.join(root, 'src', 'deep', 'loop'));
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'again'));
    fs.symlinkSync(path.join(root, 'src', 'a.ts'), path.join(root, 'alias.ts'));
    // A way into an ignored folder is ignored too, whatever the link is called.
    fs.symlinkSync(path.join(root, 'generated'), path.join(root, 'window'));
    fs.symlinkSync(path.join(root, 'generated', 'g.ts'), path.join(root, 'peek.ts'));
    const files = new WorkspaceFiles(root);
    expect(listed(files)).toEqual(['src/a.ts', 'src/deep/b.ts']);
    expect(files.list().outside).toEqual([]);
    expect(files.unlisted(path.join(root, 'peek.ts'))).toBe('ignored');
  });

  it('leaves out symlinks that lead outside the workspace, files and folders, and names them', () => {
    const outside = workspace({ 'secret.ts': 'export const key = 1;\n', 'lib/util.ts': '' });
    const root = workspace({ 'src/a.ts': '' });
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'src', 'linked.ts'));
    fs.symlinkSync(path.join(outside, 'lib'), path.join(root, 'lib'));
    const files = new WorkspaceFiles(root);
    expect(listed(files)).toEqual(['src/a.ts']);
    expect([...files.list().outside].sort()).toEqual(['lib', 'src/linked.ts']);
    expect(files.unlisted(path.join(root, 'src', 'linked.ts'))).toBe('outside');
    expect(files.unlisted(path.join(root, 'lib', 'util.ts'))).toBe('outside');
    expect(files.unlisted(path.join(root, 'src', 'a.ts'))).toBeUndefined();
  });

  it('stops at the file limit, keeping the files nearest the root, and leaves out files over the size limit, saying so', () => {
    const root = workspace({ 'a.ts': '', 'b.ts': '', 'src/c.ts': '', 'src/deep/d.ts': '', 'src/deep/e.ts': '', 'big.js': 'x'.repeat(2_000) });
    const reports: string[] = [];
    const files = new WorkspaceFiles(root, { maxFiles: 3, maxFileBytes: 1_000, report: (message) => reports.push(message) });
    const listing = files.list();
    expect(listing.files.map((f) => f.relative)).toEqual(['a.ts', 'b.ts', 'src/c.ts']);
    expect(listing.truncated).toBe(true);
    expect(listing.tooLarge).toEqual(['big.js']);
    expect(reports).toEqual([`the workspace has more than 3 script files: only the first 3 (nearest the root first) are searched, indexed, checked and linted; 1 file is larger than 1000 bytes and left out: big.js`]);
    // The same limits hit the same way are not said again.
    files.invalidate();
    files.list();
    expect(reports).toHaveLength(1);
    expect(new WorkspaceFiles(root).list().truncated).toBe(false);
    expect(MAX_WORKSPACE_FILES).toBe(5_000);
  });

  it('is kept between calls and walked again on a file event, a document not listed yet, or, without events, once its folders changed', async () => {
    const root = workspace({ 'src/a.ts': '' });
    const files = new WorkspaceFiles(root);
    expect(listed(files)).toEqual(['src/a.ts']);
    const added = path.join(root, 'src', 'b.ts');
    fs.writeFileSync(added, '');
    // Within the interval the listing is used as it is.
    expect(listed(files)).toEqual(['src/a.ts']);
    files.filesChanged([{ fsPath: added, type: 'created' }]);
    expect(listed(files)).toEqual(['src/a.ts', 'src/b.ts']);

    const opened = path.join(root, 'src', 'c.ts');
    fs.writeFileSync(opened, '');
    files.documentSeen(opened);
    expect(listed(files)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);

    // A change to a file's contents, or a file in a folder never walked, leaves the listing as it is.
    const reads = vi.spyOn(fs, 'readdirSync');
    files.filesChanged([{ fsPath: added, type: 'changed' }, { fsPath: path.join(root, 'node_modules', 'x', 'y.js'), type: 'created' }]);
    files.list();
    expect(reads).not.toHaveBeenCalled();
    files.filesChanged([{ fsPath: path.join(root, 'src', 'a.ts'), type: 'deleted' }]);
    files.list();
    expect(reads).toHaveBeenCalled();
    reads.mockRestore();

    // Without events: the folders' stamps say a file came, and an ignore file edited in place says what goes.
    fs.rmSync(added);
    expect(listed(files, 'source', 0)).toEqual(['src/a.ts', 'src/c.ts']);
    fs.writeFileSync(path.join(root, '.gitignore'), '');
    // Once the folder's and the ignore file's times have settled, only their stamps can say they changed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    listed(files, 'source', 0);
    fs.appendFileSync(path.join(root, '.gitignore'), 'src/c.ts\n');
    expect(listed(files, 'source', 0)).toEqual(['src/a.ts']);
  });

  it("filters a tsconfig's names through the listing, walking again for a file created since the walk but not for one the rule leaves out", () => {
    const root = workspace({ 'src/a.ts': '', 'src/big.ts': 'x'.repeat(64), '.gitignore': 'src/ignored.ts\n' });
    const files = new WorkspaceFiles(root, { maxFileBytes: 32 });
    expect(listed(files, 'script')).toEqual(['src/a.ts']);
    const added = path.join(root, 'src', 'b.ts');
    const ignored = path.join(root, 'src', 'ignored.ts');
    fs.writeFileSync(added, '');
    fs.writeFileSync(ignored, '');
    const named = ['a.ts', 'b.ts', 'ignored.ts', 'big.ts', 'gone.ts'].map((name) => path.join(root, 'src', name));
    expect(files.filter(named)).toEqual({ files: named.slice(0, 2), left: 3 });
    // Nothing came since: the names the listing lacks are those the rule or the limits leave out, and it does not walk.
    const reads = vi.spyOn(fs, 'readdirSync');
    expect(files.filter(named)).toEqual({ files: named.slice(0, 2), left: 3 });
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
  });

  it('walks asynchronously the same listing, handing the event loop back, and shares one walk between callers', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1_500; i++) files[`src/f${Math.floor(i / 50)}/m${i}.ts`] = '';
    const root = workspace(files);
    const sync = new WorkspaceFiles(root).list();
    const async = new WorkspaceFiles(root);
    let turns = 0;
    let walking = true;
    const tick = (): void => {
      if (!walking) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const [first, second] = await Promise.all([async.listAsync(), async.listAsync()]);
    walking = false;
    expect(first).toBe(second);
    expect(first.files.map((f) => f.relative)).toEqual(sync.files.map((f) => f.relative));
    expect(first.files).toHaveLength(1_500);
    expect(turns).toBeGreaterThan(0);
  });

  it('classifies generated and minified files among the listed ones', () => {
    expect(isGeneratedPath('src/generated/client.ts')).toBe(true);
    expect(isGeneratedPath('public/app.min.js')).toBe(true);
    expect(isGeneratedPath('src/generator.ts')).toBe(false);
    expect(toolMadeKind('src/api.ts', '// Code generated by protoc. DO NOT EDIT.\nexport {};\n')).toBe('generated');
    expect(toolMadeKind('src/app.js', `${'var a=1;'.repeat(200)}\n`)).toBe('minified');
    expect(toolMadeKind('src/app.ts', 'export const a = 1;\n')).toBeUndefined();
  });
});
