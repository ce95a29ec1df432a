// Unit tests for the type-check oracle: real compiler diagnostics before and after, new-diagnostic detection, and an overlay that never outlives the check.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { diagnosticsOf, fixRule, noNewDiagnosticsRule, typeCheckProposal, verdictOf } from '../../server/src/oracle/typeCheck.js';
import type { Proposal } from '../../server/src/edits/proposal.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

let root: string;
let project: WorkspaceProject;
let mainPath: string;
let mainText: string;

beforeEach(() => {
  root = copyFixture('fix');
  project = new WorkspaceProject(root);
  mainPath = path.join(root, 'src', 'main.ts');
  mainText = fs.readFileSync(mainPath, 'utf8');
});

afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

const live = (): AbortSignal => new AbortController().signal;

/** A proposal replacing the first occurrence of `from` with `to` in main.ts. */
function replacing(from: string, to: string, text = mainText): Proposal {
  const start = text.indexOf(from);
  if (start < 0) throw new Error(`${from} not in main.ts`);
  return { documents: [{ uri: pathToUri(mainPath), version: 1, baseText: text, edits: [{ start, end: start + from.length, newText: to }] }], creates: [] };
}

const IMPORT = "import { fetchCount } from './count.js';";

describe('typeCheckProposal', () => {
  it('counts the diagnostics before and after, and passes a fix that removes one', async () => {
    const verdict = await typeCheckProposal(project, replacing(IMPORT, `${IMPORT}\nimport { add } from './math.js';`), live(), fixRule);
    expect(verdict).toEqual({ passed: true, summary: '3 errors before, 2 after' });
  }, 30_000);

  it('rejects a change that leaves as many diagnostics, listing those still there with their lines', async () => {
    const verdict = await typeCheckProposal(project, replacing('mesage.toUpperCase()', 'mesage.toLocaleUpperCase()'), live(), fixRule);
    expect(verdict.passed).toBe(false);
    expect(verdict.summary).toBe('3 errors before, 3 after: the fix must leave fewer diagnostics');
    expect(verdict.details).toContain("still: src/main.ts:12: error TS2552: Cannot find name 'mesage'. Did you mean 'message'?");
  }, 30_000);

  it('detects a new diagnostic even when the total goes down', async () => {
    // Two errors fixed (the import and the spelling), one introduced: fewer in total, still rejected.
    const text = mainText.replace(IMPORT, `${IMPORT}\nimport { add } from './math.js';`);
    const verdict = await typeCheckProposal(project, replacing('return mesage.toUpperCase();', 'return message.toUpperCase() + missing;', text), live(), fixRule);
    expect(verdict.passed).toBe(false);
    expect(verdict.summary).toBe('2 errors before, 2 after: 1 new diagnostic');
    expect(verdict.details).toEqual(["new: src/main.ts:13: error TS2304: Cannot find name 'missing'."]);
  }, 30_000);

  it('counts multiplicities: a second occurrence of an existing error is new', async () => {
    const verdict = await typeCheckProposal(project, replacing('return mesage.toUpperCase();', 'return mesage.toUpperCase() + mesage;'), live(), noNewDiagnosticsRule);
    expect(verdict.passed).toBe(false);
    expect(verdict.details).toEqual(["new: src/main.ts:12: error TS2552: Cannot find name 'mesage'. Did you mean 'message'?"]);
  }, 30_000);

  it('lets code-adding tasks keep existing problems under noNewDiagnosticsRule, but not under fixRule', async () => {
    const added = replacing('export async function report', 'export function twice(n: number): number {\n  return n * 2;\n}\n\nexport async function report');
    expect(await typeCheckProposal(project, added, live(), noNewDiagnosticsRule)).toEqual({ passed: true, summary: '3 errors before, 3 after' });
    expect((await typeCheckProposal(project, added, live(), fixRule)).passed).toBe(false);
  }, 30_000);

  it('checks created files: their diagnostics are all new', async () => {
    const uri = pathToUri(path.join(root, 'src', 'extra.ts'));
    const clean: Proposal = { documents: [], creates: [{ uri, text: "import { add } from './math.js';\nexport const three = add(1, 2);\n" }] };
    expect(await typeCheckProposal(project, clean, live())).toEqual({ passed: true, summary: '0 errors before, 0 after' });
    const broken: Proposal = { documents: [], creates: [{ uri, text: 'export const three: string = 3;\n' }] };
    const verdict = await typeCheckProposal(project, broken, live());
    expect(verdict.passed).toBe(false);
    expect(verdict.details?.[0]).toMatch(/^new: src\/extra\.ts:1: error TS2322: Type 'number' is not assignable to type 'string'\./);
    expect(fs.existsSync(path.join(root, 'src', 'extra.ts'))).toBe(false);
    expect(project.tsProject().getSourceFile(path.join(root, 'src', 'extra.ts'))).toBeUndefined();
  }, 30_000);

  it('restores the project: the editor text stays, files not in the project stay out, nothing is written', async () => {
    const edited = `${mainText}\n// unsaved change in the editor\n`;
    project.sourceFile(mainPath, edited);
    const mathPath = path.join(root, 'src', 'math.ts');
    const mathOnDisk = fs.readFileSync(mathPath, 'utf8');
    const proposal: Proposal = {
      documents: [
        { uri: pathToUri(mainPath), version: 2, baseText: edited, edits: [{ start: 0, end: 0, newText: '// first line\n' }] },
        { uri: pathToUri(mathPath), version: null, baseText: mathOnDisk, edits: [{ start: mathOnDisk.length, end: mathOnDisk.length, newText: 'export const zero = 0;\n' }] },
      ],
      creates: [],
    };
    await typeCheckProposal(project, proposal, live());
    expect(project.tsProject().getSourceFile(mainPath)?.getFullText()).toBe(edited);
    expect(project.tsProject().getSourceFile(mathPath)).toBeUndefined();
    expect(fs.readFileSync(mainPath, 'utf8')).toBe(mainText);
    expect(fs.readFileSync(mathPath, 'utf8')).toBe(mathOnDisk);
  }, 30_000);

  it('restores the project when the check throws, and answers with a failed verdict', async () => {
    project.sourceFile(mainPath, mainText);
    const service = project.tsProject().getLanguageService().compilerObject;
    const real = service.getSemanticDiagnostics.bind(service);
    let calls = 0;
    vi.spyOn(service, 'getSemanticDiagnostics').mockImplementation((fileName) => {
      // The "after" pass fails, with the overlay in place.
      if (++calls === 2) throw new Error('compiler crashed');
      return real(fileName);
    });
    const verdict = await typeCheckProposal(project, replacing('mesage', 'message'), live(), fixRule);
    expect(verdict).toEqual({ passed: false, summary: 'the type check could not run: compiler crashed' });
    expect(calls).toBe(2);
    expect(project.tsProject().getSourceFile(mainPath)?.getFullText()).toBe(mainText);
  }, 30_000);

  it('serialises concurrent checks of the same file', async () => {
    const [good, bad] = await Promise.all([typeCheckProposal(project, replacing('mesage', 'message'), live(), fixRule), typeCheckProposal(project, replacing('mesage', 'mesag'), live(), fixRule)]);
    expect(good.passed).toBe(true);
    expect(bad.passed).toBe(false);
    expect(bad.details).toContain("new: src/main.ts:12: error TS2552: Cannot find name 'mesag'. Did you mean 'message'?");
  }, 30_000);

  it('throws when cancelled, rather than answering', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the user'));
    await expect(typeCheckProposal(project, replacing('mesage', 'message'), controller.signal)).rejects.toThrow('cancelled by the user');
  });
});

describe('diagnosticsOf', () => {
  it('checks each text it is given, back and forth, of a file the project does not hold between checks', () => {
    // Each check adds the file and takes it out again; added anew it starts at the same version, which the language
    // service must not take for the text it saw before.
    const fixed = mainText.replace('mesage.toUpperCase()', 'message.toUpperCase()');
    const codes = [mainText, fixed, mainText, fixed].map((text) => diagnosticsOf(project, mainPath, text).map((d) => d.code));
    expect(codes).toEqual([[2304, 2552, 2339], [2304, 2339], [2304, 2552, 2339], [2304, 2339]]);
  });

  it("returns the file's diagnostics with offsets, codes and an LSP diagnostic to hand back", () => {
    const diagnostics = diagnosticsOf(project, mainPath, mainText);
    expect(diagnostics.map((d) => d.code)).toEqual([2304, 2552, 2339]);
    const add = diagnostics[0]!;
    expect(mainText.slice(add.start, add.end)).toBe('add');
    expect(add).toMatchObject({ message: "Cannot find name 'add'.", source: 'ts', severity: 1 });
    expect(add.original).toMatchObject({ range: { start: { line: 5, character: 36 }, end: { line: 5, character: 39 } }, code: 2304, source: 'ts' });
    expect(project.tsProject().getSourceFile(mainPath)).toBeUndefined();
  }, 30_000);
});

describe('verdictOf', () => {
  it('says "diagnostics" when some are not errors and clips long details', () => {
    const warning = { code: 6133, message: "'x' is declared but its value is never read.", category: 'warning' as const, line: 1, start: 0, end: 1 };
    const fresh = Array.from({ length: 25 }, (_, i) => ({ ...warning, line: i + 1 }));
    const verdict = verdictOf({ files: [{ uri: 'file:///a.ts', label: 'a.ts', before: [], after: fresh, fresh }], before: 0, after: 25, fresh: 25 }, noNewDiagnosticsRule);
    expect(verdict.summary).toBe('0 diagnostics before, 25 after: 25 new diagnostics');
    expect(verdict.details).toHaveLength(21);
    expect(verdict.details?.[20]).toBe('… and 5 more');
  });
});
