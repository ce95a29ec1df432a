// The base-protocol frame writer: frames the reader reads back whole, one write each, in order, and failures reported.
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Message } from 'vscode-jsonrpc/node';
import { FramedMessageReader } from '../../server/src/lsp/framedReader.js';
import { FramedMessageWriter } from '../../server/src/lsp/framedWriter.js';

describe('FramedMessageWriter', () => {
  it('writes frames the reader reads back, multi-byte text included, each in one write and in order', async () => {
    const pipe = new PassThrough();
    const chunks: Buffer[] = [];
    pipe.on('data', (chunk: Buffer) => void chunks.push(chunk));
    const writer = new FramedMessageWriter(pipe);
    const sent: Message[] = [];
    for (let i = 0; i < 50; i++) sent.push({ jsonrpc: '2.0', method: `m${i}`, params: { text: i % 3 === 0 ? 'é日本🙂'.repeat(i) : 'x'.repeat(i * 37) } } as Message);
    await Promise.all(sent.map((m) => writer.write(m)));
    expect(chunks).toHaveLength(sent.length);
    for (const chunk of chunks) expect(chunk.toString('latin1')).toMatch(/^Content-Length: \d+\r\n\r\n\{/);

    const read: unknown[] = [];
    const replay = new PassThrough();
    new FramedMessageReader(replay, () => undefined).listen((m) => void read.push(m));
    // Split at arbitrary places, as a pipe may deliver them.
    const bytes = Buffer.concat(chunks);
    for (let at = 0; at < bytes.length; at += 97) replay.write(bytes.subarray(at, at + 97));
    expect(read).toEqual(sent);
  });

  it('rejects a failed write and reports it with the message and a running count', async () => {
    const failing = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('EPIPE: the client is gone')) });
    failing.on('error', () => undefined);
    const writer = new FramedMessageWriter(failing);
    const reported: [string, unknown, number | undefined][] = [];
    writer.onError(([error, message, count]) => void reported.push([error.message, message, count]));
    const message = { jsonrpc: '2.0', method: 'window/logMessage', params: { type: 3, message: 'hi' } } as Message;
    await expect(writer.write(message)).rejects.toThrow('EPIPE');
    expect(reported.some(([text, m, count]) => text.includes('EPIPE') && m === message && count === 1)).toBe(true);
  });

  it('rejects a message that cannot be serialized without writing anything', async () => {
    const pipe = new PassThrough();
    const chunks: Buffer[] = [];
    pipe.on('data', (chunk: Buffer) => void chunks.push(chunk));
    const writer = new FramedMessageWriter(pipe);
    const cyclic: Record<string, unknown> = { jsonrpc: '2.0', method: 'x' };
    cyclic.params = cyclic;
    await expect(writer.write(cyclic as unknown as Message)).rejects.toThrow();
    await writer.write({ jsonrpc: '2.0', method: 'after' } as Message);
    expect(Buffer.concat(chunks).toString()).toBe('Content-Length: 34\r\n\r\n{"jsonrpc":"2.0","method":"after"}');
  });
});
