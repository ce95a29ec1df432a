// The base-protocol frame reader: frames split anywhere, bad bodies answered and skipped, untrustworthy framing closed.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FramedMessageReader, FramingError, MAX_HEADER_BYTES, MAX_MESSAGE_BYTES, MAX_REQUEST_BYTES, requestHead } from '../../server/src/lsp/framedReader.js';

function frame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`), bytes]);
}

function reader() {
  const stream = new PassThrough();
  const messages: unknown[] = [];
  const answers: { id: unknown; error?: { code: number } }[] = [];
  const errors: Error[] = [];
  let closed = 0;
  const r = new FramedMessageReader(stream, (response) => void answers.push(response as (typeof answers)[number]));
  r.onError((e) => void errors.push(e));
  r.onClose(() => void closed++);
  r.listen((m) => void messages.push(m));
  return { stream, messages, answers, errors, closed: () => closed, reader: r };
}

describe('FramedMessageReader', () => {
  it('reads the same messages wherever the bytes are split', () => {
    const bytes = Buffer.concat([frame('{"jsonrpc":"2.0","id":1,"method":"a"}'), frame('{"jsonrpc":"2.0","method":"é日本🙂"}'), frame('{"id":"x","result":null}')]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const { stream, messages, errors } = reader();
      stream.write(bytes.subarray(0, cut));
      stream.write(bytes.subarray(cut));
      expect(messages, `cut at ${cut}`).toEqual([{ jsonrpc: '2.0', id: 1, method: 'a' }, { jsonrpc: '2.0', method: 'é日本🙂' }, { id: 'x', result: null }]);
      expect(errors).toEqual([]);
    }
    const { stream, messages } = reader();
    for (const byte of bytes) stream.write(Buffer.from([byte]));
    expect(messages).toHaveLength(3);
  });

  it('answers a body that is not JSON with -32700 and one that is not an object with -32600, then reads on', () => {
    const { stream, messages, answers, closed } = reader();
    stream.write(Buffer.concat([frame('{oops'), frame(''), frame('42'), frame('null'), frame('[{"id":1,"method":"a"}]'), frame('{"id":2,"method":"b"}')]));
    expect(answers.map((a) => [a.id, a.error?.code])).toEqual([
      [null, -32700],
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(messages).toEqual([{ id: 2, method: 'b' }]);
    expect(closed()).toBe(0);
  });

  it('refuses an oversized request by its id from its pieces, and reads an oversized notification as usual', () => {
    const { stream, messages, answers } = reader();
    const text = `${'x'.repeat(MAX_REQUEST_BYTES)}"\\`;
    stream.write(frame(JSON.stringify({ jsonrpc: '2.0', params: { text, id: 1, method: 'inner' }, method: 'assistant/ask', id: 'big' })));
    stream.write(frame(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { text, id: 2 } } })));
    stream.write(frame('{"id":4,"method":"small"}'));
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 'big', error: { code: -32600, message: expect.stringContaining('over the 2 MiB limit for one request') } }]);
    expect(messages.map((m) => (m as { method: string }).method)).toEqual(['textDocument/didOpen', 'small']);
  });

  it('reads the id and method of a request from its top level, wherever its bytes are split', () => {
    const objects: Record<string, unknown>[] = [
      { jsonrpc: '2.0', params: { text: 'x"y\\', id: 9, method: 'inner' }, id: 5, method: 'assistant/ask' },
      { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { id: 3, method: 'a' } },
      { 'a"b': '"', id: 'q"\\', method: 'é"' },
      { x: ['"', { id: 1 }, '\\'], method: 'n' },
      { id: -1.5e3, method: 'x' },
      { id: 12, method: 2 },
    ];
    for (const object of objects) {
      const bytes = Buffer.from(JSON.stringify(object));
      const expected = (typeof object.id === 'number' || typeof object.id === 'string') && typeof object.method === 'string' ? { id: object.id, method: object.method } : undefined;
      for (const size of [1, 2, 3, 7, bytes.length]) {
        const pieces: Buffer[] = [];
        for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
        expect(requestHead(pieces), `${JSON.stringify(object)} in pieces of ${size}`).toEqual(expected);
      }
    }
  });

  it('decodes invalid UTF-8 as U+FFFD, accepts agreeing duplicate lengths and other headers', () => {
    const { stream, messages } = reader();
    stream.write(frame(Buffer.concat([Buffer.from('{"t":"a'), Buffer.from([0xff]), Buffer.from('b"}')])));
    const body = '{"id":3}';
    stream.write(`content-length: ${body.length}\r\nContent-Length:${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${body}`);
    expect(messages).toEqual([{ t: 'a\ufffdb' }, { id: 3 }]);
  });

  it.each([
    ['no Content-Length', 'Content-Type: x\r\n\r\n{}', /without Content-Length/],
    ['a line without a colon', 'garbage\r\n\r\n{}', /malformed header line/],
    ['a negative length', 'Content-Length: -1\r\n\r\n{}', /not a byte count/],
    ['a length with letters', 'Content-Length: 2x\r\n\r\n{}', /not a byte count/],
    ['disagreeing lengths', 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}', /conflicting/],
    ['a length over the limit', `Content-Length: ${MAX_MESSAGE_BYTES + 1}\r\n\r\n{}`, /over the/],
    ['headers without an end', `Content-Length: 2\r\n${'X: y\r\n'.repeat(MAX_HEADER_BYTES / 4)}`, /no end of headers/],
  ])('closes with a FramingError on %s, and reads nothing after it', (_name, bytes, reason) => {
    const { stream, messages, errors, closed } = reader();
    stream.write(frame('{"id":1}'));
    stream.write(bytes);
    stream.write(frame('{"id":2}'));
    expect(messages).toEqual([{ id: 1 }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(FramingError);
    expect(errors[0]!.message).toMatch(reason);
    expect(closed()).toBe(1);
  });

  it('waits for the rest of a frame, and closes without an error when the input ends first', () => {
    const { stream, messages, errors, closed } = reader();
    const whole = frame('{"id":1,"method":"a"}');
    stream.write(whole.subarray(0, 10));
    stream.write(whole.subarray(10, 30));
    expect(messages).toEqual([]);
    expect(closed()).toBe(0);
    stream.end();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(closed()).toBe(1);
        expect(errors).toEqual([]);
        resolve();
      }),
    );
  });

  it('reports a failing listener and reads the next frame', () => {
    const stream = new PassThrough();
    const errors: Error[] = [];
    const seen: unknown[] = [];
    const r = new FramedMessageReader(stream, () => undefined);
    r.onError((e) => void errors.push(e));
    r.listen((m) => {
      seen.push(m);
      if (seen.length === 1) throw new Error('handler broke');
    });
    stream.write(Buffer.concat([frame('{"id":1}'), frame('{"id":2}')]));
    expect(seen).toEqual([{ id: 1 }, { id: 2 }]);
    expect(errors.map((e) => e.message)).toEqual(['handler broke']);
  });
});
