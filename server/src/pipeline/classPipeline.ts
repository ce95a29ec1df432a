// The class pipeline (after RRR/RepoClassBench): a first attempt from the description and related code, then rounds of oracle, tool calls chosen from the errors, reflection and a better attempt.
import fs from 'node:fs';
import path from 'node:path';
import type { PipelineToolCall } from '../protocol.js';
import type { AgentAnswer, AgentRequest } from '../agents/agent.js';
import type { ChatMessage } from '../agents/modelClient.js';
import type { ModelSession } from '../agents/modelTask.js';
import { clip } from '../agents/modelTask.js';
import { PipelineFailure } from '../agents/orchestrator.js';
import { RepositoryTools, TOOL_DEFINITIONS } from '../repo/repositoryTools.js';
import { fencedCode } from '../tasks/replaceCode.js';
import { formatFileErrors, typeCheckNewFile } from '../oracle/typeCheck.js';
import { runTestFile } from '../oracle/testRunner.js';
import { testFilePath } from '../repo/testFramework.js';
import { confine } from '../workspace/confinement.js';
import { pathToUri } from '../workspace/documentSnapshot.js';
import { PipelineRun } from './pipelineRun.js';
import type { StepContext, StepResult } from './pipelineRun.js';
import { runCall, textCalls } from './exploration.js';

/** Most tool calls run per round: RRR's point is a few calls aimed at the errors, not a new exploration. */
export const MAX_CLASS_TOOL_CALLS = 3;
/** Most errors shown to the model in one round. */
const MAX_ERRORS_SHOWN = 20;

interface Attempt {
  code: string;
  className: string;
  /** Workspace-relative path of the new file. */
  file: string;
}

interface CheckOutput {
  passed: boolean;
  errors: string[];
  testsPassed?: boolean;
  summary: string;
}

const ATTEMPT_SYSTEM = [
  'You write a new TypeScript class for an existing repository, as one new file.',
  'Use the repository’s own types and functions where they fit, with import statements using the relative paths and the module style the repository uses.',
  'Answer with the whole file in one ```ts block, and nothing else.',
].join('\n');

const TOOLS_SYSTEM = [
  'Your class does not type-check yet. Call the repository tools that tell you what you need to fix the errors below',
  `(at most ${MAX_CLASS_TOOL_CALLS} calls: signatures of the functions you call, members of the classes you use, imports of names you could not find).`,
].join(' ');

const REFLECT_SYSTEM = 'You reflect on a failed attempt at writing a class: in a few sentences, say what went wrong and exactly what the next attempt must change. No code.';

/** The class's name from the request ("a class named RateLimiter", "a RateLimiter class"), if it names one. */
export function classNameIn(text: string): string | undefined {
  const named = /\bclass\s+(?:named|called)\s+[`'"]?([A-Z][A-Za-z0-9_]*)/.exec(text) ?? /\b([A-Z][A-Za-z0-9_]*)\s+class\b/.exec(text) ?? /\bclass\s+[`'"]?([A-Z][A-Za-z0-9_]*)/.exec(text);
  return named?.[1];
}

/** The file name a class gets by the folder's habit: kebab-case, PascalCase or camelCase, as most files there are named. */
export function habitFileName(className: string, folder: string, extension = '.ts'): string {
  return habitIn(className, namesIn(folder), extension);
}

function namesIn(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}

function habitIn(className: string, entries: readonly string[], extension: string): string {
  const names = entries.filter((n) => /\.[cm]?[jt]sx?$/.test(n) && !/\.(test|spec|d)\./.test(n));
  const stems = names.map((n) => n.replace(/\..*$/, ''));
  const kebab = stems.filter((s) => /^[a-z0-9]+(-[a-z0-9]+)+$/.test(s)).length;
  const pascal = stems.filter((s) => /^[A-Z][a-z0-9]+[A-Z]/.test(s) || /^[A-Z][a-z0-9]+$/.test(s)).length;
  const camel = stems.filter((s) => /^[a-z][a-z0-9]*[A-Z]/.test(s)).length;
  const words = className.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ');
  if (kebab > pascal && kebab > camel) return `${words.map((w) => w.toLowerCase()).join('-')}${extension}`;
  if (pascal > camel) return `${className}${extension}`;
  return `${className[0]?.toLowerCase() ?? ''}${className.slice(1)}${extension}`;
}

/**
 * The new file's name: the habit's, or with a number after it when a file of that name exists in any case
 * (`Cart2.ts` beside `cart.ts`): the class must not replace other code, and the compiler refuses two files whose
 * names differ only in case.
 */
export function fileNameFor(className: string, folder: string, extension = '.ts'): string {
  const entries = namesIn(folder);
  const habit = habitIn(className, entries, extension);
  const taken = new Set(entries.map((n) => n.toLowerCase()));
  const stem = habit.slice(0, habit.length - extension.length);
  for (let n = 1; ; n++) {
    const name = `${stem}${n === 1 ? '' : n}${extension}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

/** Tool calls aimed at the errors, for a model that asked for none: what each unknown name, member or base is. */
export function callsForErrors(errors: readonly string[]): { name: string; arguments: string }[] {
  const calls = new Map<string, { name: string; arguments: string }>();
  const add = (name: string, args: Record<string, string>): void => {
    const key = `${name}${JSON.stringify(args)}`;
    if (!calls.has(key)) calls.set(key, { name, arguments: JSON.stringify(args) });
  };
  for (const error of errors) {
    let m: RegExpExecArray | null;
    if ((m = /TS(?:2304|2552)\b.*Cannot find name '([^']+)'/.exec(error))) add('get_signature', { name: m[1] as string });
    else if ((m = /TS2339\b.*Property '[^']+' does not exist on type '([A-Za-z_$][\w$]*)/.exec(error))) add('get_class_info', { name: m[1] as string });
    else if ((m = /TS2305\b.*has no exported member '([^']+)'/.exec(error))) add('search_class', { name: m[1] as string });
    else if ((m = /TS(?:2420|2515)\b.*(?:interface|from class) '([A-Za-z_$][\w$]*)'/.exec(error))) add('get_class_info', { name: m[1] as string });
    else if ((m = /TS2307\b.*Cannot find module '([^']+)'/.exec(error))) add('get_relevant_code', { query: path.basename(m[1] as string) });
    if (calls.size >= MAX_CLASS_TOOL_CALLS) break;
  }
  return [...calls.values()];
}

function feedbackLines(context: StepContext): string {
  return context.feedback.length > 0 ? `\n\nFeedback to take into account:\n${context.feedback.map((f) => `- ${f}`).join('\n')}` : '';
}

export interface ClassPipelineInput {
  request: AgentRequest;
  session: ModelSession;
}

/**
 * Generates the class described by the request as a new file: attempt, check, and while it fails and rounds remain,
 * tools chosen from the errors, a reflection and a new attempt. Returns the file as a `CreateFile` proposal with the
 * last check as its verdict.
 */
export async function runClassPipeline({ request, session }: ClassPipelineInput, signal: AbortSignal): Promise<AgentAnswer> {
  const root = request.project.root;
  const settings = request.pipeline?.settings ?? { toolRounds: 6, maxSelfFixes: 2, patchAttempts: 3, classRounds: 4 };
  const oracle = request.pipeline?.oracle ?? { runTests: false, testTimeoutMs: 120_000 };
  const run = new PipelineRun('class', request.replay, (step) => request.onStep?.(step, 'class'));
  const tools = new RepositoryTools(request.workspace, session.embedder);
  const description = request.text;
  const wanted = request.parameters.className || classNameIn(description);
  const folder = request.document.fsPath && request.document.text !== '' ? path.dirname(request.document.fsPath) : fs.existsSync(path.join(root, 'src')) ? path.join(root, 'src') : root;
  // Each attempt names its file several times; the folder is read once per class name.
  const files = new Map<string, string>();
  const fileFor = (className: string): string => {
    let file = files.get(className);
    if (file === undefined) files.set(className, (file = path.relative(root, path.join(folder, fileNameFor(className, folder))).split(path.sep).join('/')));
    return file;
  };

  const retrieve = await run.step<{ snippets: string }>(
    'retrieve',
    { description },
    async () => {
      await tools.ready(signal);
      const snippets = await tools.relevantCode(description, 5, signal);
      return { output: { snippets }, summary: `${(snippets.match(/^\S+:\d+/gm) ?? []).length} related snippets` };
    },
    signal,
  );

  const attemptStep = (previous: { attempt: Attempt; check: CheckOutput; calls: PipelineToolCall[]; reflection: string } | undefined): Promise<StepResult<Attempt>> =>
    run.step<Attempt>(
      'attempt',
      { round: previous ? 'improved' : 'first' },
      async (step) => {
        const target = wanted ? `The class is ${wanted}, in the new file ${fileFor(wanted)}.` : 'Choose a fitting class name.';
        const user = [
          `Write this class:\n${description}`,
          target,
          `Related code in the repository:\n${retrieve.output.snippets}`,
          ...(previous
            ? [
                `Your previous attempt:\n\`\`\`ts\n${clip(previous.attempt.code, 12_000)}\n\`\`\``,
                `It failed the check:\n${previous.check.errors.slice(0, MAX_ERRORS_SHOWN).join('\n')}`,
                ...(previous.calls.length ? [`What the tools said:\n${previous.calls.map((c) => `${c.name} ${c.arguments}:\n${c.result}`).join('\n\n')}`] : []),
                `Your reflection:\n${previous.reflection}`,
                'Write the improved file.',
              ]
            : []),
        ].join('\n\n');
        const messages: ChatMessage[] = [
          { role: 'system', content: ATTEMPT_SYSTEM },
          { role: 'user', content: `${user}${feedbackLines(step)}` },
        ];
        const completion = await session.chat(messages, signal);
        const code = fencedCode(completion.text);
        if (!code.ok) {
          step.record({ text: completion.text, error: code.reason, ...(completion.usage ? { usage: completion.usage } : {}) });
          return { output: { code: '', className: wanted ?? '', file: '' }, summary: 'no code', failed: code.reason };
        }
        const declared = /\bclass\s+([A-Za-z_$][\w$]*)/.exec(code.code)?.[1];
        const className = wanted ?? declared ?? 'NewClass';
        const error = !declared ? 'the file declares no class' : wanted && declared !== wanted ? `the file declares ${declared}, not ${wanted}` : undefined;
        step.record({ text: completion.text, ...(error ? { error } : {}), ...(completion.usage ? { usage: completion.usage } : {}) });
        return { output: { code: code.code, className, file: fileFor(className) }, summary: `${className} in ${fileFor(className)}`, ...(error ? { failed: error } : {}) };
      },
      signal,
    );

  const checkStep = (attempt: Attempt): Promise<StepResult<CheckOutput>> =>
    run.step<CheckOutput>(
      'check',
      { file: attempt.file },
      async () => {
        if (!attempt.code) return { output: { passed: false, errors: ['no code to check'], summary: 'no code' }, summary: 'no code', failed: 'no code' };
        const absolute = path.join(root, attempt.file);
        const judged = confine(root, [], [pathToUri(absolute)]);
        if (!judged.ok) return { output: { passed: false, errors: [judged.reason], summary: judged.reason }, summary: 'refused', failed: judged.reason };
        if (fs.existsSync(absolute)) {
          const exists = `${attempt.file} already exists; the class must go into a new file`;
          return { output: { passed: false, errors: [exists], summary: exists }, summary: 'file exists', failed: exists };
        }
        const errors = formatFileErrors(attempt.file, typeCheckNewFile(request.project, { path: absolute, text: attempt.code }));
        if (errors.length > 0) return { output: { passed: false, errors, summary: `${errors.length} type error${errors.length === 1 ? '' : 's'}` }, summary: `${errors.length} type error${errors.length === 1 ? '' : 's'}`, failed: errors[0] };
        // A test file written for the class before it existed (the RepoClassBench setting) must pass.
        const convention = request.workspace.testConvention(absolute);
        const testFile = testFilePath(convention, absolute);
        if (!oracle.runTests || !fs.existsSync(testFile)) {
          const note = fs.existsSync(testFile) ? 'type-checks (tests not run: oracle.runTests is off)' : 'type-checks';
          return { output: { passed: true, errors: [], summary: note }, summary: note };
        }
        const result = await runTestFile({ workspaceRoot: root, packageRoot: convention.root, framework: convention.framework, testFile, files: [{ path: absolute, text: attempt.code }], timeoutMs: oracle.testTimeoutMs }, signal);
        const label = path.relative(root, testFile).split(path.sep).join('/');
        if (result.unavailable) return { output: { passed: true, errors: [], summary: `type-checks; ${label} not run: ${result.unavailable}` }, summary: 'type-checks' };
        if (result.passed) return { output: { passed: true, errors: [], testsPassed: true, summary: `type-checks; ${label} passes` }, summary: `type-checks; ${label} passes` };
        const failures = result.failures.length > 0 ? result.failures : [`${label} fails (${result.command})`];
        return { output: { passed: false, errors: failures, summary: `${label} fails` }, summary: `${label} fails`, failed: failures[0] };
      },
      signal,
    );

  const toolsStep = (attempt: Attempt, check: CheckOutput): Promise<StepResult<{ calls: PipelineToolCall[] }>> =>
    run.step<{ calls: PipelineToolCall[] }>(
      'tools',
      { errors: check.errors.slice(0, MAX_ERRORS_SHOWN) },
      async (step) => {
        const functions = session.toolProtocol === 'functions';
        const messages: ChatMessage[] = [
          { role: 'system', content: functions ? TOOLS_SYSTEM : `${TOOLS_SYSTEM}\n\nAnswer with one line per call: CALL <tool> <JSON arguments>. Tools: ${TOOL_DEFINITIONS.map((t) => t.name).join(', ')}.` },
          { role: 'user', content: `The class:\n\`\`\`ts\n${clip(attempt.code, 12_000)}\n\`\`\`\n\nErrors:\n${check.errors.slice(0, MAX_ERRORS_SHOWN).join('\n')}` },
        ];
        const completion = await session.chat(messages, signal, functions ? TOOL_DEFINITIONS : undefined);
        const asked = functions ? (completion.toolCalls ?? []) : textCalls(completion.text);
        // A model that asks for nothing still gets the facts the errors point at.
        const chosen = asked.length > 0 ? asked.slice(0, MAX_CLASS_TOOL_CALLS) : callsForErrors(check.errors).map((c, i) => ({ id: `auto_${i}`, ...c }));
        const allowed = new Set(TOOL_DEFINITIONS.map((t) => t.name));
        const calls: PipelineToolCall[] = [];
        for (const call of chosen) calls.push({ name: call.name, arguments: call.arguments, result: await runCall(tools, call, allowed, signal) });
        step.record({ text: completion.text, toolCalls: calls, ...(asked.length > MAX_CLASS_TOOL_CALLS ? { error: `only the first ${MAX_CLASS_TOOL_CALLS} calls were run` } : {}), ...(completion.usage ? { usage: completion.usage } : {}) });
        return { output: { calls }, summary: `${calls.length} tool call${calls.length === 1 ? '' : 's'}${asked.length === 0 && calls.length > 0 ? ' chosen from the errors' : ''}` };
      },
      signal,
    );

  const reflectStep = (attempt: Attempt, check: CheckOutput, calls: PipelineToolCall[]): Promise<StepResult<{ reflection: string }>> =>
    run.step<{ reflection: string }>(
      'reflect',
      {},
      async (step) => {
        const completion = await session.chat(
          [
            { role: 'system', content: REFLECT_SYSTEM },
            {
              role: 'user',
              content: `Task:\n${description}\n\nAttempt:\n\`\`\`ts\n${clip(attempt.code, 12_000)}\n\`\`\`\n\nErrors:\n${check.errors.slice(0, MAX_ERRORS_SHOWN).join('\n')}\n\nTool results:\n${calls.map((c) => `${c.name} ${c.arguments}:\n${c.result}`).join('\n\n') || '(none)'}${feedbackLines(step)}`,
            },
          ],
          signal,
        );
        step.record({ text: completion.text, ...(completion.usage ? { usage: completion.usage } : {}) });
        return { output: { reflection: completion.text.trim() }, summary: completion.text.trim().split('\n')[0]?.slice(0, 100) ?? '' };
      },
      signal,
    );

  try {
    let attempt = await attemptStep(undefined);
    let check = await checkStep(attempt.output);
    for (let round = 1; !check.output.passed && round < settings.classRounds; round++) {
      const called = await toolsStep(attempt.output, check.output);
      const reflection = await reflectStep(attempt.output, check.output, called.output.calls);
      attempt = await attemptStep({ attempt: attempt.output, check: check.output, calls: called.output.calls, reflection: reflection.output.reflection });
      check = await checkStep(attempt.output);
    }
    const state = run.state();
    if (!attempt.output.code) return { text: '', reason: attempt.failed ?? 'no class was written', pipeline: state };
    const uri = pathToUri(path.join(root, attempt.output.file));
    const text = attempt.output.code.endsWith('\n') ? attempt.output.code : `${attempt.output.code}\n`;
    return {
      text,
      proposal: { documents: [], creates: [{ uri, text }] },
      verdict: check.output.passed
        ? { passed: true, summary: check.output.summary, ...(check.output.testsPassed ? { testsPassed: true } : {}) }
        : { passed: false, summary: `still failing after ${settings.classRounds} attempt${settings.classRounds === 1 ? '' : 's'}: ${check.output.summary}`, details: check.output.errors.slice(0, 30) },
      pipeline: state,
    };
  } catch (error) {
    if (error instanceof PipelineFailure || signal.aborted) throw error;
    throw new PipelineFailure(error instanceof Error ? error.message : String(error), run.state(), error);
  }
}
