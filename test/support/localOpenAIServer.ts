// A test-only OpenAI-compatible HTTP server backed by a real local model (node-llama-cpp on a worker), so the openai package path meets a real model: streaming, usage, stop reasons, tool calls, disconnects.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LocalModelClient } from '../../server/src/agents/local/localModelClient.js';
import { localModelSettings } from '../../server/src/agents/local/localAgent.js';
import type { ChatMessage, ToolSpec } from '../../server/src/agents/modelClient.js';

export interface LocalOpenAIServer {
  baseURL: string;
  client: LocalModelClient;
  /** How many chat requests ended because the HTTP client went away before the answer was complete. */
  readonly disconnects: number;
  close(): Promise<void>;
}

interface WireMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

interface WireRequest {
  model?: string;
  messages?: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
  max_tokens?: number;
  max_completion_tokens?: number;
}

function chatMessages(wire: readonly WireMessage[]): ChatMessage[] {
  return wire.map((m): ChatMessage => {
    const content = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'tool') return { role: 'tool', content, toolCallId: m.tool_call_id ?? '' };
    if (m.role === 'assistant') return { role: 'assistant', content, ...(m.tool_calls?.length ? { toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) } : {}) };
    return { role: m.role === 'system' ? 'system' : 'user', content };
  });
}

/** Starts the server on a free port of 127.0.0.1; `maxTokens` is the default budget of an answer that names none. */
export async function startLocalOpenAIServer(options: { modelPath: string; maxTokens?: number; threads?: number; contextSize?: number }): Promise<LocalOpenAIServer> {
  const client = new LocalModelClient(localModelSettings({ modelPath: options.modelPath, threads: options.threads ?? 1, contextSize: options.contextSize ?? 4096, maxTokens: options.maxTokens ?? 256 }));
  const sockets = new Set<Socket>();
  let disconnects = 0;
  let sequence = 0;

  async function chat(req: IncomingMessage, res: ServerResponse, body: WireRequest): Promise<void> {
    const id = `chatcmpl-local-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'local';
    const controller = new AbortController();
    // The client went away before the answer was complete: stop generating.
    res.on('close', () => {
      if (!res.writableFinished) {
        disconnects++;
        controller.abort(new Error('the client disconnected'));
      }
    });
    const tools: ToolSpec[] | undefined = body.tools?.map((t) => ({ name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? { type: 'object', properties: {} } }));
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(chunk({ role: 'assistant', content: '' }));
    }
    let completion;
    try {
      completion = await client.generate(chatMessages(body.messages ?? []), controller.signal, {
        ...(tools?.length ? { tools } : {}),
        ...(maxTokens ? { maxTokens } : {}),
        ...(body.stream ? { onText: (text: string) => void res.write(chunk({ content: text })) } : {}),
      });
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      if (body.stream) res.end(`data: ${JSON.stringify({ error: { message, type: 'server_error' } })}\n\n`);
      else {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message, type: 'server_error' } }));
      }
      return;
    }
    const calls = (completion.toolCalls ?? []).map((c, index) => ({ index, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const usage = { prompt_tokens: completion.usage?.promptTokens ?? 0, completion_tokens: completion.usage?.completionTokens ?? 0, total_tokens: (completion.usage?.promptTokens ?? 0) + (completion.usage?.completionTokens ?? 0) };
    if (body.stream) {
      if (calls.length > 0) res.write(chunk({ tool_calls: calls }));
      res.write(chunk({}, completion.finishReason));
      if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: completion.text, ...(calls.length ? { tool_calls: calls.map(({ index: _index, ...call }) => call) } : {}) }, finish_reason: completion.finishReason }],
        usage,
      }),
    );
  }

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no ${req.method} ${req.url} here`, type: 'invalid_request_error' } }));
        return;
      }
      let body: WireRequest;
      try {
        body = JSON.parse(raw) as WireRequest;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'the body is not JSON', type: 'invalid_request_error' } }));
        return;
      }
      void chat(req, res, body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    client,
    get disconnects() {
      return disconnects;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.dispose();
    },
  };
}
