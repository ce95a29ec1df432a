// Benchmark section (own process): building a model request's context on a warm project, and classifying free-text requests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, sectionMain, timeRuns } from '../support.mjs';

const dist = (relative) => import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', relative)).href);
const { buildRequestContext } = await dist('context/requestContext.js');
const { declarationsNamed } = await dist('repo/declarations.js');
const { Workspace } = await dist('workspace/workspace.js');
const { pathToUri } = await dist('workspace/documentSnapshot.js');
const { classifyIntent } = await dist('agents/intentClassifier.js');

/** Requests as users type them, for the classifier's timing (what they classify as does not matter here). */
const REQUESTS = [
  'write documentation for the load method',
  'explain this function',
  'rename total to sum',
  'why does this throw',
  'add tests for parseConfig',
  'where is the retry logic implemented?',
  'make this faster',
  'fill in the body',
  'docs pls',
  'fix the red squiggle',
  'create a class RateLimiter that allows n calls per second',
  'what does this do',
];

sectionMain(async ({ runs }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-context-'));
  try {
    fs.cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'context'), root, { recursive: true });
    const workspace = new Workspace(root, { saveIndex: false });
    const project = workspace.projects.workspace;
    const snapshot = (relative, text, version = 1) => {
      const fsPath = path.join(root, relative);
      return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version, text: text ?? fs.readFileSync(fsPath, 'utf8') };
    };
    const report = snapshot('src/report.ts');
    const accounts = snapshot('src/accounts.ts');
    const named = (name) => {
      const [found] = declarationsNamed(report.fsPath, report.text, name);
      return { start: found.start, end: found.end, name: found.name };
    };
    const line = (needle) => {
      const at = { line: accounts.text.slice(0, accounts.text.indexOf(needle)).split('\n').length - 1, character: 0 };
      return { uri: accounts.uri, range: { start: at, end: at }, at: 0 };
    };
    const input = (target, open = accounts) => ({ workspace, document: report, target, text: "use the Ledger class's balance method", openDocuments: [report, open], recent: [line('deposit')], project, budgetTokens: 1_500 });
    const signal = new globalThis.AbortController().signal;
    const targets = [named('totalOf'), named('monthlyReport')];
    await buildRequestContext(input(targets[0]), signal);

    // The same request again; another target on the same program; an unsaved edit in an open document each time.
    const repeated = await timeRuns(runs.tasks, () => buildRequestContext(input(targets[0]), signal));
    const lineStarts = report.text.split('\n').map((text, i, all) => ({ start: all.slice(0, i).join('\n').length + (i > 0 ? 1 : 0), text })).filter(({ text }) => text.startsWith('  '));
    const newTarget = await timeRuns(runs.tasks, (i) => {
      const { start, text } = lineStarts[i % lineStarts.length];
      return buildRequestContext(input({ start: start + 2, end: start + text.length, name: 'the selection' }), signal);
    });
    const afterEdit = await timeRuns(runs.tasks, (i) => buildRequestContext(input(targets[i % 2], snapshot('src/accounts.ts', `${accounts.text}// edit ${i}\n`, 10 + i)), signal));

    classifyIntent('warm up');
    const classify = await timeRuns(runs.tasks * REQUESTS.length, (i) => classifyIntent(REQUESTS[i % REQUESTS.length]));
    return { repeated: repeated.stats, newTarget: newTarget.stats, afterEdit: afterEdit.stats, classify: classify.stats };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
