// The doc scenarios: document functions and methods longer than three lines (Copilot harness), or classes and interfaces (doc-types); scored on syntax and format correctness, and on what the comment says.
import { createHash } from 'node:crypto';
import type { ts } from 'ts-morph';
import type { DeclarationKind, DeclarationTarget } from '../repo/declarations.js';
import { KIND_LABEL, listDeclarations, parseDocument } from '../repo/declarations.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import { declarationTarget } from '../tasks/documentTask.js';
import { languageIdForPath, pathToUri } from '../workspace/documentSnapshot.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { lineStarts, offsetToPosition } from '../edits/textEdits.js';
import { runCaseTask } from './caseRun.js';
import { checkDocFormat, startsItsLine, syntaxErrors } from './docFormat.js';
import { signatureFacts } from '../repo/docCoverage.js';
import { agreement, claimFacts, contradictions, measureRestatement, signatureTexts, signatureVocabulary } from './docContent.js';
import { hasMinifiedLines } from '../workspace/generatedFiles.js';
import { repositorySourceFiles } from './sourceFiles.js';
import type { SkipCounts } from './sourceFiles.js';
import type { EvalCase, Scenario, Score } from './scenario.js';

/** Functions and methods, as the harness takes them (classes and interfaces are doc-types' cases). */
const FUNCTION_KINDS: ReadonlySet<DeclarationKind> = new Set(['function', 'method', 'arrow-function', 'constructor', 'getter', 'setter']);
/** What doc-types documents: the declarations whose comment is a summary alone. */
const TYPE_KINDS: ReadonlySet<DeclarationKind> = new Set(['class', 'interface']);
/** A case's declaration spans more lines than this. */
const MIN_LINES = 3;

export interface DocCase extends EvalCase {
  fsPath: string;
  /** The file with the target's own doc comment (if it had one) removed: what the agent is asked to document. */
  text: string;
  declaration: DeclarationTarget;
  /** The target had a doc comment in the repository (removed for the case). */
  hadDoc: boolean;
  /** That comment, the reference the generated one is compared with. */
  humanDoc?: string;
}

export const docScenario: Scenario<DocCase> = documentationScenario({
  id: 'doc',
  title: 'Documentation generation from code',
  kinds: FUNCTION_KINDS,
  metrics: [
    { id: 'syntax', label: 'syntax correctness', overProposals: true },
    { id: 'format', label: 'format correctness' },
    { id: 'restatement', label: 'restatement', overProposals: true, informational: true, lowerIsBetter: true },
    { id: 'summaryRestatement', label: 'summary restatement', overProposals: true, informational: true, lowerIsBetter: true },
    { id: 'paramRestatement', label: '@param restatement', overProposals: true, informational: true, lowerIsBetter: true },
    { id: 'paramBare', label: '@param without text', overProposals: true, informational: true },
    { id: 'agreement', label: 'agreement (ROUGE-L)', overProposals: true, informational: true, ratio: true },
    { id: 'contradiction', label: 'contradicted', overProposals: true, informational: true, lowerIsBetter: true },
  ],
});

/** Classes and interfaces: their comment is a summary (and `@template`s), measured as doc's are. */
export const docTypesScenario: Scenario<DocCase> = documentationScenario({
  id: 'doc-types',
  title: 'Documentation of classes and interfaces',
  kinds: TYPE_KINDS,
  metrics: [
    { id: 'syntax', label: 'syntax correctness', overProposals: true },
    { id: 'format', label: 'format correctness' },
    { id: 'summaryRestatement', label: 'summary restatement', overProposals: true, informational: true, lowerIsBetter: true },
    { id: 'agreement', label: 'agreement (ROUGE-L)', overProposals: true, informational: true, ratio: true },
  ],
});

function documentationScenario(options: { id: 'doc' | 'doc-types'; title: string; kinds: ReadonlySet<DeclarationKind>; metrics: Scenario<DocCase>['metrics'] }): Scenario<DocCase> {
  const { id, title, kinds, metrics } = options;
  return {
    id,
    task: 'document',
    title,
    metrics,
    primaryMetric: 'format',

    async buildCases(context, signal) {
      const skipped: SkipCounts = { generated: 0, minified: 0, ignored: 0, declaration: 0, large: 0, unreadable: 0 };
      const files = repositorySourceFiles(context.env.workspace, skipped);
      const cases: DocCase[] = [];
      let brokenFiles = 0;
      let short = 0;
      let misplaced = 0;
      for (const file of files) {
        signal.throwIfAborted();
        if (syntaxErrors(file.fsPath, file.text).length > 0) {
          brokenFiles++;
          continue;
        }
        const starts = lineStarts(file.text);
        for (const declaration of listDeclarations(file.fsPath, file.text)) {
          if (!kinds.has(declaration.kind)) continue;
          const code = file.text.slice(declaration.start, declaration.end);
          if (code.split('\n').length <= MIN_LINES) {
            short++;
            continue;
          }
          if (hasMinifiedLines(code)) continue;
          if (!startsItsLine(file.text, declaration)) {
            misplaced++;
            continue;
          }
          const made = withoutOwnDoc(file.fsPath, file.text, declaration);
          if (!made) continue;
          const line = offsetToPosition(file.text, declaration.start, starts).line + 1;
          cases.push({
            id: `${id}:${file.relative}:${line}:${declaration.name}`,
            file: file.relative,
            line,
            target: `${KIND_LABEL[declaration.kind]} ${declaration.name}`,
            contentHash: hash(`${made.text}\u0000${made.declaration.start}\u0000${declaration.name}`),
            fsPath: file.fsPath,
            text: made.text,
            declaration: made.declaration,
            hadDoc: declaration.existingDoc !== undefined,
            ...(declaration.existingDoc ? { humanDoc: declaration.existingDoc.text } : {}),
          });
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      const notes = [`${files.length} source files`, `${short} ${id === 'doc' ? 'functions' : 'declarations'} of ${MIN_LINES} lines or fewer left out`];
      if (skipped.generated + skipped.minified > 0) notes.push(`${skipped.generated} generated and ${skipped.minified} minified files left out`);
      if (brokenFiles > 0) notes.push(`${brokenFiles} files with syntax errors left out`);
      if (misplaced > 0) notes.push(`${misplaced} declarations sharing their first line with other code left out`);
      context.note(`${id}: ${cases.length} cases (${notes.join('; ')})`);
      return cases;
    },

    run(env, evalCase, agent, interactionId, signal) {
      const document = snapshotOf(evalCase.fsPath, evalCase.text);
      const declaration = evalCase.declaration;
      return runCaseTask(env, { task: 'document', document, target: declarationTarget(declaration), text: `Document the ${KIND_LABEL[declaration.kind]} ${declaration.name}` }, agent, interactionId, signal);
    },

    async score(context, evalCase, run): Promise<Score> {
      const fail = (failure: string, details: Record<string, unknown> = {}): Score => ({ metrics: { syntax: run.proposal ? 0 : null, format: 0 }, failure, details: { hadDoc: evalCase.hadDoc, ...details } });
      if (!run.proposal) return fail(run.failure ?? 'no proposal');
      const applied = context.scratch.applyAndReadBack(run.proposal);
      if (!applied.ok) return fail(applied.reason);
      const [file, ...others] = applied.files;
      if (!file || others.length > 0 || file.created || file.fsPath !== evalCase.fsPath) return fail('the answer edits other files than the documented one');
      const errors = syntaxErrors(evalCase.fsPath, file.after);
      if (errors.length > 0) return fail(`the edited file does not parse: ${errors[0] ?? ''}`);
      const analysis = analyse(context.env.workspace.projects.forFile(evalCase.fsPath), evalCase);
      const declaration = evalCase.declaration;
      const verdict = checkDocFormat({ fileName: evalCase.fsPath, before: evalCase.text, after: file.after, target: { kind: declaration.kind, simpleName: declaration.simpleName, start: declaration.start }, facts: analysis.facts });
      const content = verdict.comment ? contentScores(verdict.comment, evalCase, analysis) : { metrics: {}, details: {} };
      const details = { hadDoc: evalCase.hadDoc, problems: verdict.problems, ...(verdict.comment ? { comment: verdict.comment } : {}), ...content.details };
      return { metrics: { syntax: 1, format: verdict.correct ? 1 : 0, ...content.metrics }, ...(verdict.correct ? {} : { failure: verdict.problems.join('; ') }), details };
    },

    contextChars: (evalCase) => evalCase.declaration.end - evalCase.declaration.start,
  };
}

interface CaseAnalysis {
  facts: ReturnType<typeof signatureFacts>;
  claims: ReturnType<typeof claimFacts>;
  signature: Set<string>;
}

/** What the case's code says, with the project's checker (inferred types), from the syntax alone if the project fails. */
function analyse(project: WorkspaceProject, evalCase: DocCase): CaseAnalysis {
  const of = (source: ts.SourceFile, checker: ts.TypeChecker | undefined): CaseAnalysis => ({
    facts: signatureFacts(source, evalCase.declaration, checker),
    claims: claimFacts(source, evalCase.declaration, checker),
    signature: signatureVocabulary(signatureTexts(source, evalCase.declaration, checker)),
  });
  try {
    const sourceFile = project.sourceFile(evalCase.fsPath, evalCase.text);
    const program = sourceFile.getProject().getProgram().compilerObject;
    const checker = program.getSourceFile(sourceFile.getFilePath()) ? program.getTypeChecker() : undefined;
    return of(sourceFile.compilerNode, checker);
  } catch {
    return of(parseDocument(evalCase.fsPath, evalCase.text), undefined);
  }
}

/**
 * The content metrics of a comment: whether it restates the signature (as a whole, its summary, its `@param` lines),
 * its ROUGE-L agreement with the repository's own comment when there was one, and whether the code contradicts a
 * claim. The repository's comment is measured the same way, for comparison, in the details.
 */
function contentScores(comment: string, evalCase: DocCase, analysis: CaseAnalysis): { metrics: Record<string, number | null>; details: Record<string, unknown> } {
  const restatement = measureRestatement(comment, analysis.signature);
  const contradicted = analysis.claims ? contradictions(comment, analysis.claims) : [];
  const rate = (value: boolean | null): number | null => (value === null ? null : value ? 1 : 0);
  const metrics = {
    restatement: rate(restatement.restates),
    summaryRestatement: rate(restatement.summaryRestates),
    paramRestatement: restatement.paramRestating,
    paramBare: restatement.paramBare,
    agreement: evalCase.humanDoc ? agreement(comment, evalCase.humanDoc) : null,
    contradiction: contradicted.length > 0 ? 1 : 0,
  };
  const details: Record<string, unknown> = { added: restatement.units.map((unit) => ({ kind: unit.kind, added: unit.added })), contradictions: contradicted };
  if (evalCase.humanDoc) {
    const human = measureRestatement(evalCase.humanDoc, analysis.signature);
    details.human = { restates: human.restates, summaryRestates: human.summaryRestates, paramRestating: human.paramRestating, contradictions: analysis.claims ? contradictions(evalCase.humanDoc, analysis.claims) : [] };
  }
  return { metrics, details };
}

/**
 * The file's text without the declaration's own doc comment, and the declaration found again in it: the comment's
 * whole lines go when it stands on lines of its own, otherwise the comment and the spaces after it.
 */
export function withoutOwnDoc(fileName: string, text: string, declaration: DeclarationTarget): { text: string; declaration: DeclarationTarget } | undefined {
  const doc = declaration.existingDoc;
  if (!doc) return { text, declaration };
  const docLineStart = text.lastIndexOf('\n', doc.start - 1) + 1;
  const newline = text.indexOf('\n', doc.end);
  const docLineEnd = newline < 0 ? text.length : newline + 1;
  const ownLines = text.slice(docLineStart, doc.start).trim() === '' && text.slice(doc.end, docLineEnd).trim() === '';
  // Up to the declaration's line when only blank lines are between; `//` lines or overloads in between stay.
  const upTo = declaration.lineStart > doc.end && text.slice(doc.end, declaration.lineStart).trim() === '' ? declaration.lineStart : docLineEnd;
  const [from, to] = ownLines ? [docLineStart, upTo] : [doc.start, doc.end + (/^[ \t]*/.exec(text.slice(doc.end))?.[0].length ?? 0)];
  const stripped = text.slice(0, from) + text.slice(to);
  const start = declaration.start - (to - from);
  const found = listDeclarations(fileName, stripped).find((d) => d.kind === declaration.kind && d.simpleName === declaration.simpleName && d.start === start);
  return found && !found.existingDoc ? { text: stripped, declaration: found } : undefined;
}

function snapshotOf(fsPath: string, text: string): DocumentSnapshot {
  return { uri: pathToUri(fsPath), fsPath, languageId: languageIdForPath(fsPath), version: 1, text };
}

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
