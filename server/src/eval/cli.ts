// `assistant-ls eval`: parses the command line, runs the evaluation with Ctrl-C stopping it cleanly, and returns the exit code.
import fs from 'node:fs';
import path from 'node:path';
import { runEvaluation, EvalUsageError } from './runner.js';
import type { EvalOptions } from './runner.js';
import { DEFAULT_SCENARIOS, SCENARIO_IDS } from './scenario.js';
import { DEFAULT_STRICT_FLAGS } from './scratch.js';
import { EVAL_PACKAGES, pinnedPackage } from './evalSets.js';
import { QUESTION_SET_NAMES, questionsOf } from './questions/questionSet.js';
import type { QuestionSetName, QuestionSets } from './questions/questionSet.js';
import { evalPackageCache, PackageCacheError, preparePackage } from './packageCache.js';

export const EVAL_USAGE = `assistant-ls eval: measures the assistant's agents on cases built from a repository (Copilot evaluation harness).

Usage:
  assistant-ls eval <repository> [options]
  assistant-ls eval npm:<package> [options]    a pinned evaluation package, downloaded once into the user's cache:
${EVAL_PACKAGES.map((p) => `                       npm:${p.name}@${p.version} (${p.set} set)`).join('\n')}

Options:
  --scenarios LIST     comma-separated: ${SCENARIO_IDS.join(', ')} (default: ${DEFAULT_SCENARIOS.join(',')};
                       generate, test and class run the repository's tests, so they run when named)
  --agents LIST        agent names as assistant/agents lists them (default: every agent serving each scenario's task)
  --limit N            at most N cases per scenario, after a seeded shuffle
  --samples K          runs per case for model agents (default 1; offline agents run once)
  --seed S             seed of the case order and of the bootstrap intervals (default 1)
  --jobs J             cases run in parallel (default 1)
  --json FILE          write the report as JSON; per-case records go to FILE's .records.jsonl as they finish,
                       and running the same command again on the same build skips the cases already recorded
  --questions FILE     the workspace scenario's questions: JSON [{ "query", "expected": { "file", "line"?, "symbol"? }
                       or a list of them, "keywords"? }] (default: .assistant/questions.json in the repository, or
                       a pinned package's own questions)
  --question-set SET   of a pinned package's questions: tuning, held-out, held-out-2 (a second held-out set,
                       written later without looking at the ranking), tuning-3 (a third tuning set, in
                       newcomers' words) or all (default all)
  --strict-flags[=A,B] turn compiler flags on in the scratch copy to surface more fix cases
                       (default set: ${DEFAULT_STRICT_FLAGS.join(', ')})
  --no-eslint          do not use the repository's ESLint for fix cases
  --settings FILE      assistant settings (JSON, as in the editor: agents, orchestrator, …)
  --attempts N         times a model agent is asked when the oracle rejects its answer (default: the settings')
  --keep-scratch       keep the scratch copy (its path is printed)
  --help               print this help

Model agents come from OPENAI_API_KEY, OPENAI_BASE_URL and ASSISTANT_MODEL, and from the settings' "agents".
The repository is copied to a temporary folder; it is never written.`;

/** Parsed options, or the help request. */
export type ParsedArguments = { help: true } | { help: false; options: EvalOptions; settingsFile?: string; questionSet?: QuestionSetName };

/** Reads the command line after `eval`; throws EvalUsageError on a mistake. */
export function parseEvalArguments(argv: readonly string[]): ParsedArguments {
  const args = [...argv];
  const positional: string[] = [];
  const options: Partial<EvalOptions> & { eslint: boolean } = { eslint: true };
  let settingsFile: string | undefined;
  let questionSet: QuestionSetName | undefined;
  const valueOf = (flag: string, inline: string | undefined): string => {
    if (inline !== undefined) return inline;
    const value = args.shift();
    if (value === undefined || value.startsWith('--')) throw new EvalUsageError(`${flag} needs a value`);
    return value;
  };
  const integer = (flag: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new EvalUsageError(`${flag} needs a whole number of at least ${min}, not ${JSON.stringify(text)}`);
    return n;
  };
  const list = (text: string): string[] =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  while (args.length > 0) {
    const arg = args.shift() as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (flag) {
      case '--help':
        return { help: true };
      case '--scenarios':
        options.scenarios = list(valueOf(flag, inline));
        break;
      case '--agents':
        options.agents = list(valueOf(flag, inline));
        break;
      case '--limit':
        options.limit = integer(flag, valueOf(flag, inline), 1);
        break;
      case '--samples':
        options.samples = integer(flag, valueOf(flag, inline), 1);
        break;
      case '--seed':
        options.seed = integer(flag, valueOf(flag, inline), 0);
        break;
      case '--jobs':
        options.jobs = integer(flag, valueOf(flag, inline), 1);
        break;
      case '--json':
        options.json = valueOf(flag, inline);
        break;
      case '--strict-flags':
        options.strictFlags = inline !== undefined ? list(inline) : [...DEFAULT_STRICT_FLAGS];
        break;
      case '--no-eslint':
        options.eslint = false;
        break;
      case '--settings':
        settingsFile = valueOf(flag, inline);
        break;
      case '--attempts':
        options.attempts = integer(flag, valueOf(flag, inline), 1);
        break;
      case '--keep-scratch':
        options.keepScratch = true;
        break;
      case '--questions':
        options.questions = path.resolve(valueOf(flag, inline));
        break;
      case '--question-set': {
        const set = valueOf(flag, inline);
        const known = QUESTION_SET_NAMES.find((name) => name === set);
        if (known === undefined) throw new EvalUsageError(`--question-set is tuning, held-out, held-out-2, tuning-3 or all, not ${JSON.stringify(set)}`);
        questionSet = known;
        break;
      }
      default:
        throw new EvalUsageError(`unknown option ${flag}`);
    }
  }
  if (positional.length !== 1) throw new EvalUsageError(positional.length === 0 ? 'which repository? assistant-ls eval <repository> [options]' : `one repository at a time, not ${positional.join(' ')}`);
  if (options.agents?.length === 0) throw new EvalUsageError('--agents needs at least one name');
  if (options.scenarios?.length === 0) throw new EvalUsageError('--scenarios needs at least one name');
  if (options.strictFlags?.some((flag) => !/^[A-Za-z]+$/.test(flag))) throw new EvalUsageError('--strict-flags takes compiler option names, e.g. --strict-flags=noUnusedLocals,noImplicitReturns');
  const parsed: EvalOptions = {
    repository: positional[0] as string,
    scenarios: options.scenarios ?? [...DEFAULT_SCENARIOS],
    samples: options.samples ?? 1,
    seed: options.seed ?? 1,
    jobs: options.jobs ?? 1,
    eslint: options.eslint,
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.json !== undefined ? { json: options.json } : {}),
    ...(options.strictFlags ? { strictFlags: options.strictFlags } : {}),
    ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
    ...(options.keepScratch ? { keepScratch: true } : {}),
    ...(options.questions ? { questions: options.questions } : {}),
  };
  if (questionSet !== undefined && !parsed.repository.startsWith('npm:')) throw new EvalUsageError('--question-set is for a pinned package (npm:NAME); pass --questions FILE for a repository');
  if (questionSet !== undefined && parsed.questions !== undefined) throw new EvalUsageError('--question-set picks a pinned package\'s own questions; it does not go with --questions FILE');
  return { help: false, options: parsed, ...(settingsFile ? { settingsFile } : {}), ...(questionSet ? { questionSet } : {}) };
}

/** Writes a pinned package's questions of one set beside its sources (in a hidden folder no listing walks); returns the file. */
function writeQuestions(folder: string, sets: QuestionSets, name: QuestionSetName): string {
  const file = path.join(folder, '.assistant-eval', `questions.${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(questionsOf(sets, name), null, 1)}\n`);
  return file;
}

/** The `eval` command: 0 when the run completed, 130 when interrupted, 2 for a usage mistake, 1 for a failure. */
export async function evalMain(argv: string[]): Promise<number> {
  let parsed: ParsedArguments;
  try {
    parsed = parseEvalArguments(argv);
    if (!parsed.help && parsed.settingsFile) {
      try {
        parsed.options.settings = JSON.parse(fs.readFileSync(parsed.settingsFile, 'utf8')) as unknown;
      } catch (error) {
        throw new EvalUsageError(`cannot read the settings ${parsed.settingsFile}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } catch (error) {
    if (error instanceof EvalUsageError) {
      process.stderr.write(`assistant-ls eval: ${error.message}\n\n${EVAL_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(`${EVAL_USAGE}\n`);
    return 0;
  }

  const controller = new AbortController();
  const onInterrupt = (): void => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\neval: stopping; the finished cases are kept (Ctrl-C again to quit at once)\n');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  try {
    if (parsed.options.repository.startsWith('npm:')) {
      const pinned = pinnedPackage(parsed.options.repository);
      if ('error' in pinned) throw new EvalUsageError(pinned.error);
      parsed.options.repository = await preparePackage(pinned, evalPackageCache(process.env), controller.signal, { note: (message) => process.stderr.write(`eval: ${message}\n`) });
      if (pinned.questions && parsed.options.questions === undefined) parsed.options.questions = writeQuestions(parsed.options.repository, pinned.questions, parsed.questionSet ?? 'all');
    }
    const report = await runEvaluation(parsed.options, { out: (text) => process.stdout.write(text), progress: process.stderr, env: process.env }, controller.signal);
    return report.complete ? 0 : 130;
  } catch (error) {
    if (error instanceof EvalUsageError) {
      process.stderr.write(`assistant-ls eval: ${error.message}\n`);
      return 2;
    }
    if (error instanceof PackageCacheError) {
      process.stderr.write(`assistant-ls eval: ${error.message}\n`);
      return 1;
    }
    if (controller.signal.aborted) {
      process.stderr.write('assistant-ls eval: interrupted\n');
      return 130;
    }
    process.stderr.write(`assistant-ls eval: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}
