// Unit tests for the repository tools on a fixture: each tool's answer, inherited members, ambiguous imports, bounded output, excluded files, and bad calls.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOOL_OUTPUT, RepositoryTools, TOOL_DEFINITIONS, parseToolRequests, toolsPrompt, undeclaredNames } from '../../server/src/repo/repositoryTools.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { copyFixture } from '../support/lspClient.js';

let root: string;
let workspace: Workspace;
let tools: RepositoryTools;

beforeAll(async () => {
  root = copyFixture('tools');
  // Written here: git would not commit a file its own fixture ignores.
  fs.mkdirSync(path.join(root, 'src', 'generated'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'generated', 'secretShape.ts'), "export class SecretShape {\n  canary = 'TOOLS-CANARY-8841';\n}\nexport function clamp(): void {}\n");
  workspace = new Workspace(root);
  tools = new RepositoryTools(workspace);
  await tools.ready();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('repository tools', () => {
  it('declares every tool with a JSON-schema for function calling', () => {
    expect(TOOL_DEFINITIONS.map((t) => t.name)).toEqual(['search_class', 'search_method', 'search_code', 'get_class_info', 'get_signature', 'get_method_body', 'get_imports', 'get_relevant_code']);
    for (const tool of TOOL_DEFINITIONS) expect(tool.parameters.required.every((r) => r in tool.parameters.properties)).toBe(true);
  });

  it('search_class finds a class with its header and members', async () => {
    expect(await tools.call('search_class', { name: 'Circle' })).toBe('src/shapes/circle.ts:4 export class Circle extends Shape\n  members: constructor, area, diameter');
    expect(await tools.call('search_class', { name: 'Circl' })).toMatch(/^No class or interface named Circl\. Did you mean Circle\?$/);
  });

  it('search_method finds methods globally and in one class, with signatures', async () => {
    expect(await tools.call('search_method', { name: 'area' })).toBe('src/shapes/circle.ts:9 Circle.area: area(): number\nsrc/shapes/shape.ts:10 Shape.area: abstract area(): number;');
    expect(await tools.call('search_method', { name: 'area', class: 'Shape' })).toBe('src/shapes/shape.ts:10 Shape.area: abstract area(): number;');
  });

  it('search_code finds lines in the workspace or in one file', async () => {
    expect(await tools.call('search_code', { code: 'Math.max(min, value)' })).toBe('src/geometry/math.ts:6: return Math.min(max, Math.max(min, value));\nsrc/util/clamp.ts:3: return Math.trunc(Math.min(max, Math.max(min, value)));');
    expect(await tools.call('search_code', { code: 'Math.max(min, value)', file: 'src/util/clamp.ts' })).toBe('src/util/clamp.ts:3: return Math.trunc(Math.min(max, Math.max(min, value)));');
    expect(await tools.call('search_code', { code: 'TOOLS-CANARY' })).toBe('"TOOLS-CANARY" does not occur in the workspace.');
  });

  it('get_class_info lists own and inherited members, public before private, with signatures', async () => {
    const info = await tools.call('get_class_info', { name: 'Circle' });
    expect(info.split('\n')).toEqual([
      'src/shapes/circle.ts:4 export class Circle extends Shape',
      '  constructor(readonly radius: number)',
      '  area(): number',
      '  get diameter(): number',
      '  describe(): string  (inherited from Shape)',
      '  protected scaled(factor: number): number  (inherited from Shape)',
      '  private readonly id = Math.random();  (inherited from Shape)',
    ]);
  });

  it('get_signature and get_method_body give the declaration, its doc line and its code', async () => {
    expect(await tools.call('get_signature', { name: 'lerp' })).toBe('src/geometry/math.ts:10 function lerp\n/** Linear interpolation between a and b. */\nexport function lerp(a: number, b: number, t: number): number');
    expect(await tools.call('get_method_body', { name: 'describe', class: 'Shape' })).toBe('src/shapes/shape.ts:13-15 Shape.describe\ndescribe(): string {\n  return `${this.name} of area ${this.area().toFixed(2)}`;\n}');
  });

  it('get_imports writes the imports some code needs, with every candidate of an ambiguous name, in the project style', async () => {
    const answer = await tools.call('get_imports', { code: 'const c = new Circle(clamp(r, 0, 10));\nconst l = lerp(0, 1, 0.5);\nconst x: Unknown = fetchIt();', file: 'src/app.ts' });
    expect(answer.split('\n')).toEqual([
      "import { clamp, lerp } from './geometry/math.js';",
      "import { Circle } from './shapes/circle.js';",
      "import { clamp } from './util/clamp.js';",
      '// clamp: 2 candidates, pick one: src/geometry/math.ts, src/util/clamp.ts',
      '// fetchIt: not declared in the workspace (a package, or a global)',
      '// r: not declared in the workspace (a package, or a global)',
      '// Unknown: not declared in the workspace (a package, or a global)',
    ]);
    expect(undeclaredNames('function f(a: number) { const b = a + 1; return Math.max(b, c.d); }')).toEqual(['c']);
  });

  it('get_relevant_code ranks related declarations, and never answers from an ignored file', async () => {
    const answer = await tools.call('get_relevant_code', { query: 'keep a value between bounds', limit: 2 });
    expect(answer).toMatch(/^src\/geometry\/math\.ts:4-7 function clamp\n/);
    for (const call of [['search_class', { name: 'SecretShape' }], ['get_relevant_code', { query: 'secret shape canary' }], ['get_signature', { name: 'SecretShape' }]] as const) {
      expect(await tools.call(call[0], call[1])).not.toMatch(/CANARY|generated/);
    }
  });

  it('answers bad calls with what went wrong, and bounds every answer', async () => {
    expect(await tools.call('search_class', {})).toBe('Error: search_class needs "name".');
    expect(await tools.call('search_class', '{not json')).toBe('Error: search_class needs "name".');
    expect(await tools.call('drop_tables', {})).toMatch(/^There is no tool "drop_tables"; the tools are search_class, /);
    const big = path.join(root, 'src', 'big.ts');
    fs.writeFileSync(big, `export function big(): number {\n${'  let x = 1;\n'.repeat(3000)}  return 1;\n}\n`);
    // As the editor's file watcher would say: the workspace's listing walks again on the next refresh.
    workspace.filesChanged([{ fsPath: big, type: 'created' }]);
    const fresh = new RepositoryTools(workspace);
    await fresh.ready();
    const body = await fresh.call('get_method_body', { name: 'big' });
    expect(body.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT);
    expect(body).toContain('more lines)');
    expect((await fresh.call('search_code', { code: 'let x' })).length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT);
  });

  it('offers a text protocol for endpoints without function calling, answered through the same tools', async () => {
    expect(toolsPrompt()).toContain('- get_method_body {"name": "…", "class": "…" (optional)}: The whole code of a function or method');
    const requests = parseToolRequests('I need two things.\nCALL search_class {"name": "Shape"}\nCALL get_signature {"name": "lerp"}\nCALL broken {nope\nCALL get_relevant_code {"query": "area", "limit": 1}');
    expect(requests.map((r) => r.name)).toEqual(['search_class', 'get_signature', 'get_relevant_code']);
    expect(await tools.call(requests[0]!.name, requests[0]!.args)).toMatch(/^src\/shapes\/shape\.ts:4 export abstract class Shape\n {2}members: constructor, area, describe, scaled, id$/);
  });
});
