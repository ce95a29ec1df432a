// Benchmark section (own process): what a fresh session answers first (the offline Document task right after opening a file, a workspace question on a cold index) beside typescript-language-server's first code action on that file.
import { BenchClient } from '../lspClient.mjs';
import { cacheHome, initOptions, now, removeScratchDirectories, sectionMain, summarize } from '../support.mjs';

/** typescript-language-server's first code-action list after opening the file: what an editor shows first. */
async function tslsFirstCodeAction(project) {
  const client = BenchClient.spawn('typescript-language-server', project.root, cacheHome());
  try {
    await client.initialize(initOptions('typescript-language-server'));
    const buffer = await client.open(project.file);
    const start = now();
    await client.codeActions(buffer.uri, project.targets[0]);
    return now() - start;
  } finally {
    await client.shutdown();
  }
}

/**
 * A fresh server, no model, an empty cache folder: the file opened, the code actions asked for at a declaration, and
 * the Document action run, as a user runs it from the light bulb. Timed from the code-action request to the task's
 * answer (the edit applied by the client); the list's part is kept apart. When Document is not offered at the first
 * declaration, the next is tried, and its time counts too: it is still the user's wait for the first task.
 */
async function firstDocumentTask(project) {
  const client = BenchClient.spawn('assistant-ls', project.root, cacheHome());
  try {
    await client.initialize(initOptions('assistant-ls'));
    const buffer = await client.open(project.file);
    const start = now();
    for (const [tries, target] of project.targets.entries()) {
      const actions = await client.codeActions(buffer.uri, target);
      const action = actions?.find((a) => a.command?.command === 'assistant.document');
      if (!action) continue;
      const listed = now();
      const result = await client.request('workspace/executeCommand', { command: action.command.command, arguments: action.command.arguments });
      const done = now();
      // A task that declines, saying why (nothing true to add to the signature), has answered the user too.
      if (!result?.applied && !result?.message) throw new Error(`the first Document task answered nothing: ${JSON.stringify(result)}`);
      return { total: done - start, list: listed - start, task: done - listed, line: target.line + 1, tries: tries + 1, applied: Boolean(result.applied) };
    }
    throw new Error(`Document was offered at none of ${project.targets.length} declarations`);
  } finally {
    await client.shutdown();
  }
}

/** A fresh server, no model, an empty cache folder (no saved index): `assistant/ask` with the question, right after `initialized`. */
async function firstQuestion(project) {
  const client = BenchClient.spawn('assistant-ls', project.root, cacheHome());
  try {
    await client.initialize(initOptions('assistant-ls'));
    const start = now();
    const answer = await client.request('assistant/ask', { text: project.question });
    const elapsed = now() - start;
    const response = answer?.responses?.find((r) => r.status === 'ok');
    if (answer?.task !== 'question' || !response) throw new Error(`"${project.question}" was not answered as a workspace question: ${JSON.stringify(answer).slice(0, 300)}`);
    return { ms: elapsed, locations: response.text.split('\n').filter((line) => /^\d+\. /.test(line)).length };
  } finally {
    await client.shutdown();
  }
}

/** `rounds` rounds, the three measurements taking turns in each, so that all meet the same moments of the machine. */
sectionMain(async ({ project, rounds, tsls }) => {
  const theirs = [];
  const documents = [];
  const questions = [];
  try {
    for (let round = 0; round < rounds; round++) {
      if (tsls) theirs.push(await tslsFirstCodeAction(project));
      documents.push(await firstDocumentTask(project));
      questions.push(await firstQuestion(project));
    }
  } finally {
    removeScratchDirectories();
  }
  return {
    tslsFirstCodeAction: tsls ? summarize(theirs) : null,
    documentTask: {
      total: summarize(documents.map((d) => d.total)),
      list: summarize(documents.map((d) => d.list)),
      task: summarize(documents.map((d) => d.task)),
      line: documents[0].line,
      tries: documents[0].tries,
    },
    question: { text: project.question, ask: summarize(questions.map((q) => q.ms)), locations: questions[0].locations },
  };
});
