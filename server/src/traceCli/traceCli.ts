// `assistant-ls trace`: parses the command line, reads the workspace's trace without writing it, prints it, and returns the exit code.
import fs from 'node:fs';
import path from 'node:path';
import type { InteractionTask, TraceParams, TraceResult } from '../protocol.js';
import { RECORDED_ONLY_TASKS, TASK_IDS } from '../protocol.js';
import { MAX_LIMIT, parseIsoInstant } from '../trace/traceQuery.js';
import { findWorkspaceRoot, traceLocation, TraceReader } from '../trace/traceReader.js';
import { withPlace } from '../trace/tracePlace.js';
import type { TraceLocation } from '../trace/traceReader.js';
import { interactionDetail, interactionTable } from './traceText.js';

const TASKS: readonly string[] = [...TASK_IDS, 'none', ...RECORDED_ONLY_TASKS];
const DEFAULT_PAGE = 20;

export const TRACE_USAGE = `assistant-ls trace: which code the assistant produced, and why, from the workspace's trace.

Usage:
  assistant-ls trace [filters]        recent interactions, newest first, one line each
  assistant-ls trace show ID          one interaction in full: the request, each agent's answer, the edits,
                                      what happened after (ID: an id, or the start of one, as the list shows)

Filters (as assistant/trace's):
  --since WHEN        from WHEN on: 7d, 24h, 30m, 2w ago, or an ISO date or date-time (a date alone
                      is local midnight)
  --until WHEN        before WHEN, in the same forms
  --task TASK         ${TASKS.join(', ')}
  --agent NAME        an agent that answered (as assistant/agents names it)
  --used, --unused    with or without an answer the user applied, or was shown
  --text WORDS        in the request or an answer, ignoring case (quote several words)
  --file PATH[:LINE]  code to interaction: what produced the code in that file, or at that line now
  --session ID        one server session's interactions
  --limit N           interactions per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_PAGE})
  --offset N          skip the N newest matches (the next page)

Options:
  --workspace DIR     the project (default: the nearest folder from here up with a .assistant/trace,
                      else this one)
  --trace-dir DIR     where the trace is when the setting trace.directory moved it
  --json              the records as assistant/trace returns them, for scripts
  --help              print this help

The trace is only read, never changed; a language server may be writing it meanwhile.
Exit status: 0 done (also when nothing matches), 1 no trace or no such interaction, 2 a usage mistake.`;

/** A mistake on the command line: exit code 2 with the help's pointer. */
export class TraceUsageError extends Error {}

/** What the command line asks for. */
export interface TraceArguments {
  command: 'list' | 'show';
  /** For `show`: an id or the start of one. */
  id?: string;
  params: TraceParams;
  file?: { path: string; line?: number };
  workspace?: string;
  traceDirectory?: string;
  json: boolean;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A `--since`/`--until` value as an ISO instant: a duration back from `now`, a date (local midnight) or an ISO date-time. */
export function parseWhen(flag: string, value: string, now: number): string {
  const duration = /^(\d+)\s*([mhdw])$/i.exec(value.trim());
  if (duration) return new Date(now - Number(duration[1]) * (UNITS[(duration[2] as string).toLowerCase()] as number)).toISOString();
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (date && parseIsoInstant(value) !== undefined) return new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).toISOString();
  const instant = parseIsoInstant(value);
  if (instant === undefined) throw new TraceUsageError(`${flag} takes a duration such as 7d, 24h or 30m, or an ISO date such as 2025-03-01 or 2025-03-01T14:00, not ${JSON.stringify(value)}`);
  return new Date(instant).toISOString();
}

/** `PATH` or `PATH:LINE` (LINE from 1). */
function parseFile(value: string): { path: string; line?: number } {
  const match = /^(.*):(\d+)$/.exec(value);
  if (!match) return { path: value };
  const line = Number(match[2]);
  if (line < 1) throw new TraceUsageError(`--file ${value}: lines count from 1`);
  return { path: match[1] as string, line };
}

/** Reads the command line after `trace`; throws TraceUsageError on a mistake. */
export function parseTraceArguments(argv: readonly string[], now: number): { help: true } | { help: false; args: TraceArguments } {
  const rest = [...argv];
  const positional: string[] = [];
  const params: TraceParams = {};
  const args: TraceArguments = { command: 'list', params, json: false };
  const filters: string[] = [];
  const valueOf = (flag: string, inline: string | undefined): string => {
    if (inline !== undefined) return inline;
    const value = rest.shift();
    if (value === undefined || (value.startsWith('--') && value.length > 2)) throw new TraceUsageError(`${flag} needs a value`);
    return value;
  };
  const count = (flag: string, text: string, min: number, max: number): number => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) throw new TraceUsageError(`${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}${flag === '--limit' && n > max ? ' (--offset shows the next page)' : ''}`);
    return n;
  };
  while (rest.length > 0) {
    const arg = rest.shift() as string;
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const [flag, inline] = equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
    if (flag !== '--workspace' && flag !== '--trace-dir' && flag !== '--json' && flag !== '--help') filters.push(flag);
    switch (flag) {
      case '--help':
        return { help: true };
      case '--since':
        params.since = parseWhen(flag, valueOf(flag, inline), now);
        break;
      case '--until':
        params.until = parseWhen(flag, valueOf(flag, inline), now);
        break;
      case '--task': {
        const task = valueOf(flag, inline);
        if (!TASKS.includes(task)) throw new TraceUsageError(`--task ${JSON.stringify(task)} is no task; the tasks are ${TASKS.join(', ')}`);
        params.task = task as InteractionTask;
        break;
      }
      case '--agent':
        params.agent = valueOf(flag, inline);
        break;
      case '--used':
      case '--unused': {
        const used = flag === '--used';
        if (params.used === !used) throw new TraceUsageError('--used and --unused exclude each other');
        params.used = used;
        break;
      }
      case '--text':
        params.text = valueOf(flag, inline);
        break;
      case '--file':
        args.file = parseFile(valueOf(flag, inline));
        break;
      case '--session':
        params.sessionId = valueOf(flag, inline);
        break;
      case '--limit':
        params.limit = count(flag, valueOf(flag, inline), 1, MAX_LIMIT);
        break;
      case '--offset':
        params.offset = count(flag, valueOf(flag, inline), 0, Number.MAX_SAFE_INTEGER);
        break;
      case '--workspace':
        args.workspace = valueOf(flag, inline);
        break;
      case '--trace-dir':
        args.traceDirectory = valueOf(flag, inline);
        break;
      case '--json':
        args.json = true;
        break;
      default:
        throw new TraceUsageError(`unknown option ${flag}`);
    }
  }
  if (positional[0] === 'show') {
    if (positional.length !== 2) throw new TraceUsageError(positional.length === 1 ? 'which interaction? assistant-ls trace show ID' : `one interaction at a time, not ${positional.slice(1).join(' ')}`);
    if (filters.length > 0) throw new TraceUsageError(`show takes an id, not filters (${filters.join(', ')})`);
    args.command = 'show';
    args.id = positional[1] as string;
  } else if (positional.length > 0) {
    throw new TraceUsageError(`unexpected ${JSON.stringify(positional[0])}: the command is "assistant-ls trace [filters]" or "assistant-ls trace show ID"`);
  }
  params.limit ??= DEFAULT_PAGE;
  return { help: false, args };
}

/** Where the command writes, and what it knows of its surroundings (a test passes its own). */
export interface TraceIo {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The terminal's width, when the output is a terminal. */
  columns?: number;
  now?: number;
}

function processIo(): TraceIo {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
  };
}

function noTrace(location: TraceLocation): string {
  return `no interactions recorded for ${location.root} yet; the trace is written by the language server at ${location.directory} (the setting trace.directory; --trace-dir names another)`;
}

/** The footer of a page: which matches it shows, and how to see the rest. */
function pageFooter(result: TraceResult, offset: number): string {
  const shown = result.interactions.length;
  const range = shown === result.total && offset === 0 ? `${result.total} interaction${result.total === 1 ? '' : 's'}` : `${offset + 1}-${offset + shown} of ${result.total}`;
  return result.nextOffset === undefined ? range : `${range}; ${result.total - result.nextOffset} more: --offset ${result.nextOffset}`;
}

/** The `trace` command: 0 when it printed what was asked, 1 when there is no trace or no such interaction, 2 for a usage mistake. */
export async function traceMain(argv: string[], io: TraceIo = processIo()): Promise<number> {
  let args: TraceArguments;
  try {
    const parsed = parseTraceArguments(argv, io.now ?? Date.now());
    if (parsed.help) {
      io.out(`${TRACE_USAGE}\n`);
      return 0;
    }
    args = parsed.args;
  } catch (error) {
    if (!(error instanceof TraceUsageError)) throw error;
    io.err(`assistant-ls trace: ${error.message}\nRun assistant-ls trace --help for the options.\n`);
    return 2;
  }
  const fail = (message: string): number => {
    io.err(`assistant-ls trace: ${message}\n`);
    return 1;
  };

  let root: string;
  if (args.workspace !== undefined) {
    root = path.resolve(io.cwd, args.workspace);
    if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) return fail(`--workspace ${args.workspace}: no such folder`);
  } else {
    root = findWorkspaceRoot(io.cwd);
  }
  const location = traceLocation(root, args.traceDirectory, io.env);
  if (location.problem) io.err(`assistant-ls trace: ${location.problem}\n`);
  if (!fs.existsSync(location.directory)) return fail(noTrace(location));

  const reader = await TraceReader.open(location, (message) => io.err(`assistant-ls trace: ${message}\n`));
  try {
    if (reader.size === 0) return fail(noTrace(location));
    if (args.command === 'show') {
      const found = reader.lookUp(args.id as string);
      if (found.kind === 'unknown') return fail(`no interaction ${args.id as string} in the trace at ${location.directory}`);
      if (found.kind === 'ambiguous') {
        const table = interactionTable(found.candidates, root, io.columns);
        return fail(`${args.id as string} is the start of several interactions${found.more ? ` (the first ${found.candidates.length} shown)` : ''}; give more of the id:\n${table.join('\n')}`);
      }
      // As `assistant/trace` answers a query by id.
      io.out(args.json ? `${JSON.stringify({ interactions: [withPlace(found.interaction)], total: 1 }, null, 2)}\n` : interactionDetail(found.interaction, root));
      return 0;
    }

    let result: TraceResult;
    if (args.file) {
      let file = path.resolve(io.cwd, args.file.path);
      if (!fs.existsSync(file) && fs.existsSync(path.resolve(root, args.file.path))) file = path.resolve(root, args.file.path);
      const found = await reader.at(file, args.file.line, args.params);
      if (found === undefined) return fail(`cannot read ${args.file.path}`);
      result = found;
    } else {
      result = reader.query(args.params);
    }
    if (args.json) {
      io.out(`${JSON.stringify({ ...result, interactions: result.interactions.map(withPlace) }, null, 2)}\n`);
      return 0;
    }
    if (result.total === 0) {
      io.out(`No interactions match (${reader.size} recorded in ${location.directory}).\n`);
      return 0;
    }
    if (result.interactions.length === 0) {
      io.out(`No interactions on this page: ${result.total} match, --offset ${Math.max(0, result.total - (args.params.limit ?? DEFAULT_PAGE))} shows the last ones.\n`);
      return 0;
    }
    const table = interactionTable(result.interactions, root, io.columns);
    io.out(`${table.join('\n')}\n${pageFooter(result, args.params.offset ?? 0)}\n`);
    return 0;
  } catch (error) {
    // The parameters were checked above; a query that still refuses one is a usage mistake all the same.
    if (error instanceof TypeError && error.message.startsWith('trace query:')) {
      io.err(`assistant-ls trace: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await reader.close();
  }
}
