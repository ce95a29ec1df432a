// Tests of choosing a file's tsconfig in a monorepo (a solution-style root, packages with their own options, a library/spec split) and of checking each file with its own config's options.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { projectTypeCheck } from '../../server/src/listeners/projectTypeCheck.js';
import { diagnosticsOf } from '../../server/src/oracle/typeCheck.js';
import { ConfigLocator } from '../../server/src/workspace/projectConfigs.js';
import { WorkspaceProject, WorkspaceProjects } from '../../server/src/workspace/workspaceProject.js';

const root = copyFixture('monorepo');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of [root, ...scratch]) fs.rmSync(dir, { recursive: true, force: true });
});

const at = (...parts: string[]): string => path.join(root, ...parts);
const read = (fsPath: string): string => fs.readFileSync(fsPath, 'utf8');
const never = new AbortController().signal;
const VIEW = at('packages', 'web', 'src', 'view.tsx');

describe('ConfigLocator', () => {
  it('takes the nearest tsconfig, or the referenced project that includes the file, and the root for the rest', () => {
    const locator = new ConfigLocator(root);
    expect(locator.configFor(VIEW)).toBe(at('packages', 'web', 'tsconfig.json'));
    expect(locator.configFor(at('packages', 'core', 'src', 'index.ts'))).toBe(at('packages', 'core', 'tsconfig.json'));
    // packages/tools/tsconfig.json lists only references: the library's and the spec's configs split its files.
    expect(locator.configFor(at('packages', 'tools', 'src', 'loose.ts'))).toBe(at('packages', 'tools', 'tsconfig.lib.json'));
    expect(locator.configFor(at('packages', 'tools', 'src', 'loose.spec.ts'))).toBe(at('packages', 'tools', 'tsconfig.spec.json'));
    // No project includes the script: the nearest config up from it is the best guess.
    expect(locator.configFor(at('scripts', 'build.ts'))).toBe(at('tsconfig.json'));
    expect(locator.configFor(path.join(path.dirname(root), 'elsewhere', 'file.ts'))).toBeUndefined();
  });

  it('places a file created after the lists were read', () => {
    const locator = new ConfigLocator(root);
    expect(locator.configFor(at('packages', 'tools', 'src', 'loose.ts'))).toBe(at('packages', 'tools', 'tsconfig.lib.json'));
    const created = [at('packages', 'tools', 'src', 'created.ts'), at('packages', 'tools', 'src', 'created.spec.ts')];
    for (const file of created) fs.writeFileSync(file, 'export const created = 1;\n');
    try {
      expect(locator.configFor(created[0]!)).toBe(at('packages', 'tools', 'tsconfig.lib.json'));
      expect(locator.configFor(created[1]!)).toBe(at('packages', 'tools', 'tsconfig.spec.json'));
    } finally {
      for (const file of created) fs.rmSync(file);
    }
  });

  it('takes a jsconfig.json where there is no tsconfig.json, stops at a reference cycle, and skips configs in node_modules', () => {
    const dir = fs.mkdtempSync(path.join(path.dirname(root), 'assistant-ls-configs-'));
    scratch.push(dir);
    const write = (relative: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
      fs.writeFileSync(path.join(dir, relative), text);
    };
    write('web/jsconfig.json', '{ "compilerOptions": { "checkJs": true } }');
    write('web/app.js', 'export const a = 1;\n');
    // a and b reference each other, and neither includes c.ts: the lookup ends, on the nearest config.
    write('cycle/tsconfig.json', '{ "files": [], "references": [{ "path": "./a" }] }');
    write('cycle/a/tsconfig.json', '{ "include": ["src"], "references": [{ "path": "../b" }] }');
    write('cycle/b/tsconfig.json', '{ "include": ["src"], "references": [{ "path": "../a" }] }');
    write('cycle/c.ts', 'export const c = 1;\n');
    const locator = new ConfigLocator(dir);
    expect(locator.configFor(path.join(dir, 'web', 'app.js'))).toBe(path.join(dir, 'web', 'jsconfig.json'));
    expect(locator.configFor(path.join(dir, 'cycle', 'c.ts'))).toBe(path.join(dir, 'cycle', 'tsconfig.json'));
    expect(locator.configFor(path.join(dir, 'top.ts'))).toBeUndefined();
    // A dependency's own tsconfig is not the workspace's.
    write('web/node_modules/dep/tsconfig.json', '{ "compilerOptions": { "strict": false } }');
    write('web/node_modules/dep/index.ts', 'export const d = 1;\n');
    expect(locator.configFor(path.join(dir, 'web', 'node_modules', 'dep', 'index.ts'))).toBeUndefined();
  });
});

describe('WorkspaceProjects', () => {
  it("checks each file with its own config's options: no false errors where the root's options would give some", () => {
    const projects = new WorkspaceProjects(root);
    const web = projects.forFile(VIEW);
    expect(web.configFile).toBe(at('packages', 'web', 'tsconfig.json'));
    expect(projects.forFile(at('packages', 'web', 'src', 'label.ts'))).toBe(web);
    expect(projects.forFile(at('scripts', 'build.ts'))).toBe(projects.workspace);
    expect(diagnosticsOf(web, VIEW, read(VIEW))).toEqual([]);
    // The root's tsconfig names no options: JSX, the alias and the global JSX types of the package are unknown there.
    const rootCodes = diagnosticsOf(new WorkspaceProject(root), VIEW, read(VIEW)).map((d) => d.code);
    expect(rootCodes).toEqual(expect.arrayContaining([2307, 17004]));

    const loose = at('packages', 'tools', 'src', 'loose.ts');
    expect(diagnosticsOf(projects.forFile(loose), loose, read(loose))).toEqual([]);
    expect(diagnosticsOf(new WorkspaceProject(root), loose, read(loose)).map((d) => d.code)).toEqual([7006]);

    // A real error is still found, at its place.
    const broken = read(VIEW).replace('document.title = label', 'const count: number = label(1);\n  document.title = label');
    const found = diagnosticsOf(web, VIEW, broken);
    expect(found.map((d) => [d.code, broken.slice(d.start, d.end)])).toEqual([[2322, 'count']]);
  });

  it('type-checks every project the root references, each file with its own options', async () => {
    const projects = new WorkspaceProjects(root);
    const clean = await projectTypeCheck(projects, never);
    // core 1, web 3 (with its declaration file), tools 2; the script no config includes is not part of the build.
    expect(clean).toMatchObject({ problems: [], files: 6, truncated: 0, filesLeftOut: 0 });

    const label = at('packages', 'web', 'src', 'label.ts');
    const unsaved = read(label).replace('amount.toFixed(2)', 'amount.toFixed("2")');
    const result = await projectTypeCheck(projects, never, { unsaved: [{ fsPath: label, text: unsaved }] });
    expect(result.problems.map((p) => [path.relative(root, p.fsPath), p.code, p.range.start.line])).toEqual([[path.join('packages', 'web', 'src', 'label.ts'), 2345, 2]]);
  });
});
