// The repair scenario: real code with one defect put in (a misspelt member or name, a dropped import), fixed from the diagnostic it causes; scored on the honest fix rule and on whether the original code comes back.
import { ts } from 'ts-morph';
import { diagnosticsOf } from '../oracle/typeCheck.js';
import type { DiagnosticInfo } from '../tasks/task.js';
import { diagnosticName, shortMessage } from '../tasks/fixTask.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { hash } from './docScenario.js';
import { fixScenario, fixRateByCode } from './fixScenario.js';
import type { FixCase } from './fixScenario.js';
import { isTestPath } from './fixEvasion.js';
import { repositorySourceFiles } from './sourceFiles.js';
import type { SkipCounts } from './sourceFiles.js';
import type { Scenario, Score } from './scenario.js';

/** The defects put into the code: the slips a developer makes while typing, which the compiler reports. */
export type DefectKind = 'misspelt member' | 'misspelt name' | 'dropped import';

export interface RepairCase extends FixCase {
  /** The file as the repository has it; `text` is the file with the defect. */
  original: string;
  defect: DefectKind;
}

/** Most cases one file gives, so a large file does not make up the whole set. */
const PER_FILE = 2;
/** Most cases built; the harness's `--limit` takes a seeded share of them. */
const MAX_CASES = 120;
/** Defect sites tried per file before moving on (each try type-checks the file once). */
const TRIES_PER_FILE = 6;

interface Site {
  kind: DefectKind;
  /** The span replaced, and what replaces it. */
  start: number;
  end: number;
  newText: string;
  /** Where the compiler should report the defect. */
  at: number;
}

/** A name misspelt the way fingers do it: two letters in its middle swapped (or one dropped when they are equal). */
export function misspell(name: string): string {
  const i = Math.max(1, Math.floor(name.length / 2) - 1);
  if (name[i] !== name[i + 1]) return name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
  return name.slice(0, i) + name.slice(i + 1);
}

/** Places in a file where a defect can go: member accesses and names read (not declared), and named imports. */
export function defectSites(fileName: string, text: string): Site[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const sites: Site[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name) && node.name.text.length >= 4) {
      const name = node.name;
      sites.push({ kind: 'misspelt member', start: name.getStart(source), end: name.getEnd(), newText: misspell(name.text), at: name.getStart(source) });
    } else if (ts.isIdentifier(node) && node.text.length >= 4 && ts.isCallExpression(node.parent) && node.parent.expression === node) {
      sites.push({ kind: 'misspelt name', start: node.getStart(source), end: node.getEnd(), newText: misspell(node.text), at: node.getStart(source) });
    } else if (ts.isImportDeclaration(node) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings) && !node.importClause.isTypeOnly) {
      const elements = node.importClause.namedBindings.elements;
      if (elements.length >= 2) {
        // Dropping one name of several (with its comma) leaves the import valid and its uses unresolved.
        const element = elements[elements.length - 1]!;
        const previous = elements[elements.length - 2]!;
        const uses = text.indexOf(element.name.text, node.getEnd());
        if (!element.isTypeOnly && uses >= 0) sites.push({ kind: 'dropped import', start: previous.getEnd(), end: element.getEnd(), newText: '', at: uses });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The diagnostics in `after` that `before` lacks, by code and message (counting repeats). */
function fresh(before: readonly DiagnosticInfo[], after: readonly DiagnosticInfo[]): DiagnosticInfo[] {
  const counts = new Map<string, number>();
  const key = (d: DiagnosticInfo): string => `${String(d.code)}\u0000${d.message}`;
  for (const d of before) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  return after.filter((d) => {
    const left = counts.get(key(d)) ?? 0;
    counts.set(key(d), left - 1);
    return left <= 0;
  });
}

/** Text compared without its layout, so an import put back on another line or with other spacing still counts. */
function layoutFree(text: string): string {
  return text.replace(/\s+/g, '');
}

export const repairScenario: Scenario<RepairCase> = {
  id: 'repair',
  task: 'fix',
  title: 'Repair of defects put into real code',
  metrics: [...fixScenario.metrics, { id: 'restored', label: 'restored', informational: true }],
  primaryMetric: 'fix',

  async buildCases(context, signal) {
    const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
    // Sources only, in an order fixed by their paths' hashes, so the set is stable and spread over the repository.
    const files = repositorySourceFiles(context.env.workspace, skipped)
      .filter((f) => !isTestPath(f.relative) && /\.[cm]?tsx?$/.test(f.relative))
      .sort((a, b) => hash(a.relative).localeCompare(hash(b.relative)));
    const projects = context.env.workspace.projects;
    const cases: RepairCase[] = [];
    let tried = 0;
    for (const file of files) {
      if (cases.length >= MAX_CASES) break;
      signal.throwIfAborted();
      await new Promise((resolve) => setImmediate(resolve));
      const project = projects.forFile(file.fsPath);
      project.loadConfigFiles('all');
      let baseline: DiagnosticInfo[];
      try {
        baseline = diagnosticsOf(project, file.fsPath, file.text);
      } catch {
        continue;
      }
      const sites = defectSites(file.fsPath, file.text).sort((a, b) => hash(`${file.relative}:${a.start}`).localeCompare(hash(`${file.relative}:${b.start}`)));
      let made = 0;
      for (const site of sites.slice(0, TRIES_PER_FILE)) {
        if (made >= PER_FILE || cases.length >= MAX_CASES) break;
        tried++;
        const text = file.text.slice(0, site.start) + site.newText + file.text.slice(site.end);
        const shift = site.newText.length - (site.end - site.start);
        const at = site.at > site.start ? site.at + shift : site.at;
        let after: DiagnosticInfo[];
        try {
          after = diagnosticsOf(project, file.fsPath, text);
        } catch {
          continue;
        }
        const diagnostic = fresh(baseline, after).find((d) => d.severity === 1 && d.start <= at && d.end >= at);
        if (!diagnostic) continue;
        made++;
        const position = offsetToPosition(text, diagnostic.start, lineStarts(text));
        const name = diagnosticName(diagnostic);
        cases.push({
          id: `repair:${file.relative}:${position.line + 1}:${position.character + 1}:${site.kind.replace(/\s+/g, '-')}`,
          file: file.relative,
          line: position.line + 1,
          target: `${name} ${shortMessage(diagnostic.message)} (${site.kind})`,
          contentHash: hash(`${file.text}\u0000${site.start}:${site.newText}`),
          fsPath: file.fsPath,
          text,
          original: file.text,
          analyzer: 'typescript',
          diagnostic,
          defect: site.kind,
        });
      }
      // Put the project back on the file's real text for the next file's checks.
      diagnosticsOf(project, file.fsPath, file.text);
    }
    context.note(`repair: ${cases.length} cases (${tried} defects tried in ${files.length} source files; a defect the compiler does not report at its place is left out)`);
    return cases;
  },

  run: (env, evalCase, agent, interactionId, signal) => fixScenario.run(env, evalCase, agent, interactionId, signal),

  async score(context, evalCase, run, signal): Promise<Score> {
    const score = await fixScenario.score(context, evalCase, run, signal);
    let restored: number | null = 0;
    if (run.proposal) {
      const applied = context.scratch.applyAndReadBack(run.proposal);
      const own = applied.ok ? applied.files.find((f) => f.fsPath === evalCase.fsPath) : undefined;
      restored = own && layoutFree(own.after) === layoutFree(evalCase.original) ? 1 : 0;
    }
    return { ...score, metrics: { ...score.metrics, restored }, details: { ...score.details, defect: evalCase.defect } };
  },

  breakdown: fixRateByCode,
  contextChars: (evalCase) => fixScenario.contextChars(evalCase),
};
