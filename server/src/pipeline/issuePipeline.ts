// The issue pipeline (after AutoCodeRover): explore the repository for the locations to change, write a patch, review it with the oracle and the model, and self-fix by replaying the step most likely at fault.
import path from 'node:path';
import type { PipelineModelResponse, Verdict } from '../protocol.js';
import type { AgentAnswer, AgentRequest } from '../agents/agent.js';
import type { ChatMessage } from '../agents/modelClient.js';
import type { ModelSession } from '../agents/modelTask.js';
import { clip } from '../agents/modelTask.js';
import { PipelineFailure } from '../agents/orchestrator.js';
import { RepositoryTools } from '../repo/repositoryTools.js';
import type { LexicalIndex } from '../repo/lexical/lexicalIndex.js';
import { TEST_PATH } from '../repo/lexical/fileReach.js';
import type { Workspace } from '../workspace/workspace.js';
import type { Proposal } from '../edits/proposal.js';
import { confine } from '../workspace/confinement.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import { PipelineRun } from './pipelineRun.js';
import type { StepContext, StepResult } from './pipelineRun.js';
import { explore, jsonIn } from './exploration.js';
import { locationsIn } from './issueLocations.js';
import { applyModelPatch, proposalOf, workspaceReader } from './modelPatch.js';
import type { FileChange } from './modelPatch.js';
import { checkPatch, testFilesNamedIn } from './patchCheck.js';

/** A place the model decided to change, with what the code there should do. */
export interface IssueLocation {
  file: string;
  symbol?: string;
  intent: string;
}

interface ContextOutput {
  locations: IssueLocation[];
  /** Locations the model named that are not usable (missing, excluded, outside), with why. */
  dropped: string[];
}

interface PatchOutput {
  /** The patch as the model wrote it: re-applied to the files as they are when a replay reuses it. */
  patch: string;
  files: string[];
}

interface ReviewOutput {
  passed: boolean;
  summary: string;
  details: string[];
  testsPassed?: boolean;
  /** The model reviewer's explanation of its verdict. */
  explanation?: string;
}

interface SelfFixOutput {
  step: 'context' | 'patch';
  feedback: string;
}

/** Longest file sent whole to the patch step; longer files are cut around the named declarations. */
const MAX_WHOLE_FILE_LINES = 400;
/** Lines kept on each side of a named declaration in a long file. */
const AROUND_LINES = 30;
/** Most files listed for the model to start exploring from. */
const MAX_LISTED_FILES = 80;

const CONTEXT_SYSTEM = [
  'You are a software engineer fixing an issue in a TypeScript repository you have not seen before.',
  'First explore the repository with the tools to find where the behaviour described in the issue comes from, and which code must change.',
  'When you know, answer with only a JSON object: {"locations": [{"file": "<workspace-relative path>", "symbol": "<function, Class or Class.method>", "intent": "<what this code should do after the fix>"}]}.',
  'Name every place that must change (a new file may be named too), and nothing else.',
].join('\n');

const PATCH_SYSTEM = [
  'You write the patch that resolves an issue in a TypeScript repository.',
  'Answer with a unified diff in one ```diff block and nothing else: for each file, a line "--- a/<path>", then on the next line "+++ b/<path>", then @@ hunks with three lines of context copied exactly from the files shown.',
  'Change only what the issue needs; keep the code style; a new file is written with --- /dev/null.',
].join('\n');

const REVIEW_SYSTEM = [
  'You review a patch proposed for an issue in a TypeScript repository. The patch already type-checks.',
  'Decide whether it resolves the issue without breaking anything else. Answer with only a JSON object: {"verdict": "approve" or "reject", "explanation": "<why, in two or three sentences>"}.',
].join('\n');

const SELF_FIX_SYSTEM = [
  'A pipeline tried to resolve an issue in two steps: "context" (finding the locations to change and what they should do) and "patch" (writing the diff).',
  'Its final patch failed. Decide which step most likely caused the failure, and write feedback for that step so that running it again succeeds.',
  'Answer with only a JSON object: {"step": "context" or "patch", "feedback": "<what that step must do differently>"}.',
].join('\n');

function feedbackBlock(context: StepContext): string {
  if (context.feedback.length === 0) return '';
  const earlier = context.history.filter((r) => !r.error).at(-1);
  return [
    '',
    ...(earlier ? ['Your earlier answer for this step was:', clip(earlier.text, 6_000)] : []),
    'Feedback on it, to take into account now:',
    ...context.feedback.map((f) => `- ${f}`),
  ].join('\n');
}

function usageOf(response: { usage?: PipelineModelResponse['usage'] }): Pick<PipelineModelResponse, 'usage'> {
  return response.usage ? { usage: response.usage } : {};
}

/** The workspace-relative path of a file the model named, when it may be read and changed; else why not. */
function usablePath(workspace: Workspace, file: string, exists: (relative: string) => boolean): { ok: true; path: string } | { ok: false; reason: string } {
  const root = workspace.root;
  const relative = file.replace(/^\.\//, '').replace(/^[ab]\//, '');
  if (path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) return { ok: false, reason: `${file}: outside the workspace` };
  const judged = confine(root, [], [pathToUri(path.join(root, relative))]);
  if (!judged.ok) return { ok: false, reason: `${file}: ${judged.reason}` };
  if (judged.sensitive.length > 0) return { ok: false, reason: `${file}: ${judged.sensitive.join(', ')} is not changed by the issue pipeline` };
  const excluded = workspace.exclusion.check(path.join(root, relative));
  if (excluded) return { ok: false, reason: `${file}: kept from models` };
  if (!exists(relative) && !/\.[cm]?[jt]sx?$/.test(relative)) return { ok: false, reason: `${file}: does not exist` };
  return { ok: true, path: relative.split(path.sep).join('/') };
}

/** The part of a file the patch step shows: the whole file when short, else the named declarations with lines around them. */
function excerpt(relative: string, text: string, symbols: readonly string[], workspace: Workspace): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_WHOLE_FILE_LINES) return `${relative} (whole file, ${lines.length} lines):\n\`\`\`ts\n${text}\n\`\`\``;
  const ranges = workspace.index
    .declarations((name) => symbols.some((s) => name === s || name.endsWith(`.${s}`) || s.endsWith(`.${name}`)), 20)
    .filter((d) => d.path === relative)
    .map((d) => [Math.max(0, d.startLine - 1 - AROUND_LINES), Math.min(lines.length, d.endLine + AROUND_LINES)] as const);
  const shown = ranges.length > 0 ? ranges : [[0, Math.min(lines.length, MAX_WHOLE_FILE_LINES)] as const];
  return shown.map(([from, to]) => `${relative} (lines ${from + 1}-${to} of ${lines.length}):\n\`\`\`ts\n${lines.slice(from, to).join('\n')}\n\`\`\``).join('\n\n');
}

/** Translations: many files of one shape, which an issue about behaviour never starts from. */
const LOCALE_PATH = /(^|\/)(locales?|i18n|l10n|translations?|lang)\//i;
const MENTIONS_TESTS = /\b(tests?|specs?|testing|fixtures?)\b/i;
const MENTIONS_LOCALES = /\b(locales?|i18n|l10n|translations?|translated|languages?|english|french|german|spanish|japanese|chinese|portuguese|italian|russian)\b/i;

/**
 * The files the context step starts from: those the issue's words find first, then the document the user was in and
 * the code it imports, then the package's main code; tests and translations only when the issue points there (by
 * word or by path), since they outnumber the code an issue is about.
 */
export function startingFiles(index: LexicalIndex, issue: string, near: string | undefined): string[] {
  const all = index.indexedFiles();
  const named = (file: string): boolean => issue.includes(file) || issue.includes(path.posix.basename(file));
  const wanted = (file: string): boolean => named(file) || ((!TEST_PATH.test(file) || MENTIONS_TESTS.test(issue)) && (!LOCALE_PATH.test(file) || MENTIONS_LOCALES.test(issue)));
  const out = new Set<string>();
  for (const location of index.lookup(issue, { limit: 20, maxPerFile: 1 })) if (wanted(location.path)) out.add(location.path);
  if (near !== undefined && all.includes(near)) out.add(near);
  const reached = near !== undefined ? index.reachedFrom(near) : new Set<string>();
  const rest = all.filter((file) => !out.has(file) && wanted(file)).sort((a, b) => Number(reached.has(b)) - Number(reached.has(a)) || index.fileWeight(b) - index.fileWeight(a) || a.localeCompare(b));
  return [...out, ...rest].slice(0, MAX_LISTED_FILES);
}

export interface IssuePipelineInput {
  request: AgentRequest;
  session: ModelSession;
  /** The name recorded for this pipeline (`issue`). */
  name?: string;
}

/**
 * Runs the pipeline and returns the final patch as a proposal with the review's verdict. Every step's state goes
 * into the answer's `pipeline`, also when the run fails part way (as a `PipelineFailure`).
 */
export async function runIssuePipeline({ request, session, name = 'issue' }: IssuePipelineInput, signal: AbortSignal): Promise<AgentAnswer> {
  const root = request.project.root;
  const settings = request.pipeline?.settings ?? { toolRounds: 6, maxSelfFixes: 2, patchAttempts: 3, classRounds: 4 };
  const oracle = request.pipeline?.oracle ?? { runTests: false, testTimeoutMs: 120_000 };
  const documents = request.documents;
  if (!documents) return { text: '', reason: 'the issue pipeline needs the editor’s documents' };
  const run = new PipelineRun(name, request.replay, (step) => request.onStep?.(step, name));
  const read = workspaceReader(root, documents);
  const tools = new RepositoryTools(request.workspace, session.embedder);
  const issue = request.text;

  const contextStep = (): Promise<StepResult<ContextOutput>> =>
    run.step<ContextOutput>(
      'context',
      { issue },
      async (step) => {
        await tools.ready(signal);
        const near = request.document.fsPath ? request.workspace.index.relativePath(request.document.fsPath) : undefined;
        const files = startingFiles(request.workspace.index, issue, near);
        const where = request.document.fsPath && request.document.text !== '' ? `\nThe user was looking at ${path.relative(root, request.document.fsPath).split(path.sep).join('/')}${request.target.name !== 'the workspace' ? ` (${request.target.name})` : ''}.` : '';
        const messages: ChatMessage[] = [
          { role: 'system', content: CONTEXT_SYSTEM },
          { role: 'user', content: `Issue:\n${issue}\n${where}\nSome files of the repository:\n${files.join('\n')}${feedbackBlock(step)}` },
        ];
        const explored = await explore(session, tools, messages, { rounds: settings.toolRounds }, signal);
        for (const turn of explored.turns) step.record({ text: turn.text, ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {}), ...usageOf(turn) });
        step.note(`${explored.calls.length} tool call${explored.calls.length === 1 ? '' : 's'}`);
        let named = locationsIn(explored.text);
        if (named.form !== 'json') {
          // One more chance, in the same conversation: the model often explains before it answers, or writes the fix.
          const again = await session.chat([...explored.messages, { role: 'user', content: 'Answer now with only the JSON object {"locations": [...]}.' }], signal);
          const retried = locationsIn(again.text);
          if (retried.form === 'json' || named.locations.length === 0) named = retried;
          step.record({ text: again.text, ...usageOf(again), ...(retried.form === 'json' ? {} : { error: retried.form ? `no {"locations": [...]} JSON in the answer: the places were read from its ${retried.form === 'diff' ? 'diff' : 'file paths'}` : 'no {"locations": [...]} JSON in the answer' }) });
        }
        if (named.form && named.form !== 'json') step.note(`places read from the model's ${named.form === 'diff' ? 'diff' : 'file paths'}`);
        const locations: IssueLocation[] = [];
        const dropped: string[] = [];
        for (const entry of named.locations) {
          const usable = usablePath(request.workspace, entry.file, (relative) => read(relative) !== undefined);
          if (!usable.ok) {
            // Paths picked out of prose may be anything; only the ones asked for are worth a reason.
            if (named.form !== 'paths') dropped.push(usable.reason);
            continue;
          }
          if (named.form === 'paths' && read(usable.path) === undefined) continue;
          locations.push({ file: usable.path, ...(entry.symbol ? { symbol: entry.symbol } : {}), intent: entry.intent });
        }
        const summary = locations.length > 0 ? `${locations.length} location${locations.length === 1 ? '' : 's'}: ${locations.map((l) => l.symbol ?? l.file).join(', ')}` : 'no usable location';
        return { output: { locations, dropped }, summary, ...(locations.length === 0 ? { failed: `the model named no usable location${dropped.length ? ` (${dropped.join('; ')})` : ''}` } : {}) };
      },
      signal,
    );

  const patchStep = (context: ContextOutput): Promise<StepResult<PatchOutput>> =>
    run.step<PatchOutput>(
      'patch',
      { locations: context.locations },
      async (step) => {
        const byFile = new Map<string, string[]>();
        for (const location of context.locations) byFile.set(location.file, [...(byFile.get(location.file) ?? []), ...(location.symbol ? [location.symbol] : [])]);
        const shown = [...byFile].map(([file, symbols]) => {
          const text = read(file);
          return text === undefined ? `${file}: a new file (it does not exist yet).` : excerpt(file, text, symbols, request.workspace);
        });
        const intents = context.locations.map((l) => `- ${l.file}${l.symbol ? ` ${l.symbol}` : ''}: ${l.intent || '(no intent given)'}`);
        const messages: ChatMessage[] = [
          { role: 'system', content: PATCH_SYSTEM },
          { role: 'user', content: `Issue:\n${issue}\n\nWhat must change:\n${intents.join('\n')}\n\nThe code:\n${shown.join('\n\n')}${feedbackBlock(step)}` },
        ];
        let lastReason = '';
        for (let attempt = 1; attempt <= settings.patchAttempts; attempt++) {
          const completion = await session.chat(messages, signal);
          const applied = applyModelPatch(completion.text, read);
          if (applied.ok) {
            step.record({ text: completion.text, ...usageOf(completion) });
            const files = applied.changes.map((c) => c.path);
            return { output: { patch: completion.text, files }, summary: `a patch over ${files.length} file${files.length === 1 ? '' : 's'}: ${files.join(', ')}${attempt > 1 ? ` (attempt ${attempt})` : ''}` };
          }
          lastReason = applied.reason;
          step.record({ text: completion.text, error: applied.reason, ...usageOf(completion) });
          step.note(`attempt ${attempt} unusable: ${applied.reason}`);
          messages.push({ role: 'assistant', content: completion.text }, { role: 'user', content: `That patch cannot be applied: ${applied.reason}.\nSend the corrected diff, with context lines copied exactly from the code shown.` });
        }
        return { output: { patch: '', files: [] }, summary: 'no applicable patch', failed: `no patch could be applied after ${settings.patchAttempts} attempt${settings.patchAttempts === 1 ? '' : 's'}: ${lastReason}` };
      },
      signal,
    );

  /** The patch re-applied to the files as they are now (a reused patch step's output included). */
  const changesOf = (patch: PatchOutput): FileChange[] | string => {
    const applied = applyModelPatch(patch.patch, read);
    return applied.ok ? applied.changes : applied.reason;
  };

  const reviewStep = (context: ContextOutput, patch: PatchOutput): Promise<StepResult<ReviewOutput>> =>
    run.step<ReviewOutput>(
      'review',
      { files: patch.files },
      async (step) => {
        const changes = changesOf(patch);
        if (typeof changes === 'string') return { output: { passed: false, summary: `the patch no longer applies: ${changes}`, details: [] }, summary: 'the patch no longer applies', failed: changes };
        const proposal = proposalOf(root, documents, changes);
        const verdict = await checkPatch(request.workspace, request.project, proposal, oracle, signal, testFilesNamedIn(issue, root));
        if (!verdict.passed) return { output: { passed: false, summary: verdict.summary, details: verdict.details ?? [] }, summary: `rejected by the oracle: ${verdict.summary}`, failed: [verdict.summary, ...(verdict.details ?? []).slice(0, 10)].join('\n') };
        step.note('asking the reviewer');
        const intents = context.locations.map((l) => `- ${l.file}${l.symbol ? ` ${l.symbol}` : ''}: ${l.intent}`).join('\n');
        const completion = await session.chat(
          [
            { role: 'system', content: REVIEW_SYSTEM },
            { role: 'user', content: `Issue:\n${issue}\n\nIntended changes:\n${intents}\n\nPatch:\n${clip(patch.patch, 16_000)}\n\nOracle: ${verdict.summary}` },
          ],
          signal,
        );
        const review = jsonIn(completion.text, (v) => 'verdict' in v);
        const explanation = typeof review?.explanation === 'string' ? review.explanation : completion.text.trim();
        const verdictWord = typeof review?.verdict === 'string' ? review.verdict.toLowerCase() : '';
        step.record({ text: completion.text, ...usageOf(completion), ...(verdictWord === 'approve' || verdictWord === 'reject' ? {} : { error: 'the review has no "verdict": counted as approval, the oracle having passed' }) });
        if (verdictWord === 'reject') return { output: { passed: false, summary: `the reviewer rejected it: ${explanation}`, details: [], explanation }, summary: 'rejected by the reviewer', failed: explanation };
        const output: ReviewOutput = { passed: true, summary: verdict.summary, details: verdict.details ?? [], explanation, ...(verdict.testsPassed ? { testsPassed: true } : {}) };
        return { output, summary: `approved: ${verdict.summary}` };
      },
      signal,
    );

  const selfFixStep = (context: ContextOutput, patch: PatchOutput, failure: string): Promise<StepResult<SelfFixOutput>> =>
    run.step<SelfFixOutput>(
      'self-fix',
      { failure },
      async (step) => {
        const completion = await session.chat(
          [
            { role: 'system', content: SELF_FIX_SYSTEM },
            {
              role: 'user',
              content: `Issue:\n${issue}\n\nStep "context" found:\n${context.locations.map((l) => `- ${l.file}${l.symbol ? ` ${l.symbol}` : ''}: ${l.intent}`).join('\n') || '(nothing usable)'}\n\nStep "patch" wrote:\n${clip(patch.patch || '(no applicable patch)', 12_000)}\n\nWhy it failed:\n${failure}`,
            },
          ],
          signal,
        );
        const answer = jsonIn(completion.text, (v) => 'step' in v || 'feedback' in v);
        const blamed = answer?.step === 'context' ? 'context' : 'patch';
        const feedback = typeof answer?.feedback === 'string' && answer.feedback.trim() ? answer.feedback.trim() : `The previous attempt failed: ${failure}`;
        step.record({ text: completion.text, ...usageOf(completion), ...(answer?.step === 'context' || answer?.step === 'patch' ? {} : { error: 'no "step" in the answer: the patch step is run again' }) });
        // The failure itself goes with the model's feedback, so the step sees the facts and not only an opinion.
        return { output: { step: blamed, feedback: `${feedback}\n(The last patch failed: ${failure})` }, summary: `run "${blamed}" again` };
      },
      signal,
    );

  try {
    let context = await contextStep();
    if (context.failed) throw new PipelineFailure(context.failed, run.state());
    let patch = await patchStep(context.output);
    let review: StepResult<ReviewOutput> | undefined;
    for (let fixes = 0; ; fixes++) {
      review = patch.failed ? undefined : await reviewStep(context.output, patch.output);
      if (review && !review.failed) break;
      if (fixes >= settings.maxSelfFixes) break;
      const failure = review?.failed ?? patch.failed ?? 'unknown failure';
      const blame = await selfFixStep(context.output, patch.output, [failure, ...(review?.output.details ?? []).slice(0, 15)].join('\n'));
      run.addFeedback(blame.output.step, blame.output.feedback);
      if (blame.output.step === 'context') {
        const again = await contextStep();
        if (!again.failed) context = again;
      }
      patch = await patchStep(context.output);
    }
    const state = run.state();
    if (patch.failed) return { text: '', reason: patch.failed, pipeline: state };
    const changes = changesOf(patch.output);
    if (typeof changes === 'string') return { text: '', reason: `the patch no longer applies: ${changes}`, pipeline: state };
    const proposal: Proposal = proposalOf(root, documents, changes);
    const verdict: Verdict = review && !review.failed
      ? { passed: true, summary: review.output.summary, ...(review.output.details.length ? { details: review.output.details } : {}), ...(review.output.testsPassed ? { testsPassed: true } : {}) }
      : { passed: false, summary: review?.output.summary ?? 'not reviewed', details: review?.output.details ?? [] };
    const explanation = review?.output.explanation ? `\n\nReview: ${review.output.explanation}` : '';
    return { text: `${patch.output.patch.trim()}${explanation}`, proposal, verdict, pipeline: state };
  } catch (error) {
    if (error instanceof PipelineFailure || signal.aborted) throw error;
    throw new PipelineFailure(error instanceof Error ? error.message : String(error), run.state(), error);
  }
}
