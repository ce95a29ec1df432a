// Reads base-protocol frames (`Content-Length` headers + JSON body) from a byte stream with explicit limits: a bad body is answered and skipped, framing that cannot be trusted closes the stream.
import type { Readable } from 'node:stream';
import { TextDecoder } from 'node:util';
import { AbstractMessageReader, ErrorCodes } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable, Message, ResponseMessage } from 'vscode-jsonrpc/node';

/** The largest message body accepted; a frame announcing more closes the stream (see docs/protocol.md, "Robustness"). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/**
 * The largest request body served: a request (a message with an id and a method) over it is answered with
 * InvalidRequest and not run. Documents come in notifications, which only {@link MAX_MESSAGE_BYTES} bounds; a request
 * carries a question, a command's arguments or a position, and one this large is a mistake or an attack, which must
 * neither hold the server nor fill its memory.
 */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
/** The longest header section accepted; real headers are a few dozen bytes. */
export const MAX_HEADER_BYTES = 8 * 1024;

const TERMINATOR = Buffer.from('\r\n\r\n', 'latin1');
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** The stream's framing cannot be trusted any more: no later frame boundary can be found with certainty. */
export class FramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FramingError';
  }
}

/**
 * vscode-jsonrpc's stream reader fires an error on a bad header and then goes on reading from wherever it
 * stopped, so a corrupted stream leaves the server silent forever, and it takes any `Content-Length` at its word.
 * This reader decides instead: a frame whose header is sound but whose body is not a JSON object is answered with
 * -32700 / -32600 (id null, as JSON-RPC 2.0 says) and skipped; a header it cannot parse, a missing or conflicting
 * `Content-Length`, one over {@link MAX_MESSAGE_BYTES}, or a header section over {@link MAX_HEADER_BYTES} fires a
 * {@link FramingError} and closes, and the caller ends the process.
 */
export class FramedMessageReader extends AbstractMessageReader {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private bodyLength: number | undefined;
  private callback: DataCallback | undefined;
  private stopped = false;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly stream: Readable,
    /** Sends a response the reader itself owes (a body that is not JSON, or JSON that is not a message). */
    private readonly answer: (response: ResponseMessage) => void,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (data: Buffer | string): void => this.onData(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    const onError = (error: Error): void => this.fireError(error);
    const onClose = (): void => this.stop();
    this.stream.on('data', onData);
    this.stream.on('error', onError);
    this.stream.on('end', onClose);
    this.stream.on('close', onClose);
    this.listeners.push(() => {
      this.stream.off('data', onData);
      this.stream.off('error', onError);
      this.stream.off('end', onClose);
      this.stream.off('close', onClose);
    });
    return { dispose: () => this.detach() };
  }

  override dispose(): void {
    this.detach();
    super.dispose();
  }

  private detach(): void {
    for (const remove of this.listeners.splice(0)) remove();
    this.callback = undefined;
  }

  /** Ends reading once: on a framing error, or when the stream ends. */
  private stop(error?: FramingError): void {
    if (this.stopped) return;
    this.stopped = true;
    this.chunks.length = 0;
    this.buffered = 0;
    this.detach();
    if (error) this.fireError(error);
    this.fireClose();
  }

  private onData(data: Buffer): void {
    if (this.stopped || data.length === 0) return;
    this.chunks.push(data);
    this.buffered += data.length;
    try {
      while (!this.stopped) {
        if (this.bodyLength === undefined) {
          const length = this.readHeaders();
          if (length === undefined) return;
          this.bodyLength = length;
        }
        if (this.buffered < this.bodyLength) return;
        const body = this.take(this.bodyLength);
        this.bodyLength = undefined;
        this.deliver(body);
      }
    } catch (error) {
      this.stop(error instanceof FramingError ? error : new FramingError(`unreadable input: ${(error as Error).message}`));
    }
  }

  /** The body length announced by a complete header section, consumed; undefined while the section is incomplete. */
  private readHeaders(): number | undefined {
    const head = this.peek(Math.min(this.buffered, MAX_HEADER_BYTES + TERMINATOR.length));
    const end = head.indexOf(TERMINATOR);
    if (end < 0) {
      if (this.buffered >= MAX_HEADER_BYTES + TERMINATOR.length) throw new FramingError(`no end of headers ("\\r\\n\\r\\n") within ${MAX_HEADER_BYTES} bytes`);
      return undefined;
    }
    let length: number | undefined;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const match = HEADER_LINE.exec(line);
      if (!match) throw new FramingError(`malformed header line ${JSON.stringify(line.slice(0, 80))}`);
      if ((match[1] as string).toLowerCase() !== 'content-length') continue;
      const value = match[2] as string;
      if (!/^\d{1,16}$/.test(value)) throw new FramingError(`Content-Length is not a byte count: ${JSON.stringify(value.slice(0, 40))}`);
      const parsed = Number(value);
      if (length !== undefined && parsed !== length) throw new FramingError(`conflicting Content-Length headers (${length} and ${parsed})`);
      length = parsed;
    }
    if (length === undefined) throw new FramingError('a header section without Content-Length');
    if (length > MAX_MESSAGE_BYTES) throw new FramingError(`a message of ${length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
    this.take(end + TERMINATOR.length);
    return length;
  }

  /** Parses one body and hands it on; a body that is not a JSON object is answered here and dropped. */
  private deliver(body: Buffer): void {
    let message: unknown;
    try {
      // Invalid UTF-8 becomes U+FFFD, as in vscode-jsonrpc; the JSON is then judged as it reads.
      message = JSON.parse(this.decoder.decode(body));
    } catch (error) {
      this.answer({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.ParseError, message: `Parse error: the message body is not JSON (${(error as Error).message}).` } });
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.answer({ jsonrpc: '2.0', id: null, error: { code: ErrorCodes.InvalidRequest, message: `Invalid request: a message is a JSON object, not ${Array.isArray(message) ? 'an array (batches are not part of LSP)' : JSON.stringify(message)?.slice(0, 40)}.` } });
      return;
    }
    const request = message as { id?: unknown; method?: unknown };
    if (body.length > MAX_REQUEST_BYTES && typeof request.method === 'string' && (typeof request.id === 'number' || typeof request.id === 'string')) {
      const size = `${(body.length / 1024 / 1024).toFixed(1)} MiB`;
      this.answer({ jsonrpc: '2.0', id: request.id, error: { code: ErrorCodes.InvalidRequest, message: `Invalid request: "${request.method.slice(0, 80)}" is ${size}, over the ${MAX_REQUEST_BYTES / 1024 / 1024} MiB limit for one request; send less (a document goes in textDocument/didOpen, not in a request).` } });
      return;
    }
    try {
      this.callback?.(message as Message);
    } catch (error) {
      // A handler's failure is reported, and the next frame is read as usual.
      this.fireError(error as Error);
    }
  }

  /** The first `count` buffered bytes, without consuming them. */
  private peek(count: number): Buffer {
    const first = this.chunks[0];
    if (!first) return Buffer.alloc(0);
    if (first.length >= count) return first.subarray(0, count);
    const parts: Buffer[] = [];
    let length = 0;
    for (const chunk of this.chunks) {
      parts.push(chunk);
      length += chunk.length;
      if (length >= count) break;
    }
    return Buffer.concat(parts, length).subarray(0, count);
  }

  /** Removes and returns the first `count` buffered bytes (one copy at most). */
  private take(count: number): Buffer {
    if (count === 0) return Buffer.alloc(0);
    const first = this.chunks[0] as Buffer;
    let result: Buffer;
    if (first.length >= count) {
      result = first.subarray(0, count);
      if (first.length === count) this.chunks.shift();
      else this.chunks[0] = first.subarray(count);
    } else {
      result = Buffer.allocUnsafe(count);
      let filled = 0;
      while (filled < count) {
        const chunk = this.chunks[0] as Buffer;
        const part = Math.min(chunk.length, count - filled);
        chunk.copy(result, filled, 0, part);
        filled += part;
        if (part === chunk.length) this.chunks.shift();
        else this.chunks[0] = chunk.subarray(part);
      }
    }
    this.buffered -= count;
    return result;
  }
}
