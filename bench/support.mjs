// Shared helpers of the benchmarks: timing, percentiles, peak memory of process trees, child sections, positions in a file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance, monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(BENCH_DIR, '..');

/** Milliseconds since an arbitrary origin, sub-millisecond. */
export const now = () => performance.now();

const round = (value) => (value === null || value === undefined ? null : Math.round(value * 100) / 100);

/** The q-quantile (0..1) of sorted samples, nearest-rank. */
function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export const log = (message) => process.stderr.write(`[bench] ${message}\n`);

/** Runs one measurement, keeping its failure as `{ error }` so one broken measurement does not lose the others. */
export async function attempt(name, fn) {
  const start = now();
  try {
    const result = await fn();
    log(`${name}: ${Math.round(now() - start)} ms`);
    return result;
  } catch (error) {
    log(`${name} failed: ${error?.stack ?? error}`);
    return { error: String(error?.message ?? error) };
  }
}

/** Folders the measured servers wrote to (traces, caches), removed by `removeScratchDirectories` when a run or section ends. */
const scratchDirectories = [];
function scratchDirectory(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirectories.push(dir);
  return dir;
}
export function removeScratchDirectories() {
  for (const dir of scratchDirectories.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
const traceDirectory = () => scratchDirectory('assistant-ls-bench-trace-');
/**
 * A cache folder of its own for each server (`XDG_CACHE_HOME`): none finds an index saved by an earlier one, as in a
 * first session on the project, unless it is given the same folder; the user's cache is left alone.
 */
export const cacheHome = () => ({ XDG_CACHE_HOME: scratchDirectory('assistant-ls-bench-cache-') });

/** initializationOptions per server: ours writes its trace outside the project; typescript-language-server keeps its defaults. */
export function initOptions(server, extra = {}) {
  if (server !== 'assistant-ls') return undefined;
  return { assistant: { trace: { directory: traceDirectory() }, ...extra } };
}

/** n, median, p99, min, max and mean of samples in milliseconds (p99 of fewer than 100 samples is close to the max). */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    median: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
    p99: round(quantile(sorted, 0.99)),
    min: round(sorted[0] ?? null),
    max: round(sorted.at(-1) ?? null),
    mean: round(sorted.length ? sum / sorted.length : null),
  };
}

/** Runs `fn` `runs` times (awaiting each), returning the summary of the durations and the last result. */
export async function timeRuns(runs, fn) {
  const samples = [];
  let last;
  for (let i = 0; i < runs; i++) {
    const start = now();
    last = await fn(i);
    samples.push(now() - start);
  }
  return { stats: summarize(samples), last };
}

/** Starts an event-loop delay monitor; `stop()` gives the longest stall seen, in milliseconds. */
export function stallMonitor() {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  return {
    async stop() {
      // A block that ends just before stop() is recorded only when the monitor's timer gets to run once more.
      await new Promise((resolve) => setTimeout(resolve, 5));
      histogram.disable();
      // The histogram records the delay past the 1 ms timer; its max is the longest the loop was blocked.
      return { maxStallMs: round(histogram.max / 1e6), p99DelayMs: round(histogram.percentile(99) / 1e6) };
    },
  };
}

function procStatus(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
}

function statusField(status, name) {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status ?? '');
  return match ? Number(match[1]) : undefined;
}

/** This process's peak resident set size in MiB (VmHWM). */
export function ownPeakRssMB() {
  const kb = statusField(procStatus('self'), 'VmHWM');
  return kb === undefined ? round(process.memoryUsage().rss / 1048576) : round(kb / 1024);
}

/** The process and its descendants (from /proc's parent links). */
export function processTree(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const match = /^PPid:\s+(\d+)$/m.exec(procStatus(entry) ?? '');
    if (!match) continue;
    const ppid = Number(match[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const next = stack.pop();
    out.push(next);
    stack.push(...(children.get(next) ?? []));
  }
  return out;
}

/**
 * Peak RSS of a process tree in MiB: the sum of each live process's VmHWM (an upper bound of the tree's peak,
 * since the processes need not peak together). Read it before the processes exit.
 */
export function treePeakRssMB(pid) {
  let kb = 0;
  const processes = [];
  for (const member of processTree(pid)) {
    const hwm = statusField(procStatus(member), 'VmHWM');
    if (hwm === undefined) continue;
    kb += hwm;
    processes.push(member);
  }
  return { peakRssMB: round(kb / 1024), processes: processes.length };
}

/** CPU time (user + system) of a process tree in milliseconds, from /proc/<pid>/stat. */
export function treeCpuMs(pid) {
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux.
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${member}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks / ticksPerMs;
}

/**
 * CPU time of a process's main thread in milliseconds (`/proc/<pid>/task/<pid>/schedstat`, nanoseconds on the CPU),
 * or undefined where there is no such file (not Linux, or the process is gone).
 */
export function mainThreadCpuMs(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** Waits until a process tree has used under 5% of a core for `quietMs`, or `maxMs` passed; returns the wait in ms. */
export async function waitUntilIdle(pid, { quietMs = 600, maxMs = 60_000 } = {}) {
  const start = now();
  let previous = treeCpuMs(pid);
  let quietSince = now();
  while (now() - start < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cpu = treeCpuMs(pid);
    const busy = cpu - previous > 200 * 0.05;
    previous = cpu;
    if (busy) quietSince = now();
    else if (now() - quietSince >= quietMs) break;
  }
  return round(now() - start);
}

/**
 * Runs `bench/sections/<name>.mjs` in its own Node process (so its peak memory is its own) and returns the JSON
 * it prints as its last line of stdout.
 */
export function runSection(name, args, { timeoutMs = 30 * 60_000, nodeOptions = [] } = {}) {
  const script = path.join(BENCH_DIR, 'sections', `${name}.mjs`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeOptions, script, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) {
        reject(new Error(`section ${name} exited with ${code ?? signal}: ${stderr.trim().split('\n').slice(-8).join('\n')}`));
        return;
      }
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`section ${name} printed no JSON: ${last.slice(0, 200)} ${stderr.slice(-500)}`));
      }
    });
  });
}

/** For a section script: its arguments (one JSON argument) and a way to print its result with its peak memory. */
export function sectionMain(main) {
  const args = JSON.parse(process.argv[2] ?? '{}');
  main(args).then(
    (result) => {
      process.stdout.write(`\n${JSON.stringify({ ...result, peakRssMB: ownPeakRssMB() })}\n`);
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`${error?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}

/** Directories never searched for source files. */
const SKIP = new Set(['node_modules', 'dist', 'build', 'out', 'coverage', 'fixtures', 'examples']);

/** The TypeScript source file with the most lines under `root` whose text `accept` takes (skipping dependencies, output and dot-folders). */
export function largestSourceFile(root, accept = () => true) {
  let best;
  const stack = [root];
  let visited = 0;
  while (stack.length && visited < 20_000) {
    const dir = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      visited++;
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) stack.push(full);
      } else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const text = fs.readFileSync(full, 'utf8');
        const lines = text.split('\n').length;
        if ((!best || lines > best.lines) && accept(text, full)) best = { path: full, lines };
      }
    }
  }
  return best;
}

/** Lines of TypeScript/JavaScript source under `root`, with the same skips as `largestSourceFile`. */
export function countSourceLines(root) {
  let lines = 0;
  let files = 0;
  const stack = [root];
  while (stack.length && files < 20_000) {
    const dir = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) stack.push(full);
      } else if (/\.([cm]?[jt]sx?)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files++;
        lines += fs.readFileSync(full, 'utf8').split('\n').length;
      }
    }
  }
  return { files, lines };
}

/** `count` positions spread evenly over the file's non-blank lines, each at the line's first non-blank character. */
export function spreadPositions(text, count) {
  const lines = text.split('\n');
  const candidates = [];
  lines.forEach((line, index) => {
    const character = line.search(/\S/);
    if (character >= 0) candidates.push({ line: index, character });
  });
  if (candidates.length <= count) return candidates;
  const out = [];
  for (let i = 0; i < count; i++) out.push(candidates[Math.floor((i * candidates.length) / count)]);
  return out;
}

/** The position (0-based) of every match of `pattern` (global) in `text`, at the match's first character plus `delta`. */
export function positionsOf(text, pattern, delta = 0) {
  const out = [];
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  for (const match of text.matchAll(pattern)) {
    const offset = match.index + delta;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    out.push({ line: lo, character: offset - starts[lo] });
  }
  return out;
}

/** The fixed workload `machineSpeed` times: a file that ships with the pinned TypeScript, so it is the same in every run. */
const SPEED_WORKLOAD = path.join(REPO_ROOT, 'node_modules', 'typescript', 'lib', 'lib.es5.d.ts');

/**
 * How fast this machine is right now: the median time to parse SPEED_WORKLOAD, one thread, after warm-ups. A shared
 * or throttled machine can be half as fast from one minute to the next; figures of two runs compare only at like speeds.
 */
export async function machineSpeed() {
  const { ts } = await import('ts-morph');
  const text = fs.readFileSync(SPEED_WORKLOAD, 'utf8');
  const parse = () => ts.createSourceFile('lib.es5.d.ts', text, ts.ScriptTarget.Latest, true);
  for (let i = 0; i < 10; i++) parse();
  const samples = [];
  for (let i = 0; i < 15; i++) {
    const start = now();
    parse();
    samples.push(now() - start);
  }
  return summarize(samples).median;
}
