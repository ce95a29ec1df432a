// What a model is sent per task on zod 4's sources: the built server over --stdio against an instant endpoint, Document, Test, Rename, Fix and the issue pipeline on src/v4/core/errors.ts, the prompt tokens of each (characters / 4) and, with --dump DIR, the prompts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchClient } from './lspClient.mjs';
import { startFakeModel } from './fakeModel.mjs';
import { cacheHome, initOptions, removeScratchDirectories } from './support.mjs';

const USAGE = `usage: node bench/promptSizes.mjs [--zod DIR] [--dump DIR] [--json FILE]
  --zod DIR    zod 4.1.12's unpacked package (default: the eval's copy, fetched by \`assistant-ls eval npm:zod\`)
  --dump DIR   write each task's first prompt there
  --json FILE  write the figures there`;

function parseArgs(argv) {
  const cache = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const options = { zod: path.join(cache, 'assistant-ls', 'eval-packages', 'zod@4.1.12'), dump: undefined, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]?.replace(/^--/, '');
    if (!['zod', 'dump', 'json'].includes(key ?? '') || argv[i + 1] === undefined) throw new Error(USAGE);
    options[key] = path.resolve(argv[++i]);
  }
  if (!fs.existsSync(path.join(options.zod, 'src', 'v4', 'core', 'errors.ts'))) throw new Error(`no zod 4 sources in ${options.zod}\n${USAGE}`);
  return options;
}

/** What each task's endpoint answers: enough for the task to go on (its prompts are what is measured). */
const ANSWERS = { document: '/** Formats an error. */', test: '```ts\n\n```', rename: 'dotPathOf\nformatPath', fix: '```ts\nx\n```', issue: '{"locations": []}' };

const promptChars = (body) => (body.messages ?? []).reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);

const options = parseArgs(process.argv.slice(2));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-prompts-'));
fs.cpSync(options.zod, root, { recursive: true });
const bodies = [];
let task = 'document';
const model = await startFakeModel((body) => {
  bodies.push({ task, body });
  return ANSWERS[task] ?? '';
});
const client = BenchClient.spawn('assistant-ls', root, { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'bench-model', ...cacheHome() });
try {
  await client.initialize(initOptions('assistant-ls', { disabledAgents: ['doc-offline', 'fix-offline', 'rename-offline', 'test-scaffold-offline'], annotations: { enabled: false } }));
  const positionOf = (text, needle) => {
    const offset = text.indexOf(needle);
    const before = text.slice(0, offset);
    return { line: before.split('\n').length - 1, character: offset - before.lastIndexOf('\n') - 1 };
  };
  const errors = await client.open(path.join(root, 'src/v4/core/errors.ts'));
  // A session's surroundings: two unrelated files open, and visited before the tasks.
  const en = await client.open(path.join(root, 'src/v4/locales/en.ts'));
  const schemas = await client.open(path.join(root, 'src/v4/classic/schemas.ts'));
  await client.codeActions(en.uri, positionOf(en.text, 'const error'));
  await client.codeActions(schemas.uri, positionOf(schemas.text, 'export function string('));
  await client.codeActions(errors.uri, positionOf(errors.text, 'prettifyError('));
  const at = (needle) => ({ start: positionOf(errors.text, needle), end: positionOf(errors.text, needle) });
  const run = async (name, action) => {
    task = name;
    const from = bodies.length;
    await action();
    return bodies.slice(from);
  };
  const ask = (name, text, range) => run(name, () => client.request('assistant/ask', { text, task: name, textDocument: { uri: errors.uri }, range }));
  const results = {
    document: await ask('document', 'document prettifyError', at('prettifyError(')),
    test: await ask('test', 'write tests for toDotPath', at('toDotPath(')),
    rename: await ask('rename', 'rename toDotPath', at('toDotPath(')),
    // A one-line fix in a 45-line function: a misspelt name, as the client reports it.
    fix: await run('fix', async () => {
      const broken = errors.text.replace('result.errors.push(mapper(issue));', 'result.errors.push(mapper(isue));');
      await client.setText(errors.uri, broken);
      const start = positionOf(broken, 'isue));');
      const diagnostic = { range: { start, end: { line: start.line, character: start.character + 4 } }, severity: 1, code: 2552, source: 'ts', message: "Cannot find name 'isue'. Did you mean 'issue'?" };
      const actions = await client.request('textDocument/codeAction', { textDocument: { uri: errors.uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
      const fix = actions.find((a) => a.command?.command === 'assistant.fix');
      if (!fix) throw new Error('no Fix offered for the misspelt name');
      await client.request('workspace/executeCommand', { command: fix.command.command, arguments: fix.command.arguments });
      await client.setText(errors.uri, errors.text);
    }),
    issue: await ask('issue', 'prettifyError should list issues with the same path length in the order of their paths', at('prettifyError(')),
  };
  const figures = {};
  for (const [name, requests] of Object.entries(results)) {
    const first = requests[0];
    if (!first) throw new Error(`${name}: no request reached the endpoint`);
    figures[name] = { firstPromptTokens: Math.ceil(promptChars(first.body) / 4), requests: requests.length, allPromptTokens: Math.ceil(requests.reduce((n, r) => n + promptChars(r.body), 0) / 4) };
    if (options.dump) {
      fs.mkdirSync(options.dump, { recursive: true });
      fs.writeFileSync(path.join(options.dump, `${name}.txt`), first.body.messages.map((m) => `=== ${m.role}\n${m.content}`).join('\n\n'));
    }
  }
  const rows = Object.entries(figures).map(([name, f]) => `${name.padEnd(9)} ${String(f.firstPromptTokens).padStart(6)} ${String(f.requests).padStart(9)} ${String(f.allPromptTokens).padStart(9)}`);
  process.stdout.write(`task      prompt  requests  all (prompt tokens)\n${rows.join('\n')}\n`);
  if (options.json) fs.writeFileSync(options.json, `${JSON.stringify({ file: 'src/v4/core/errors.ts', tasks: figures }, null, 2)}\n`);
} finally {
  await client.shutdown();
  await model.close?.();
  fs.rmSync(root, { recursive: true, force: true });
  removeScratchDirectories();
}
