// Unit tests of the fetch given to the openai package, against a real local HTTP server and side by side with Node's built-in fetch.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../server/src/agents/httpFetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  port: number;
  closed: Promise<void>;
}

let server: Server;
let base: string;
let seen: Seen[];
let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void;

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, port: req.socket.remotePort ?? 0, closed: new Promise((resolve) => res.once('close', () => resolve())) });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const both = [
  ['httpFetch', httpFetch],
  ['the built-in fetch', (input: string, init?: RequestInit) => fetch(input, init)],
] as const;

describe('httpFetch', () => {
  it('sends the method, path, headers and body, and answers with the status, headers and body, as the built-in fetch does', async () => {
    handler = (_req, res, body) => {
      res.writeHead(201, 'Made', [['content-type', 'application/json'], ['x-one', 'a'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']]);
      res.end(JSON.stringify({ echoed: body }));
    };
    const body = JSON.stringify({ text: 'héllo ✓' });
    const answers = [];
    for (const [, fetchWith] of both) {
      const response = await fetchWith(`${base}/v1/chat/completions?x=1`, { method: 'post', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body });
      answers.push({ status: response.status, statusText: response.statusText, type: response.headers.get('content-type'), one: response.headers.get('x-one'), cookies: response.headers.getSetCookie(), json: await response.json() });
    }
    expect(answers[0]).toEqual({ status: 201, statusText: 'Made', type: 'application/json', one: 'a', cookies: ['a=1', 'b=2'], json: { echoed: body } });
    expect(answers[1]).toEqual(answers[0]);
    for (const request of seen) {
      expect(request).toMatchObject({ method: 'POST', url: '/v1/chat/completions?x=1', body });
      expect(request.headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    }
  });

  it('hands the body over as it arrives, and keeps the connection for the next request', async () => {
    let finish = (): void => undefined;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      finish = () => res.end('data: [DONE]\n\n');
    };
    const response = await httpFetch(`${base}/stream`, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: [DONE]\n\n');
    expect((await reader.read()).done).toBe(true);
    handler = (_req, res) => res.end('again');
    expect(await (await httpFetch(`${base}/next`, { method: 'POST', body: '{}' })).text()).toBe('again');
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  it('decodes gzip, deflate and brotli bodies, and fails the body that does not decode', async () => {
    const text = 'data: {"choices":[]}\n\n'.repeat(50);
    const encoded: Record<string, Buffer> = { gzip: zlib.gzipSync(text), deflate: zlib.deflateSync(text), br: zlib.brotliCompressSync(text) };
    for (const [coding, bytes] of Object.entries(encoded)) {
      handler = (_req, res) => {
        res.writeHead(200, { 'content-encoding': coding, 'content-type': 'text/event-stream' });
        res.end(bytes);
      };
      for (const [, fetchWith] of both) expect(await (await fetchWith(`${base}/${coding}`, { method: 'POST', body: '{}' })).text()).toBe(text);
    }
    handler = (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(Buffer.from('not gzip at all'));
    };
    for (const [, fetchWith] of both) await expect((await fetchWith(`${base}/broken`, { method: 'POST', body: '{}' })).text()).rejects.toThrow();
  });

  it('follows a redirect with the same method and body, by sending the request again through the built-in fetch', async () => {
    handler = (req, res, body) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else {
        res.end(`moved: ${req.method} ${body}`);
      }
    };
    for (const [, fetchWith] of both) expect(await (await fetchWith(`${base}/old`, { method: 'POST', body: '{"a":1}' })).text()).toBe('moved: POST {"a":1}');
    // httpFetch's own request, then the built-in fetch's two; then the built-in fetch's alone.
    expect(seen.map((s) => s.url)).toEqual(['/old', '/old', '/new', '/old', '/new']);
  });

  it('answers 204 with no body', async () => {
    handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const response = await httpFetch(`${base}/empty`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('rejects with the abort reason before sending, while waiting for the answer and while reading the body, and closes the request', async () => {
    const reason = new Error('user cancelled');
    const early = new AbortController();
    early.abort(reason);
    await expect(httpFetch(`${base}/never`, { method: 'POST', body: '{}', signal: early.signal })).rejects.toBe(reason);
    expect(seen).toHaveLength(0);

    handler = () => undefined;
    const waiting = new AbortController();
    const pending = httpFetch(`${base}/stall`, { method: 'POST', body: '{}', signal: waiting.signal });
    await until(() => seen.length === 1);
    waiting.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await seen[0]!.closed;

    handler = (_req, res) => {
      res.writeHead(200);
      res.write('part');
    };
    const reading = new AbortController();
    const response = await httpFetch(`${base}/part`, { method: 'POST', body: '{}', signal: reading.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('part');
    reading.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await seen[1]!.closed;
  });

  it('rejects when the connection breaks before the answer, and fails the body when it breaks halfway', async () => {
    handler = (req) => req.socket.resetAndDestroy();
    for (const [, fetchWith] of both) await expect(fetchWith(`${base}/reset`, { method: 'POST', body: '{}' })).rejects.toThrow();
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part', () => res.socket?.destroy());
    };
    for (const [, fetchWith] of both) await expect((await fetchWith(`${base}/half`, { method: 'POST', body: '{}' })).text()).rejects.toThrow();
  });

  it('hands other requests to the built-in fetch', async () => {
    const response = await httpFetch('data:text/plain,hello');
    expect(await response.text()).toBe('hello');
    handler = (_req, res, body) => res.end(`got ${body}`);
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('streamed')), c.close()) });
    expect(await (await httpFetch(`${base}/stream-body`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit)).text()).toBe('got streamed');
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}
