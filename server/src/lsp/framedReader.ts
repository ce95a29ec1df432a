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
        const length = this.bodyLength;
        this.bodyLength = undefined;
        if (length > MAX_REQUEST_BYTES) {
          // An oversized request is refused from its pieces, never joined or decoded: a storm of them must not fill
          // the memory. Anything else that large (a document in a notification) is read as usual.
          const pieces = this.takePieces(length);
          const head = requestHead(pieces);
          if (head) this.refuseOversized(head.id, head.method, length);
          else this.deliver(Buffer.concat(pieces, length));
          continue;
        }
        this.deliver(this.take(length));
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
    try {
      this.callback?.(message as Message);
    } catch (error) {
      // A handler's failure is reported, and the next frame is read as usual.
      this.fireError(error as Error);
    }
  }

  private refuseOversized(id: number | string, method: string, bytes: number): void {
    const size = `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
    this.answer({ jsonrpc: '2.0', id, error: { code: ErrorCodes.InvalidRequest, message: `Invalid request: "${method.slice(0, 80)}" is ${size}, over the ${MAX_REQUEST_BYTES / 1024 / 1024} MiB limit for one request; send less (a document goes in textDocument/didOpen, not in a request).` } });
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

  /** Removes the first `count` buffered bytes, as the chunks they arrived in (no copy). */
  private takePieces(count: number): Buffer[] {
    const pieces: Buffer[] = [];
    let left = count;
    while (left > 0) {
      const chunk = this.chunks[0] as Buffer;
      const part = Math.min(chunk.length, left);
      pieces.push(chunk.subarray(0, part));
      if (part === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(part);
      left -= part;
    }
    this.buffered -= count;
    return pieces;
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

/**
 * The first unescaped `"` of `piece` from `from` on (`escapedAtFrom`: the byte at `from` follows a backslash that
 * escapes it), found with `indexOf` rather than byte by byte; -1 when the piece ends first, with whether its last
 * byte leaves the next one escaped.
 */
function closingQuote(piece: Buffer, from: number, escapedAtFrom: boolean): { at: number; escapedAtEnd: boolean } {
  let escapedAtStart = escapedAtFrom;
  for (let start = from; ; ) {
    const quote = piece.indexOf(0x22, start);
    const stop = quote < 0 ? piece.length : quote;
    let run = 0;
    let k = stop - 1;
    while (k >= start && piece[k] === 0x5c) {
      run++;
      k--;
    }
    // A run of backslashes that reaches an escaped start has its first one taken by the escape before it.
    const escaped = k >= start ? run % 2 === 1 : escapedAtStart ? run % 2 === 0 : run % 2 === 1;
    if (quote < 0) return { at: -1, escapedAtEnd: escaped };
    if (!escaped) return { at: quote, escapedAtEnd: false };
    start = quote + 1;
    escapedAtStart = false;
  }
}

/** The string a JSON string's inside (between its quotes) stands for; undefined when it is not one. */
function jsonString(inside: string): string | undefined {
  try {
    return JSON.parse(`"${inside}"`) as string;
  } catch {
    return undefined;
  }
}

/** The longest `id` or `method` value {@link requestHead} reads; longer ones are not a request it can answer. */
const MAX_HEAD_VALUE = 1_024;

/**
 * The `id` and `method` of a JSON object's top level, read from its bytes (`pieces`, in order) in one pass without
 * joining or decoding the rest: strings are stepped over, nested values skipped by depth. Undefined unless both are
 * there, the id a number or a string and the method a string, as in a request. Malformed JSON is left to
 * `JSON.parse`, which says what is wrong.
 */
export function requestHead(pieces: readonly Buffer[]): { id: number | string; method: string } | undefined {
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** The bytes of the string or number being read at the top level, while short enough to matter. */
  let token: number[] | undefined;
  let key: string | undefined;
  let expectValue = false;
  let id: number | string | undefined;
  let method: string | undefined;
  const text = (bytes: number[]): string => Buffer.from(bytes).toString('utf8');
  const endNumber = (): void => {
    if (token && key === 'id') id = Number(text(token));
    token = undefined;
    expectValue = false;
  };
  for (const piece of pieces) {
    for (let i = 0; i < piece.length; i++) {
      if (inString && token === undefined) {
        // A string not read (a key or value below the top, or too long): jump to its closing quote.
        const close = closingQuote(piece, i, escaped);
        escaped = close.escapedAtEnd;
        if (close.at < 0) break;
        i = close.at;
        inString = false;
        if (depth === 1 && !expectValue) key = undefined;
        if (depth === 1) expectValue = false;
        continue;
      }
      const c = piece[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c /* \ */) escaped = true;
        else if (c === 0x22 /* " */) {
          inString = false;
          const value = token ? jsonString(text(token)) : undefined;
          if (value !== undefined) {
            if (!expectValue) key = value;
            else if (key === 'method') method = value;
            else if (key === 'id') id = value;
          } else if (!expectValue) key = undefined;
          token = undefined;
          expectValue = false;
          continue;
        }
        if (token) {
          if (token.length < MAX_HEAD_VALUE) token.push(c);
          else token = undefined;
        }
        continue;
      }
      if (token && depth === 1 && expectValue && !(c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45 || c === 0x65 || (c >= 0x30 && c <= 0x39))) endNumber();
      if (c === 0x22) {
        inString = true;
        token = depth === 1 ? [] : undefined;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        depth++;
        if (depth === 2) expectValue = false;
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        depth--;
      } else if (depth === 1 && c === 0x3a /* : */) {
        expectValue = true;
      } else if (depth === 1 && c === 0x2c /* , */) {
        expectValue = false;
        key = undefined;
      } else if (depth === 1 && expectValue && token === undefined && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
        token = [c];
      } else if (token && depth === 1) {
        token.push(c);
      }
    }
  }
  return id !== undefined && method !== undefined && (typeof id === 'string' || Number.isFinite(id)) ? { id, method } : undefined;
}
