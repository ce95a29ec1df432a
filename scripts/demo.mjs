#!/usr/bin/env node
// The demo: a short scripted editor session on a copy of examples/ with the offline agents: actions, Document, the diff, the trace.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { createTwoFilesPatch } from 'diff';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repo, 'bin', 'assistant-ls.js');
if (!fs.existsSync(path.join(repo, 'dist', 'bundle', 'assistant-ls.mjs'))) {
  console.error('assistant-ls is not built: run `npm ci` (or `npm run build`) first.');
  process.exit(1);
}

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-demo-'));
fs.cpSync(path.join(repo, 'examples'), workspace, { recursive: true });
const file = path.join(workspace, 'src', 'config.ts');
const uri = pathToFileURL(file).href;

// The demo shows the offline agents: a model configured in the environment is left out.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL'));
const child = spawn(process.execPath, [bin, '--stdio'], { cwd: workspace, env, stdio: ['pipe', 'pipe', 'inherit'] });
const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));

let text = fs.readFileSync(file, 'utf8');
let version = 1;
const original = text;
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const step = (s) => console.log(`\n${bold(`▸ ${s}`)}`);

function offsetAt(position) {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < position.line; i++) offset += lines[i].length + 1;
  return offset + position.character;
}

// The demo plays the editor: it applies the server's edits to its buffer when the version matches.
connection.onRequest('workspace/applyEdit', ({ edit }) => {
  for (const change of edit.documentChanges ?? []) {
    if (change.textDocument.version !== null && change.textDocument.version !== version) return { applied: false, failureReason: 'stale version' };
    const edits = change.edits.map((e) => ({ start: offsetAt(e.range.start), end: offsetAt(e.range.end), newText: e.newText })).sort((a, b) => b.start - a.start);
    for (const e of edits) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
    version++;
    void connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }
  return { applied: true };
});
connection.onRequest('window/workDoneProgress/create', () => null);
connection.onUnhandledProgress(({ value }) => {
  if (value.kind === 'begin') console.log(`  [progress] ${value.title}`);
  else if (value.kind === 'report' && value.message) console.log(`  [progress] ${value.message}`);
});
connection.onNotification('window/showMessage', ({ message }) => console.log(`  [message] ${message}`));
connection.onNotification('window/logMessage', () => undefined);
connection.listen();

function positionOf(needle) {
  const before = text.slice(0, text.indexOf(needle));
  const line = before.split('\n').length - 1;
  return { line, character: before.length - before.lastIndexOf('\n') - 1 };
}

try {
  step(`Starting assistant-ls on a copy of examples/ (${workspace})`);
  const started = Date.now();
  const init = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'examples' }],
    clientInfo: { name: 'assistant-ls demo' },
    capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } }, window: { workDoneProgress: true } },
  });
  await connection.sendNotification('initialized', {});
  console.log(`  ${init.serverInfo.name} ${init.serverInfo.version} initialized in ${Date.now() - started} ms`);
  const { agents } = await connection.sendRequest('assistant/agents', {});
  for (const a of agents) console.log(`  agent ${a.name} (${a.technology}) serves: ${a.tasks.join(', ')}`);

  await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version, text } });

  step('Code actions offered with the cursor on parseConfig');
  const at = positionOf('parseConfig(text');
  const t0 = process.hrtime.bigint();
  const actions = await connection.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  for (const a of actions) console.log(`  • ${a.title}   [${a.kind}]`);
  console.log(`  (listed in ${ms.toFixed(1)} ms, no model involved)`);

  const documentAction = actions.find((a) => a.title.startsWith('Assistant: Document'));
  step(`Running "${documentAction.title}"`);
  const result = await connection.sendRequest('workspace/executeCommand', { command: documentAction.command.command, arguments: documentAction.command.arguments, workDoneToken: 'demo' });
  console.log(`  applied: ${result.applied}; interaction ${result.interactionId}`);

  step('The diff the editor applied');
  console.log(createTwoFilesPatch('a/src/config.ts', 'b/src/config.ts', original, text, '', '', { context: 2 }).split('\n').slice(2).join('\n'));

  step('The trace record of that interaction (assistant/trace by id)');
  const { interactions } = await connection.sendRequest('assistant/trace', { id: result.interactionId });
  const record = interactions[0];
  const shown = {
    ...record,
    context: { ...record.context, fragment: { ...record.context.fragment, text: `${record.context.fragment.text.slice(0, 60)}…` } },
    responses: record.responses.map((r) => ({ ...r, text: `${r.text.split('\n').slice(0, 3).join('\n')}…`, edit: '(versioned TextDocumentEdit)' })),
  };
  console.log(JSON.stringify(shown, null, 2).replace(/^/gm, '  '));

  step('From code back to its interaction (assistant/trace by position inside parseConfig)');
  const back = await connection.sendRequest('assistant/trace', { textDocument: { uri }, position: positionOf('JSON.parse') });
  console.log(`  ${back.interactions.map((i) => `${i.id}: ${i.task} by ${i.responses.find((r) => r.used)?.agent.name} at ${i.timestamp}`).join('\n  ')}`);

  step('Free text: assistant/ask "write documentation for the load method"');
  const ask = await connection.sendRequest('assistant/ask', { text: 'write documentation for the load method', textDocument: { uri } });
  console.log(`  task: ${ask.task} (confidence ${ask.confidence.toFixed(2)}); ${ask.responses.length} candidate(s), nothing applied yet`);
  for (const r of ask.responses) console.log(r.text.replace(/^/gm, `    ${r.agent.name} │ `));

  step('Free text: assistant/ask "what is the weather in Paris"');
  const none = await connection.sendRequest('assistant/ask', { text: 'what is the weather in Paris' });
  console.log(`  task: ${none.task}: ${none.message}`);

  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
  const code = await new Promise((resolve) => child.on('exit', resolve));
  step(`Server exited with ${code}. The trace files are in ${path.join(workspace, '.assistant', 'trace')}`);
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  child.kill();
  process.exit(1);
} finally {
  connection.dispose();
}
