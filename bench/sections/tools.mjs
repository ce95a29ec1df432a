// Benchmark section (own process): each repository tool (repositoryTools.ts) cold (a fresh index) and warm, on names taken from the project itself.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, now, sectionMain, summarize, timeRuns } from '../support.mjs';

const dist = (...parts) => pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', ...parts)).href;
const { RepositoryTools } = await import(dist('repo', 'repositoryTools.js'));
const { Workspace } = await import(dist('workspace', 'workspace.js'));

/** Calls of every tool on declarations the index holds: classes, methods and functions of the project. */
function callsFor(index, count) {
  const classes = index.declarations((_n, kind) => kind === 'class', 50);
  const methods = index.declarations((n, kind) => kind === 'method' && n.includes('.'), 200);
  const functions = index.declarations((_n, kind) => kind === 'function', 200);
  const pick = (list, i) => list[(i * 7919) % Math.max(1, list.length)];
  const calls = [];
  for (let i = 0; calls.length < count; i++) {
    const cls = pick(classes, i);
    const method = pick(methods, i);
    const fn = pick(functions, i);
    if (!cls || !method || !fn) break;
    const [className, methodName] = method.name.split('.');
    calls.push(
      ['search_class', { name: cls.name }],
      ['get_class_info', { name: cls.name }],
      ['get_signature', { name: fn.name }],
      ['get_method_body', { name: methodName, class: className }],
      ['get_imports', { code: `const x = ${fn.name}(${cls.name});`, file: 'src/new.ts' }],
      ['get_relevant_code', { query: `${methodName} ${cls.name}`, limit: 5 }],
      ['search_method', { name: methodName }],
      ['search_code', { code: `${methodName}(` }],
    );
  }
  return calls.slice(0, count);
}

sectionMain(async ({ root, coldRuns, warmRuns }) => {
  const build = await timeRuns(coldRuns, async () => {
    // A workspace of its own (listing and index), so each build walks the folder as a new process does.
    const tools = new RepositoryTools(new Workspace(root, { saveIndex: false }));
    await tools.ready();
    return tools;
  });
  const tools = build.last;
  // The index's declarations, through a second workspace on the same folder: the tools see the same files.
  const workspace = new Workspace(root, { saveIndex: false });
  const index = workspace.index;
  await index.refresh();
  const calls = callsFor(index, Math.max(16, warmRuns));
  const byTool = new Map();
  // Cold: each tool's first call on a fresh tools object (parses the files it prints from).
  const cold = new Map();
  const fresh = new RepositoryTools(workspace);
  for (const [name, args] of calls) {
    if (cold.has(name)) continue;
    const start = now();
    await fresh.call(name, args);
    cold.set(name, Math.round((now() - start) * 100) / 100);
  }
  for (let i = 0; i < warmRuns * 2; i++) {
    const [name, args] = calls[i % calls.length];
    const start = now();
    const answer = await tools.call(name, args);
    const elapsed = now() - start;
    const entry = byTool.get(name) ?? { times: [], chars: [] };
    entry.times.push(elapsed);
    entry.chars.push(answer.length);
    byTool.set(name, entry);
  }
  const result = { build: build.stats, calls: calls.length };
  for (const [name, { times, chars }] of byTool) result[name] = { cold: cold.get(name) ?? null, warm: summarize(times), maxAnswerChars: Math.max(...chars) };
  return result;
});
