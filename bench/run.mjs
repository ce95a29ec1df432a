// `npm run bench`: measures the server (over --stdio) and its core against typescript-language-server, writes JSON and prints a table.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchClient } from './lspClient.mjs';
import { TEST_MODEL, modelsFolder } from '../scripts/fetchModel.mjs';
import { startFakeModel } from './fakeModel.mjs';
import { generateTemporaryProject } from './synthetic.mjs';
import { REPO_ROOT, attempt, cacheHome, countSourceLines, initOptions, largestSourceFile, machineSpeed, log, mainThreadCpuMs, now, positionsOf, removeScratchDirectories, runSection, spreadPositions, summarize, waitUntilIdle } from './support.mjs';

const USAGE = `usage: npm run bench -- [options]
  --quick                  smaller sizes and fewer runs (a smoke run of a minute or two)
  --project <path>         a project to measure (repeatable); "repo" is this repository, "synthetic" the generated one
                           (default: repo and synthetic)
  --first-file <path>      the file the first-response rows open in the --project given before it, relative to it
                           (default: the project's largest file; a project without that file skips the rows)
  --synthetic-lines <n>    size of the generated project (default 100000; quick 10000)
  --big-file-lines <n>     size of its large file (default 5000; quick 1000)
  --trace-sizes <a,b,...>  trace sizes in interactions (default 1000,10000,100000; quick 1000,10000)
  --json <file>            where the results go (default bench-results.json in the current directory)
  --no-tsls                leave out typescript-language-server
  --only <a,b,...>         measure only these sections: lsp, index, tools, oracle, orchestration, first, trace, context,
                           completion, hostile, model (default: all of them but model, which runs with --model or when named here)
  --model <file.gguf>      the local model the model section runs (default: the test model npm run fetch-model
                           fetched; without one the section is skipped)`;

/** The sections `--only` can name. */
const SECTIONS = ['lsp', 'index', 'tools', 'oracle', 'orchestration', 'first', 'trace', 'context', 'completion', 'hostile', 'model'];

function parseArgs(argv) {
  const options = { quick: false, projects: [], firstFiles: [], json: path.resolve('bench-results.json'), tsls: true, only: new Set(SECTIONS.filter((s) => s !== 'model')) };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
      return next;
    };
    if (arg === '--quick') options.quick = true;
    else if (arg === '--project') options.projects.push(value());
    else if (arg === '--first-file') {
      if (options.projects.length === 0) throw new Error(`--first-file names a file of the --project given before it\n${USAGE}`);
      options.firstFiles[options.projects.length - 1] = value();
    }
    else if (arg === '--synthetic-lines') options.syntheticLines = Number(value());
    else if (arg === '--big-file-lines') options.bigFileLines = Number(value());
    else if (arg === '--trace-sizes') options.traceSizes = value().split(',').map(Number);
    else if (arg === '--json') options.json = path.resolve(value());
    else if (arg === '--no-tsls') options.tsls = false;
    else if (arg === '--model') {
      options.model = path.resolve(value());
      options.only.add('model');
    }
    else if (arg === '--only') {
      const names = value().split(',').map((n) => n.trim()).filter(Boolean);
      const unknown = names.filter((n) => !SECTIONS.includes(n));
      if (unknown.length > 0 || names.length === 0) throw new Error(`unknown section ${unknown.join(', ') || '(none)'}; sections: ${SECTIONS.join(', ')}\n${USAGE}`);
      options.only = new Set([...names, ...(options.model ? ['model'] : [])]);
    }
    else if (arg === '--help' || arg === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${arg}\n${USAGE}`);
  }
  if (options.projects.length === 0) options.projects = ['repo', 'synthetic'];
  if (!options.model && options.only.has('model')) {
    const fetched = path.join(modelsFolder(), TEST_MODEL.file);
    if (fs.existsSync(fetched)) options.model = fetched;
  }
  const q = options.quick;
  options.syntheticLines ??= q ? 10_000 : 100_000;
  options.bigFileLines ??= q ? 1_000 : 5_000;
  options.traceSizes ??= q ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  options.runs = q
    ? { startup: 2, positions: 30, rounds: 1, servers: 1, edits: 10, indexCold: 1, indexWarm: 50, oracleCold: 1, oracleWarm: 3, tasks: 5, appends: 50, queries: 30, pauses: 2, pauseWindowMs: 1_000, firstRounds: 1, model: { load: 1, document: 2 }, completions: 50 }
    : { startup: 10, positions: 250, rounds: 2, servers: 3, edits: 50, indexCold: 5, indexWarm: 500, oracleCold: 3, oracleWarm: 20, tasks: 50, appends: 500, queries: 200, pauses: 5, pauseWindowMs: 2_000, firstRounds: 3, model: { load: 3, document: 5 }, completions: 500 };
  return options;
}

/**
 * Node flags of the process that times code actions, the editor's side. A Node client compiles its own hot code and
 * collects its garbage on helper threads, at moments set by its own work; on a machine of two cores such a thread
 * takes the core the server is about to run on (in a first look, about half of the slowest requests of either
 * server). With one thread, no optimizing compiler and a young generation no run fills, the client does its own work
 * on its own thread, between and around the requests, as an editor written in C would.
 */
const QUIET_CLIENT = ['--single-threaded', '--no-opt', '--max-semi-space-size=64'];

const ratio = (ours, theirs) => (typeof ours === 'number' && typeof theirs === 'number' && theirs > 0 ? Math.round((ours / theirs) * 100) / 100 : null);

/** A JSDoc block the Document task accepts for any function: what a model answering instantly returns. */
const DOC_ANSWER = '/**\n * Computes the result from the given records and options.\n * @returns The computed result.\n */';

/** Where Document may be offered in a file: top-level functions, or else (a file of classes and types) methods, classes and interfaces, each at its name. */
function documentTargets(text, callablesOnly = false) {
  const lines = text.split('\n');
  const named = (pattern) =>
    positionsOf(text, pattern).map((p) => {
      pattern.lastIndex = 0;
      const name = pattern.exec(lines[p.line])?.[1];
      pattern.lastIndex = 0;
      return { ...p, character: name ? p.character + lines[p.line].indexOf(name) : p.character };
    });
  const functions = named(/^(?:export )?(?:async )?function (\w+)/gm);
  if (functions.length >= 10) return functions;
  const method = /^[ \t]+(?:(?:public|private|protected|static|async|override)[ \t]+)*(?!(?:if|for|while|switch|catch|return|function|constructor)\b)([A-Za-z_$][\w$]*)[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)[^;\n]*\{[ \t]*$/gm;
  if (callablesOnly) return [...functions, ...named(method)];
  return [...functions, ...named(method), ...named(/^(?:export )?(?:declare )?(?:abstract )?(?:interface|class) ([A-Za-z_$][\w$]*)/gm)];
}

/**
 * Tasks against an endpoint that answers at once: wall time of `workspace/executeCommand` (Document, with only the
 * model agent) minus the time the endpoint held the requests; and the prompt's size against the whole file's.
 */
/** Tasks after the first that are run, and reported, before the measured ones (at most a fifth of them). */
const WARMUP_TASKS = 10;

async function orchestration(project, runs) {
  const model = await startFakeModel(() => DOC_ANSWER);
  const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'bench-model', ...cacheHome() };
  const client = BenchClient.spawn('assistant-ls', project.root, env);
  let later;
  try {
    await client.initialize(initOptions('assistant-ls', { disabledAgents: ['doc-offline'] }));
    // The large file, unless it has too few functions and methods for Document (a file of types): then the largest that has.
    const taskFile = documentTargets(fs.readFileSync(project.largeFile.path, 'utf8'), true).length >= 10 ? project.largeFile : (largestSourceFile(project.root, (text) => documentTargets(text, true).length >= 10) ?? project.largeFile);
    const buffer = await client.open(taskFile.path);
    let original = buffer.text;
    let targets = documentTargets(original);
    const offered = async (list) => {
      let count = 0;
      for (const position of list.slice(0, 20)) if ((await client.codeActions(buffer.uri, position)).some((a) => a.command?.command === 'assistant.document')) count += 1;
      return count;
    };
    // A fully documented file (Document is offered only where the doc comment is missing or incomplete): its doc
    // comments are taken out of the editor's text, so the same declarations can be documented again.
    if ((await offered(targets)) < 5) {
      original = original.replace(/^[ \t]*\/\*\*[\s\S]*?\*\/[ \t]*\r?\n/gm, '');
      await client.setText(buffer.uri, original);
      targets = documentTargets(original);
    }
    if (targets.length === 0) throw new Error(`no function or method declaration in ${taskFile.path}`);
    // Where the overhead goes: the server's main thread (serverCpu), and this process (the editor's side and the endpoint).
    const tally = () => ({ wall: [], modelMs: [], overhead: [], serverCpu: [], benchCpu: [], promptTokens: [], applied: 0, skipped: 0, firstTaskMs: undefined, settleMs: undefined, warmup: [] });
    const measured = tally();
    const typed = tally();
    /**
     * Runs Document tasks until `into` has `count` measured. With `typeFirst`, each task comes right after the user
     * typed, as most do: a space typed at the start of the line above the declaration (an incremental change), the
     * light bulb's code actions there, then the task, so the server works on a text it has seen only in that request.
     */
    const runTasks = async (into, count, warmupTasks, typeFirst) => {
      for (let i = 0; into.wall.length < count && i < (count + warmupTasks) * 3; i++) {
        const position = targets[Math.floor(((i * 7) % targets.length))];
        if (typeFirst) {
          if (position.line === 0) continue;
          const line = position.line - 1;
          await client.setTextIncrementally(buffer.uri, { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: ' ' });
        }
        const actions = await client.codeActions(buffer.uri, position);
        const action = actions.find((a) => a.command?.command === 'assistant.document');
        if (!action) {
          into.skipped += 1;
          await client.restore(buffer.uri, original);
          continue;
        }
        const from = model.requests.length;
        const serverBefore = mainThreadCpuMs(client.pid);
        const benchBefore = process.cpuUsage();
        const start = now();
        const result = await client.request('workspace/executeCommand', { command: action.command.command, arguments: action.command.arguments });
        const elapsed = now() - start;
        const serverAfter = mainThreadCpuMs(client.pid);
        const benchUsed = process.cpuUsage(benchBefore);
        const requests = await model.settled(from);
        const held = requests.reduce((sum, r) => sum + ((r.finishedAt ?? r.receivedAt) - r.receivedAt), 0);
        if (into.firstTaskMs === undefined && !typeFirst) {
          into.firstTaskMs = elapsed;
          // The server's background work after the open (the first type-check of the file, seconds on a project with
          // the DOM's declarations) is let finish, as before the code-action measurements: it belongs to the open.
          await client.restore(buffer.uri, original);
          into.settleMs = await waitUntilIdle(client.pid);
          continue;
        } else if (into.warmup.length < warmupTasks) {
          into.warmup.push(elapsed - held);
        } else {
          into.wall.push(elapsed);
          into.modelMs.push(held);
          into.overhead.push(elapsed - held);
          if (serverBefore !== undefined && serverAfter !== undefined) into.serverCpu.push(serverAfter - serverBefore);
          into.benchCpu.push((benchUsed.user + benchUsed.system) / 1000);
          into.promptTokens.push(Math.ceil(requests.reduce((n, r) => n + r.promptChars, 0) / 4));
          if (result?.applied) into.applied += 1;
        }
        // The edit (and the typing) is undone as an editor undoes it: a ranged change, which the server applies in place.
        await client.restore(buffer.uri, original);
      }
    };
    // The tasks after the first run while V8 is still compiling the task path (they take up to twice as long): they
    // are reported apart, and the figures are of the tasks after them, as in a session that has run a few already.
    const warmupTasks = Math.min(WARMUP_TASKS, Math.ceil(runs / 5));
    await runTasks(measured, runs, warmupTasks, false);
    await runTasks(typed, runs, Math.min(3, warmupTasks), true);
    // The server saves its index when it shuts down; the next session's server reads it instead of the files.
    await client.shutdown();
    later = await firstTaskOfLaterSession(project, env, model, taskFile, original, targets);
    const { wall, modelMs, overhead, serverCpu, benchCpu, promptTokens, applied, skipped, firstTaskMs, settleMs, warmup } = measured;
    const tokens = summarize(promptTokens);
    const wholeFileTokens = Math.ceil(original.length / 4);
    return {
      task: 'document',
      file: path.relative(project.root, taskFile.path),
      fileLines: taskFile.lines,
      tasks: wall.length,
      applied,
      skipped,
      firstTaskMs: firstTaskMs === undefined ? null : Math.round(firstTaskMs * 100) / 100,
      laterSessionFirstTaskMs: later === undefined ? null : Math.round(later * 100) / 100,
      settleMs: settleMs ?? null,
      warmupTasks: warmup.length,
      warmupOverhead: summarize(warmup),
      wall: summarize(wall),
      modelTime: summarize(modelMs),
      overhead: summarize(overhead),
      serverMainThreadCpu: serverCpu.length > 0 ? summarize(serverCpu) : null,
      benchProcessCpu: summarize(benchCpu),
      promptTokens: tokens,
      wholeFileTokens,
      promptToWholeFile: ratio(tokens.median, wholeFileTokens),
      afterTyping: {
        tasks: typed.wall.length,
        skipped: typed.skipped,
        warmupTasks: typed.warmup.length,
        overhead: summarize(typed.overhead),
        serverMainThreadCpu: typed.serverCpu.length > 0 ? summarize(typed.serverCpu) : null,
        benchProcessCpu: summarize(typed.benchCpu),
      },
      modelRequests: model.requests.length,
      ...client.peakMemory(),
    };
  } finally {
    await client.shutdown();
    await model.close();
  }
}

/**
 * The first task of a later session: a new server on the project, given the cache folder of the one before, whose
 * index that one saved when it shut down. Wall time of the task, as `firstTaskMs`.
 */
async function firstTaskOfLaterSession(project, env, model, taskFile, original, targets) {
  const client = BenchClient.spawn('assistant-ls', project.root, env);
  try {
    await client.initialize(initOptions('assistant-ls', { disabledAgents: ['doc-offline'] }));
    const buffer = await client.open(taskFile.path);
    if (buffer.text !== original) await client.setText(buffer.uri, original);
    for (const position of targets.slice(0, 20)) {
      const action = (await client.codeActions(buffer.uri, position)).find((a) => a.command?.command === 'assistant.document');
      if (!action) continue;
      const from = model.requests.length;
      const start = now();
      await client.request('workspace/executeCommand', { command: action.command.command, arguments: action.command.arguments });
      const elapsed = now() - start;
      await model.settled(from);
      return elapsed;
    }
    return undefined;
  } finally {
    await client.shutdown();
  }
}

/**
 * Targets of the first-response rows (issue 33), each a ratio of our median to typescript-language-server's first
 * code-action list after opening the same file: the first offline Document task, the first workspace question.
 */
const FIRST_TARGETS = { documentTask: 0.15, question: 0.3 };

/** The declarations of `targets` without a doc comment first, so that the first is one Document is offered on. */
function undocumentedFirst(text, targets) {
  const lines = text.split('\n');
  const documented = ({ line }) => {
    let above = line - 1;
    while (above >= 0 && (lines[above].trim() === '' || lines[above].trim().startsWith('@'))) above--;
    return above >= 0 && lines[above].trim().endsWith('*/');
  };
  return [...targets.filter((t) => !documented(t)), ...targets.filter(documented)];
}

/**
 * The project's largest file when the workspace lists it, else the largest it lists: a question about a file the
 * server never reads (named like a secrets file, ignored) has, by design, no answer to time.
 */
async function listedLargeFile(project) {
  const { WorkspaceFiles } = await import('../dist/server/src/workspace/workspaceFiles.js');
  const files = new WorkspaceFiles(project.root);
  if (files.unlisted(project.largeFile.path) === undefined) return project.largeFile.path;
  return largestSourceFile(project.root, (_text, full) => files.unlisted(full) === undefined)?.path ?? project.largeFile.path;
}

/**
 * What a fresh session answers first, on `file` (relative to the project; the project's large file when not given):
 * the offline Document task right after opening it, and a workspace question on a cold index, asking where one of
 * its declarations is implemented; each against typescript-language-server's first code action on that file, all in
 * `bench/sections/first.mjs`, taking turns. A project without the file, or without a declaration in it, is skipped
 * with a note.
 */
async function firstResponses(project, file, options) {
  const full = file === undefined ? await listedLargeFile(project) : path.resolve(project.root, file);
  const shown = path.relative(project.root, full);
  if (!fs.existsSync(full)) return { file: shown, skipped: `no ${shown} in ${project.root}` };
  const text = fs.readFileSync(full, 'utf8');
  const targets = undocumentedFirst(text, documentTargets(text, true)).slice(0, 20);
  if (targets.length === 0) return { file: shown, skipped: `no function or method in ${shown} to document` };
  // The question names an exported declaration when there is one: what others in the workspace would ask about.
  const lines = text.split('\n');
  const asked = targets.find((t) => /^\s*export\b/.test(lines[t.line])) ?? targets[0];
  const question = `where is ${/^[A-Za-z_$][\w$]*/.exec(lines[asked.line].slice(asked.character))?.[0]} implemented?`;
  const args = { project: { root: project.root, file: full, targets, question }, rounds: options.runs.firstRounds, tsls: options.tsls };
  const result = await runSection('first', args, { nodeOptions: QUIET_CLIENT });
  const theirs = result.tslsFirstCodeAction?.median;
  return {
    file: shown,
    fileLines: text.split('\n').length,
    ...result,
    ratios: { note: 'our median / typescript-language-server\'s first code action, median', documentTask: ratio(result.documentTask.total.median, theirs), question: ratio(result.question.ask.median, theirs) },
    targets: FIRST_TARGETS,
  };
}

/** Repository tools the issue names, measured warm (p50, p99) and on their first call. */
const REPOSITORY_TOOLS = ['search_class', 'search_method', 'search_code', 'get_class_info', 'get_signature', 'get_method_body', 'get_imports', 'get_relevant_code'];

function describeProject(spec, options) {
  if (spec === 'synthetic') {
    log(`generating a synthetic project of ${options.syntheticLines} lines`);
    const generated = generateTemporaryProject({ lines: options.syntheticLines, bigFileLines: options.bigFileLines });
    return { name: 'synthetic', root: generated.root, temporary: true, largeFile: path.join(generated.root, generated.bigFile) };
  }
  const root = spec === 'repo' ? REPO_ROOT : path.resolve(spec);
  if (!fs.existsSync(root)) throw new Error(`no project at ${root}`);
  return { name: spec === 'repo' ? 'repo' : path.basename(root), root, temporary: false };
}

/**
 * The code actions at the positions on `runs.servers` fresh servers of each kind, the kinds taking turns, their samples
 * pooled: a server's slowest requests come while V8 compiles its request path, over its first requests, so one
 * server's p99 (its fifth slowest of 500) moves from run to run; taking turns, both kinds meet the same moments of the
 * machine. `perServerP99` keeps each server's own.
 */
async function pooledPositions(project, servers, positions, runs, lsp) {
  const args = (server) => ({ server, project: { root: project.root, largeFile: project.largeFile, firstPosition: project.firstPosition }, positions, runs, only: 'positions' });
  const pooled = new Map(servers.map((server) => [server, [lsp[server].positions]]));
  for (let k = 1; k < runs.servers; k++) {
    for (const server of servers) {
      const result = await attempt(`${project.name} ${server} code actions, server ${k + 1}`, () => runSection('lsp', args(server), { nodeOptions: QUIET_CLIENT }));
      pooled.get(server).push(result.positions ?? { error: result.error });
    }
  }
  for (const [server, parts] of pooled) {
    const measured = parts.filter((part) => Array.isArray(part.samples));
    if (measured.length === 0) continue;
    const first = measured[0];
    const samples = measured.flatMap((part) => part.samples);
    lsp[server].positions = {
      ...first,
      codeAction: summarize(samples),
      servers: measured.length,
      perServerP99: measured.map((part) => part.codeAction.p99),
      settleMs: measured.map((part) => part.settleMs),
      peakRssMB: Math.max(...measured.map((part) => part.peakRssMB)),
      ...(measured.length < parts.length ? { failedServers: parts.length - measured.length } : {}),
      samples: undefined,
    };
  }
}

async function measureProject(spec, options, firstFile) {
  // The machine's speed around each project, since it can change within a run: its figures compare at like speeds.
  const speedBefore = await machineSpeed();
  const project = describeProject(spec, options);
  const size = countSourceLines(project.root);
  const large = project.largeFile ? { path: project.largeFile, lines: fs.readFileSync(project.largeFile, 'utf8').split('\n').length } : largestSourceFile(project.root);
  if (!large) throw new Error(`no TypeScript file in ${project.root}`);
  const text = fs.readFileSync(large.path, 'utf8');
  const functions = positionsOf(text, /function (\w+)/g, 'function '.length);
  project.largeFile = large;
  project.firstPosition = functions[Math.floor(functions.length / 2)] ?? spreadPositions(text, 1)[0];
  const positions = spreadPositions(text, options.runs.positions);
  log(`project ${project.name}: ${size.lines} lines in ${size.files} files; large file ${path.relative(project.root, large.path)} (${large.lines} lines)`);
  const servers = !options.only.has('lsp') ? [] : options.tsls ? ['assistant-ls', 'typescript-language-server'] : ['assistant-ls'];
  const lsp = {};
  for (const server of servers) {
    const args = { server, project: { root: project.root, largeFile: project.largeFile, firstPosition: project.firstPosition }, positions, runs: options.runs };
    const result = await attempt(`${project.name} ${server} code actions`, () => runSection('lsp', args, { nodeOptions: QUIET_CLIENT }));
    const part = (name) => {
      const measured = result[name] ?? { error: result.error };
      if (measured.error && !result.error) log(`${project.name} ${server} ${name} failed: ${measured.error}`);
      return measured;
    };
    lsp[server] = { startup: part('startup'), positions: part('positions'), afterEdits: part('afterEdits'), duringPauses: part('duringPauses') };
  }
  await pooledPositions(project, servers, positions, options.runs, lsp);
  if (servers.length === 2) {
    const ours = lsp['assistant-ls'];
    const theirs = lsp['typescript-language-server'];
    lsp.ratios = {
      note: 'ours / theirs; below 1 means assistant-ls is faster or smaller',
      initializeMedian: ratio(ours.startup.initialize?.median, theirs.startup.initialize?.median),
      firstCodeActionMedian: ratio(ours.startup.firstCodeAction?.median, theirs.startup.firstCodeAction?.median),
      codeActionMedian: ratio(ours.positions.codeAction?.median, theirs.positions.codeAction?.median),
      codeActionP95: ratio(ours.positions.codeAction?.p95, theirs.positions.codeAction?.p95),
      codeActionP99: ratio(ours.positions.codeAction?.p99, theirs.positions.codeAction?.p99),
      codeActionAfterEditMedian: ratio(ours.afterEdits?.codeAction?.median, theirs.afterEdits?.codeAction?.median),
      codeActionAfterEditP99: ratio(ours.afterEdits?.codeAction?.p99, theirs.afterEdits?.codeAction?.p99),
      codeActionDuringPausesP99: ratio(ours.duringPauses?.codeAction?.p99, theirs.duringPauses?.codeAction?.p99),
      peakRss: ratio(ours.positions.peakRssMB, theirs.positions.peakRssMB),
    };
  }
  const section = { root: project.root, bigFile: large.path };
  const measure = (id, name, fn) => (options.only.has(id) ? attempt(`${project.name} ${name}`, fn) : undefined);
  const retrievalIndex = await measure('index', 'retrieval index', () => runSection('index', { ...section, coldRuns: options.runs.indexCold, warmRuns: options.runs.indexWarm }));
  const tools = await measure('tools', 'repository tools', () => runSection('tools', { ...section, coldRuns: options.runs.indexCold, warmRuns: options.runs.indexWarm }));
  const oracle = await measure('oracle', 'type-check oracle', () => runSection('oracle', { ...section, coldRuns: options.runs.oracleCold, warmRuns: options.runs.oracleWarm }));
  const orchestrationResult = await measure('orchestration', 'orchestration', () => orchestration(project, options.runs.tasks));
  const first = await measure('first', 'first responses', () => firstResponses(project, firstFile, options));
  // One project is enough for the model: its figures are the model's, and its generation takes minutes.
  const localModel = options.model && !options.modelMeasured ? await measure('model', 'local model', () => ((options.modelMeasured = true), runSection('model', { ...section, modelPath: options.model, threads: 1, runs: options.runs.model, codeActionRuns: options.runs.positions }))) : undefined;
  if (project.temporary) fs.rmSync(project.root, { recursive: true, force: true });
  return {
    name: project.name,
    machineSpeed: { before: speedBefore, after: await machineSpeed() },
    root: project.temporary ? `(generated, ${options.syntheticLines} lines, removed after the run)` : project.root,
    files: size.files,
    lines: size.lines,
    largeFile: { path: project.temporary ? path.relative(project.root, large.path) : large.path, lines: large.lines },
    lsp,
    repositoryTools: { ...(tools ?? {}), ...(retrievalIndex ? { retrievalIndex } : {}) },
    oracle,
    orchestration: orchestrationResult,
    firstResponses: first,
    ...(localModel ? { localModel } : {}),
  };
}

/** Each target of the issue, judged on the figures measured; a missing figure is "n/a", never a pass. */
function judge(results) {
  const rows = [];
  const add = (target, project, value, pass, unit = 'ms', note = undefined) => rows.push({ target, project, value: value ?? null, unit, pass: value === null || value === undefined ? 'n/a' : pass ? 'pass' : 'FAIL', ...(note ? { note } : {}) });
  for (const p of results.projects) {
    const ours = p.lsp['assistant-ls'];
    const theirs = p.lsp['typescript-language-server'];
    const cap = ours?.positions?.codeAction?.p99;
    add(`code-action list p99 < 20 ms (${p.largeFile.lines}-line file)`, p.name, cap, cap < 20);
    if (theirs) add('code-action p99 ≤ half of typescript-language-server', p.name, p.lsp.ratios?.codeActionP99, p.lsp.ratios?.codeActionP99 <= 0.5, '×');
    const init = ours?.startup?.initialize?.median;
    add('initialize < 300 ms (median round trip)', p.name, init, init < 300);
    const fromSpawn = ours?.startup?.spawnToInitialized?.median;
    add('initialize < 300 ms (median, from spawn)', p.name, fromSpawn, fromSpawn < 300);
    for (const tool of REPOSITORY_TOOLS) {
      const median = p.repositoryTools[tool]?.warm?.median;
      add(`${tool} p50 < 20 ms`, p.name, median, median < 20);
    }
    const query = p.repositoryTools.retrievalIndex?.query?.median;
    add('retrieval index query p50 < 20 ms (the tools\' target)', p.name, query, query < 20);
    const overhead = p.orchestration?.overhead?.median;
    add('orchestration overhead < 10 ms per task (median)', p.name, overhead, overhead < 10);
    const typed = p.orchestration?.afterTyping?.overhead?.median;
    add('orchestration overhead < 10 ms per task right after typing (median)', p.name, typed, typed < 10);
    const idleP99 = p.localModel?.codeActionIdle?.p99;
    const generatingP99 = p.localModel?.codeActionWhileGenerating?.p99;
    if (p.localModel) add('code-action list p99 < 20 ms while a local model generates', p.name, generatingP99, generatingP99 < 20, 'ms', idleP99 !== undefined ? `idle p99 ${idleP99} ms` : undefined);
    const first = p.firstResponses;
    if (first) {
      const on = first.fileLines ? ` (${first.file}, ${first.fileLines} lines)` : '';
      const why = first.skipped ?? first.error;
      const documentTask = first.ratios?.documentTask;
      add(`first offline Document task after opening a file ≤ ${FIRST_TARGETS.documentTask}× typescript-language-server's first code action${on}`, p.name, documentTask, documentTask <= FIRST_TARGETS.documentTask, '×', why);
      const question = first.ratios?.question;
      add(`first workspace question, cold index ≤ ${FIRST_TARGETS.question}× typescript-language-server's first code action${on}`, p.name, question, question <= FIRST_TARGETS.question, '×', why);
    }
  }
  const hostile = results.hostile;
  if (hostile) {
    add('1 MB request of any degenerate shape answered < 1 s (slowest)', 'hostile', hostile.askMegabyteSlowestMs, hostile.askMegabyteSlowestMs < 1_000);
    add('code action sent behind a 1 MB request answered < 1 s (p99)', 'hostile', hostile.codeActionBehindMegabyte?.p99, hostile.codeActionBehindMegabyte?.p99 < 1_000);
    const storm = hostile.storm;
    add(`resident memory after a storm of ${storm?.requests} × 10 MB requests (half cancelled) ≤ 400 MB`, 'hostile', storm?.rssAfterMB, storm?.rssAfterMB <= 400, 'MB');
  }
  const largest = results.trace.filter((t) => !t.error).sort((a, b) => b.size - a.size)[0];
  if (largest) {
    const label = `${largest.size.toLocaleString('en')} interactions`;
    add(`trace query by task p99 < 10 ms (${label})`, 'trace', largest.queryByTask?.p99, largest.queryByTask?.p99 < 10);
    add(`trace query by position p99 < 10 ms (${label})`, 'trace', largest.queryByPosition?.p99, largest.queryByPosition?.p99 < 10);
    add(`no append stall > 20 ms (${label})`, 'trace', largest.appendMaxStallMs, largest.appendMaxStallMs <= 20);
  }
  const c = results.context;
  if (c && !c.error) {
    add('request context, same request again (median) < 50 ms', 'context', c.repeated?.median, c.repeated?.median < 50);
    add('request context, another target (median) < 100 ms', 'context', c.newTarget?.median, c.newTarget?.median < 100);
    add('request context after an unsaved edit (median) < 200 ms', 'context', c.afterEdit?.median, c.afterEdit?.median < 200);
    add('intent classification (median) < 1 ms', 'context', c.classify?.median, c.classify?.median < 1);
  }
  const k = results.completion;
  if (k && !k.error) {
    add(`inline completion, server's own time (p99, ${k.fileLines} lines, instant model) ≤ 5 ms`, 'completion', k.ownTime?.p99, k.ownTime?.p99 <= 5);
    add('inline completion requests left open while typing at 10 cps = 0', 'completion', k.typingOther.leftOpen + k.typingThrough.leftOpen, k.typingOther.leftOpen + k.typingThrough.leftOpen === 0, '');
  }
  return rows;
}

const fmt = (value) => (value === null || value === undefined ? '—' : typeof value === 'number' ? (value >= 100 ? String(Math.round(value)) : String(value)) : String(value));

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The short table: one row per measure (median / p99 / peak memory), then the targets. */
export function render(results) {
  const rows = [];
  const stat = (name, project, s, memory) => rows.push([name, project, fmt(s?.median), fmt(s?.p99), fmt(s?.n), fmt(memory)]);
  for (const p of results.projects) {
    for (const server of ['assistant-ls', 'typescript-language-server']) {
      const r = p.lsp[server];
      if (!r) continue;
      stat(`${server}: initialize round trip`, p.name, r.startup?.initialize, r.startup?.peakRssMB);
      stat(`${server}: spawn to initialized`, p.name, r.startup?.spawnToInitialized);
      stat(`${server}: first code actions, ${p.largeFile.lines}-line file`, p.name, r.startup?.firstCodeAction);
      stat(`${server}: code actions at ${r.positions?.positions ?? '?'} positions`, p.name, r.positions?.codeAction, r.positions?.peakRssMB);
      stat(`${server}: code actions right after typing a character`, p.name, r.afterEdits?.codeAction);
      stat(`${server}: code actions during pauses in typing (longest ${r.duringPauses?.worstPerRound?.map(fmt).join(', ') ?? '—'})`, p.name, r.duringPauses?.codeAction, r.duringPauses?.peakRssMB);
    }
    if (p.lsp.ratios) rows.push(['ratio ours/theirs: code actions p50 · p99 · memory', p.name, fmt(p.lsp.ratios.codeActionMedian), fmt(p.lsp.ratios.codeActionP99), '', fmt(p.lsp.ratios.peakRss)]);
    if (p.lsp.ratios) rows.push(['ratio ours/theirs: code actions p95', p.name, '', fmt(p.lsp.ratios.codeActionP95), '', '']);
    if (p.lsp.ratios) rows.push(['ratio ours/theirs: code actions after typing p50 · p99', p.name, fmt(p.lsp.ratios.codeActionAfterEditMedian), fmt(p.lsp.ratios.codeActionAfterEditP99), '', '']);
    if (p.lsp.ratios) rows.push(['ratio ours/theirs: code actions during pauses p99', p.name, '', fmt(p.lsp.ratios.codeActionDuringPausesP99), '', '']);
    const index = p.repositoryTools.retrievalIndex;
    stat('retrieval index build (cold)', p.name, index?.build, index?.peakRssMB);
    stat(`retrieval index build from its saved index (${fmt(index?.fromSaved?.savedBytes / 1e6)} MB, written in ${fmt(index?.fromSaved?.saveMs)} ms)`, p.name, index?.fromSaved?.build);
    stat('retrieval index query (warm)', p.name, index?.query);
    stat('repository tools: index build (cold)', p.name, p.repositoryTools.build, p.repositoryTools.peakRssMB);
    for (const tool of REPOSITORY_TOOLS) stat(`repository tool ${tool} (warm; first call ${fmt(p.repositoryTools[tool]?.cold)} ms)`, p.name, p.repositoryTools[tool]?.warm);
    stat('type-check oracle, edited large file (cold)', p.name, p.oracle?.cold, p.oracle?.peakRssMB);
    stat('type-check oracle, edited large file (warm)', p.name, p.oracle?.warm);
    const o = p.orchestration;
    stat('task wall time (instant model)', p.name, o?.wall, o?.peakRssMB);
    stat(`orchestration overhead per task (first ${fmt(o?.firstTaskMs)} ms, in a later session ${fmt(o?.laterSessionFirstTaskMs)} ms; warm-up median ${fmt(o?.warmupOverhead?.median)} ms)`, p.name, o?.overhead);
    stat('  of which CPU of the server\'s main thread', p.name, o?.serverMainThreadCpu);
    stat('  CPU of the bench process (editor side and endpoint)', p.name, o?.benchProcessCpu);
    stat('orchestration overhead per task right after typing', p.name, o?.afterTyping?.overhead);
    stat('  of which CPU of the server\'s main thread', p.name, o?.afterTyping?.serverMainThreadCpu);
    rows.push(['prompt tokens per task / whole file', p.name, `${fmt(o?.promptTokens?.median)} / ${fmt(o?.wholeFileTokens)}`, `×${fmt(o?.promptToWholeFile)}`, fmt(o?.tasks), '']);
    const f = p.firstResponses;
    if (f?.documentTask) {
      stat(`typescript-language-server: first code actions after opening ${f.file} (${f.fileLines} lines)`, p.name, f.tslsFirstCodeAction);
      stat(`first offline Document task after opening it, list and task (the task alone ${fmt(f.documentTask.task.median)})`, p.name, f.documentTask.total);
      stat(`first workspace question, cold index ("${f.question.text}")`, p.name, f.question.ask);
      rows.push(['ratio to tsls\'s first code action: first Document task · first question', p.name, `${fmt(f.ratios.documentTask)} · ${fmt(f.ratios.question)}`, '', '', '']);
    } else if (f) rows.push([`first responses: ${f.skipped ?? f.error}`, p.name, '', '', '', '']);
    const m = p.localModel;
    if (m?.error) rows.push([`local model: ${m.error}`, p.name, '', '', '', '']);
    else if (m) {
      stat(`local model ${m.model} (${m.threads} thread${m.threads === 1 ? '' : 's'}): load`, p.name, m.load, m.peakRssMB);
      stat(`  Document prompt (${fmt(m.documentPromptTokens?.median)} tokens): time to first token`, p.name, m.documentFirstToken);
      rows.push(['  Document answer: tokens per second', p.name, fmt(m.documentTokensPerSecond?.median), fmt(m.documentTokensPerSecond?.min), fmt(m.documentTokensPerSecond?.n), '']);
      stat('  code actions, model idle', p.name, m.codeActionIdle);
      stat(`  code actions while it generates Document answers (${fmt(m.generatingMs)} ms)`, p.name, m.codeActionWhileGenerating);
    }
  }
  for (const t of results.trace) {
    if (t.error) {
      rows.push([`trace: ${t.size}`, 'trace', t.error, '', '', '']);
      continue;
    }
    const label = `trace ${t.size.toLocaleString('en')}`;
    stat(`${label}: append`, 'trace', t.append, t.peakRssMB);
    rows.push([`${label}: longest event-loop stall in appends`, 'trace', fmt(t.appendMaxStallMs), '', fmt(t.append?.n), '']);
    stat(`${label}: query by task`, 'trace', t.queryByTask);
    stat(`${label}: query by position`, 'trace', t.queryByPosition);
  }
  const c = results.context;
  if (c?.error) rows.push(['request context', 'context', c.error, '', '', '']);
  else if (c) {
    stat('request context, same request again (test/fixtures/context)', 'context', c.repeated, c.peakRssMB);
    stat('request context, another target', 'context', c.newTarget);
    stat('request context after an unsaved edit', 'context', c.afterEdit);
    stat('intent classification of one request', 'context', c.classify);
  }
  const k = results.completion;
  if (k?.error) rows.push(['inline completion', 'completion', k.error, '', '', '']);
  else if (k) {
    stat(`inline completion, server's own time (request to model call, last token to answer, inside the server; ${k.fileLines} lines)`, 'completion', k.ownTime, k.peakRssMB);
    stat('inline completion, round trip minus the model (both pipes and the HTTP exchange too)', 'completion', k.roundTripMinusModel);
    for (const [label, t] of [['typing other text', k.typingOther], ['typing through suggestions', k.typingThrough]]) {
      rows.push([`inline completion at 10 cps, ${label}: share reaching the model · left open`, 'completion', `${fmt(t.share)} · ${fmt(t.leftOpen)}`, '', fmt(t.requests), '']);
    }
  }
  const measures = table(['measure (ms)', 'project', 'median', 'p99', 'n', 'peak MB'], rows);
  const targets = table(['target', 'project', 'measured', 'result'], results.targets.map((t) => [t.target, t.project, t.value === null ? (t.note ? `— (${t.note})` : '—') : `${fmt(t.value)} ${t.unit}`, t.pass]));
  const speed = results.meta.machineSpeed;
  const byProject = results.projects.filter((p) => p.machineSpeed).map((p) => `${p.name} ${fmt(p.machineSpeed.before)} → ${fmt(p.machineSpeed.after)}`);
  const machine = speed ? `Machine speed (a fixed parse, ms; lower is faster): ${fmt(speed.before)} at the start, ${fmt(speed.after)} at the end${byProject.length > 0 ? `; around each project: ${byProject.join(', ')}` : ''}.` : '';
  return `${measures}\n\n${targets}${machine ? `\n\n${machine}` : ''}`;
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'bundle', 'assistant-ls.mjs'))) throw new Error('dist/ is missing: run `npm run build` first (npm run bench does).');
  const started = now();
  const speedBefore = await machineSpeed();
  const results = {
    meta: {
      date: new Date().toISOString(),
      mode: options.quick ? 'quick' : 'full',
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGB: Math.round(os.totalmem() / 1073741824),
      // The machine may be shared: the load before and after the run tells how quiet it was.
      loadAverageBefore: os.loadavg().map((l) => Math.round(l * 100) / 100),
      machineSpeed: { workload: 'ms to parse typescript/lib/lib.es5.d.ts with the TypeScript compiler API, median of 15 after 10 warm-ups, one thread; lower is faster; each project has its own, before and after its sections', before: speedBefore, after: null },
      commit: gitCommit(),
      runs: options.runs,
      tsls: options.tsls ? JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'typescript-language-server', 'package.json'), 'utf8')).version : null,
      method: {
        servers: 'child processes over --stdio, driven with vscode-jsonrpc; memory is the peak RSS (VmHWM) summed over the server and its children; the code-action measurements run in a process of their own per server, with the Node flags in codeActionClientFlags (one thread, no optimizing compiler, a large young generation), so that the client\'s own compiler and collector threads do not take the core a server is about to run on',
        codeActionClientFlags: QUIET_CLIENT,
        inProcess: 'the retrieval index, the repository tools, the type-check oracle and the trace are timed in processes of their own on the modules in dist/server',
        initialize: 'round trip of initialize once the process answers requests; spawnToInitialized also holds Node start-up',
        codeActions: 'empty range at the first non-blank character of evenly spread lines, after the server went idle following the open; `rounds` times over the positions on each of `servers` fresh servers of each kind, the kinds taking turns, the samples pooled (perServerP99: each server\'s own p99)',
        codeActionsAfterEdits: 'a space typed at every k-th of those positions (an incremental didChange), then the code actions there at once, timed; the space is deleted again after each, untimed. typescript-language-server waits 500 ms before answering a code-action request while diagnostics of the file are pending, by design',
        codeActionsDuringPauses: 'a space typed at one of `pauses` places spread over the file, a pause of 300 ms, then the code actions asked for every 10 ms for pauseWindowMs at those positions in turn, while the server checks the changed file (ours 400 ms after a change); then the space is deleted and the server left to go idle; worstPerRound = the longest request of each round',
        retrievalIndex: 'built cold (a new index reading and parsing every file, the file-system cache warm after the first run), then from its saved index (fromSaved: a new index given the file a first one saved, taking every unchanged file from it), then queried warm',
        first: 'per round, three fresh processes with empty cache folders (XDG_CACHE_HOME) on the file of --first-file (else the large file): typescript-language-server\'s first code-action list right after the open, at the first declaration; ours with no model, from the code-action request right after the open through the offline Document task it offers to the answer, the edit applied (documentTask.list: the list\'s part; when Document is not offered at a declaration the next is tried, counted); ours asked "where is <a declaration of the file, exported if one is> implemented?" through assistant/ask right after initialized, on a cold index; rounds taking turns; ratios of the medians to typescript-language-server\'s; run in a process with the code-action client\'s Node flags',
        hostile: 'the server on a copy of test/fixtures/basic: assistant/ask with 1 KB, then with 1 MB of each degenerate shape (a run of one character or a short pattern repeated), each with a code-action request sent right behind it (timed from the ask); then a storm of 10 MB assistant/ask requests, every other one cancelled right after it is sent; rssAfterMB = VmRSS 2 s after the last answer, peakRssMB = VmHWM',
        trace: 'past sessions written in bulk as segment files (200 interactions per session), then opened as a new session; appends go through TraceStore.add',
        orchestration: 'Document through workspace/executeCommand with only the model agent; overhead = wall time minus the time the endpoint held the requests; after the first task the server is let go idle (settleMs: what it does after the open, the first type-check of the file among it, as before the code-action measurements); the first task and the next warm-up tasks (up to 10) are reported apart; each server has a cache folder of its own (XDG_CACHE_HOME), so the first task is that of a first session on the project, and laterSessionFirstTaskMs is the first task of a new server given the folder of the measured one, whose index it saved when it shut down; the client applies edits and reports them as incremental didChange, and undoes each after the task the same way; serverMainThreadCpu = CPU time of the server\'s main thread during each measured task (Linux, from /proc; null elsewhere), benchProcessCpu = CPU time of the bench process (the editor side and the endpoint) during it; afterTyping = the same tasks, each right after a space typed at the start of the line above the declaration (an incremental didChange) and the code-action request there, as a task usually runs',
      },
    },
    projects: [],
    trace: [],
    hostile: null,
    targets: [],
  };
  try {
    for (const [i, spec] of options.projects.entries()) results.projects.push(await measureProject(spec, options, options.firstFiles[i]));
  } finally {
    removeScratchDirectories();
  }
  for (const size of options.only.has('trace') ? options.traceSizes : []) {
    const appends = options.runs.appends;
    const result = await attempt(`trace ${size}`, () => runSection('trace', { size, appends, queries: options.runs.queries }, { nodeOptions: ['--max-old-space-size=8192'] }));
    results.trace.push({ size, ...result });
  }
  if (options.only.has('context')) results.context = await attempt('context', () => runSection('context', { runs: options.runs }));
  if (options.only.has('completion')) results.completion = await attempt('completion', () => runSection('completion', { runs: options.runs }));
  if (options.only.has('hostile')) {
    const args = { stormRequests: options.quick ? 100 : 1_000, stormBytes: 10_000_000, runs: options.quick ? 5 : 20 };
    results.hostile = await attempt('hostile input', () => runSection('hostile', args));
  }
  results.targets = judge(results);
  results.meta.totalSeconds = Math.round((now() - started) / 1000);
  results.meta.loadAverageAfter = os.loadavg().map((l) => Math.round(l * 100) / 100);
  results.meta.machineSpeed.after = await machineSpeed();
  fs.mkdirSync(path.dirname(options.json), { recursive: true });
  fs.writeFileSync(options.json, `${JSON.stringify(results, null, 2)}\n`);
  console.log(render(results));
  console.log(`\nResults: ${options.json} (${results.meta.totalSeconds} s)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((error) => {
    console.error(error?.message ?? error);
    process.exit(1);
  });
}
