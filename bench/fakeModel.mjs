// An OpenAI-compatible endpoint that answers chat completions and fill-in-the-middle completions at once (SSE or JSON), recording model time, prompt size and requests the client closed.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { now } from './support.mjs';

function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

/**
 * Starts the endpoint on 127.0.0.1. `answer(body)` gives the assistant's text for a request. Each request is recorded
 * with the time the endpoint held it (first byte in to last byte out) and its prompt's characters.
 */
export async function startFakeModel(answer) {
  const requests = [];
  let counter = 0;
  const server = createServer((req, res) => {
    const record = { receivedAt: now(), finishedAt: undefined, closedAt: undefined, promptChars: 0, path: req.url };
    res.on('close', () => {
      if (!res.writableFinished) record.closedAt = now();
    });
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // An unparsable body gets the default answer.
      }
      record.promptChars = (body.messages ?? []).reduce((n, m) => n + contentText(m?.content).length, 0);
      requests.push(record);
      res.on('finish', () => (record.finishedAt = now()));
      const content = answer(body);
      const promptTokens = Math.ceil(record.promptChars / 4);
      const usage = { prompt_tokens: promptTokens, completion_tokens: Math.ceil(content.length / 4), total_tokens: promptTokens + Math.ceil(content.length / 4) };
      const id = `chatcmpl-bench-${++counter}`;
      const created = Math.floor(Date.now() / 1000);
      const model = typeof body.model === 'string' ? body.model : 'bench-model';
      if (/\/v1\/completions$/.test(req.url ?? '')) {
        record.promptChars = (typeof body.prompt === 'string' ? body.prompt.length : 0) + (typeof body.suffix === 'string' ? body.suffix.length : 0);
        const choice = (text, finish) => ({ text, index: 0, logprobs: null, finish_reason: finish });
        const base = { id: `cmpl-bench-${counter}`, object: 'text_completion', created, model };
        if (body.stream !== true) {
          const text = JSON.stringify({ ...base, choices: [choice(content, 'stop')], usage });
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
          res.end(text);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.end(`data: ${JSON.stringify({ ...base, choices: [choice(content, null)] })}\n\ndata: ${JSON.stringify({ ...base, choices: [choice('', 'stop')] })}\n\ndata: [DONE]\n\n`);
        return;
      }
      if (!/chat\/completions$/.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'no route', type: 'invalid_request_error' } }));
        return;
      }
      if (body.stream !== true) {
        const text = JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }], usage });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      let out = chunk({ role: 'assistant', content: '' }) + chunk({ content }) + chunk({}, 'stop');
      if (body.stream_options?.include_usage) out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`;
      res.end(`${out}data: [DONE]\n\n`);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Requests recorded from index `from` on, once all have finished. */
    async settled(from) {
      for (let i = 0; i < 200 && requests.slice(from).some((r) => r.finishedAt === undefined); i++) await new Promise((r) => setTimeout(r, 5));
      return requests.slice(from);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
