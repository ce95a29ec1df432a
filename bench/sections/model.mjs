// Benchmark section (own process): a local GGUF model, its load time, time to first token and tokens per second for a Document prompt, and the code-action list's latency while it generates behind the server.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BenchClient } from '../lspClient.mjs';
import { REPO_ROOT, cacheHome, now, sectionMain, spreadPositions, summarize } from '../support.mjs';

const dist = (relative) => import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', relative)).href);
const { LocalModelClient } = await dist('agents/local/localModelClient.js');
const { localModelSettings } = await dist('agents/local/localAgent.js');
const { modelStrategy } = await dist('agents/modelTasks.js');

/** The Document prompt the model agent sends for the function at `offset`, built by the task's own strategy. */
function documentPrompt(file, text, name) {
  const start = text.indexOf(`function ${name}`);
  const end = text.indexOf('\n}\n', start) + 2;
  const request = {
    task: 'document',
    text: `document ${name}`,
    document: { uri: pathToFileURL(file).href, fsPath: file, languageId: 'typescript', version: 1, text },
    target: { name, start, end, declaration: { kind: 'function', name, simpleName: name, start, end } },
    parameters: {},
    project: { root: path.dirname(file) },
    history: [],
  };
  return modelStrategy('document').buildPrompt(request, undefined);
}

sectionMain(async ({ root, bigFile, modelPath, threads, runs, codeActionRuns }) => {
  const text = fs.readFileSync(bigFile, 'utf8');
  const names = [...new Set([...text.matchAll(/^(?:export )?function (\w+)/gm)].map((m) => m[1]))];
  if (names.length === 0) throw new Error(`no function in ${bigFile}`);
  const settings = localModelSettings({ modelPath, threads, contextSize: 4096, maxTokens: 256 });

  // Load: from a stopped worker to a model ready to answer (the worker's own start included).
  const loads = [];
  const client = new LocalModelClient(settings);
  for (let i = 0; i < runs.load; i++) {
    const started = now();
    await client.info();
    loads.push(now() - started);
    await client.dispose();
  }

  // A Document prompt per run, each on another function, so no run reads its prompt from the previous one's cache.
  const firstToken = [];
  const tokensPerSecond = [];
  const promptTokens = [];
  await client.info();
  for (let i = 0; i < runs.document; i++) {
    const prompt = documentPrompt(bigFile, text, names[(i * 7) % names.length]);
    const started = now();
    let first;
    const completion = await client.complete([{ role: 'system', content: prompt.system }, { role: 'user', content: prompt.user }], new globalThis.AbortController().signal, { onText: () => (first ??= now()) }).catch((error) => ({ error }));
    const ended = now();
    if (completion.error || first === undefined) continue;
    firstToken.push(first - started);
    promptTokens.push(completion.usage?.promptTokens ?? 0);
    const generated = completion.usage?.completionTokens ?? 0;
    if (generated > 1 && ended > first) tokensPerSecond.push(((generated - 1) * 1000) / (ended - first));
  }
  await client.dispose();

  // The code-action list over --stdio, idle and while the local agent generates a Document answer behind it.
  const server = BenchClient.spawn('assistant-ls', root, cacheHome());
  await server.ready();
  await server.initialize({ assistant: { useEnvironment: false, agents: [{ name: 'local', modelPath, threads, contextSize: 4096, maxTokens: 256 }], disabledAgents: ['doc-offline'], orchestrator: { agentTimeoutMs: 600_000 } } });
  const { uri } = await server.open(bigFile);
  const positions = spreadPositions(text, codeActionRuns);
  const timeActions = async (until) => {
    const samples = [];
    for (let i = 0; until ? !until() : i < positions.length; i++) {
      const started = now();
      await server.codeActions(uri, positions[i % positions.length]);
      samples.push(now() - started);
      // A user moving the cursor, not a flood.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return samples;
  };
  await timeActions();
  const idle = await timeActions();
  const documented = [];
  let generating = 0;
  for (let i = 0; i < runs.document; i++) {
    const name = names[(i * 7 + 3) % names.length];
    const at = text.indexOf(`function ${name}`);
    const before = text.slice(0, at);
    const position = { line: before.split('\n').length - 1, character: before.length - before.lastIndexOf('\n') - 1 + 'function '.length };
    let done = false;
    const started = now();
    const asked = server.request('assistant/ask', { text: `document ${name}`, task: 'document', textDocument: { uri }, range: { start: position, end: position } }).finally(() => (done = true));
    documented.push(...(await timeActions(() => done)));
    await asked;
    generating += now() - started;
  }
  await server.connection.sendRequest('shutdown');
  server.connection.sendNotification('exit');
  await server.exited;
  return {
    model: path.basename(modelPath),
    threads,
    load: summarize(loads),
    documentFirstToken: summarize(firstToken),
    documentTokensPerSecond: summarize(tokensPerSecond),
    documentPromptTokens: summarize(promptTokens),
    codeActionIdle: summarize(idle),
    codeActionWhileGenerating: summarize(documented),
    generatingMs: Math.round(generating),
  };
});
