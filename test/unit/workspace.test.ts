// Unit tests of the Workspace's entry points: what the editor's notifications make stale, seen through the features that read it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { typeCheckNewFile } from '../../server/src/oracle/typeCheck.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** A folder with a tsconfig and `a.ts` exporting `a`, and its Workspace. */
function workspaceWithModule(): { root: string; module: string; workspace: Workspace } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-workspace-'));
  folders.push(root);
  fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'Bundler' } }));
  const module = path.join(root, 'a.ts');
  fs.writeFileSync(module, 'export const a = 1;\n');
  return { root, module, workspace: new Workspace(root) };
}

describe('the workspace hears the file watcher', () => {
  it('has its projects read again a file they read from the disk, or drop it, when the editor reports it', () => {
    const { root, module, workspace } = workspaceWithModule();
    const project = workspace.projects.forFile(module);
    const user = { path: path.join(root, 'b.ts'), text: "import { b } from './a';\nexport const c: number = b;\n" };
    const codes = (): number[] => typeCheckNewFile(project, user).map((e) => e.code);
    // Module './a' has no exported member 'b'.
    expect(codes()).toEqual([2305]);

    fs.writeFileSync(module, 'export const a = 1;\nexport const b = 2;\n');
    workspace.filesChanged([{ fsPath: module, type: 'changed' }]);
    expect(codes()).toEqual([]);

    fs.rmSync(module);
    workspace.filesChanged([{ fsPath: module, type: 'deleted' }]);
    // Cannot find module './a'.
    expect(codes()).toEqual([2307]);
  });

  it('keeps a file read from the disk refreshable after a check laid another text over it', () => {
    const { root, module, workspace } = workspaceWithModule();
    const project = workspace.projects.forFile(module);
    const user = { path: path.join(root, 'b.ts'), text: "import { b } from './a';\nexport const c: number = b;\n" };
    expect(typeCheckNewFile(project, user).map((e) => e.code)).toEqual([2305]);
    // A proposal's text for a.ts, checked and taken off again.
    expect(project.withOverlay([{ path: module, text: 'export const b = 2;\n' }], () => typeCheckNewFile(project, user))).toEqual([]);
    expect(typeCheckNewFile(project, user).map((e) => e.code)).toEqual([2305]);

    fs.writeFileSync(module, 'export const b = 3;\n');
    workspace.filesChanged([{ fsPath: module, type: 'changed' }]);
    expect(typeCheckNewFile(project, user)).toEqual([]);
  });
});
