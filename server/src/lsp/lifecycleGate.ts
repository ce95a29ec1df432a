// Enforces the LSP lifecycle on incoming messages: -32002 before `initialize`, InvalidRequest after `shutdown`, on a second `initialize` or on an id already in flight.
import type { DataCallback, Disposable, Message, MessageReader, MessageWriter, PartialMessageInfo, RequestMessage, ResponseMessage } from 'vscode-jsonrpc/node';
import type { Event } from 'vscode-jsonrpc/node';
import { Emitter, ErrorCodes } from 'vscode-jsonrpc/node';

type Phase = 'uninitialized' | 'running' | 'shutdown';

/** The gate's own marker notification (see `LifecycleGate.drain`); never taken from the client. */
export const DRAIN_METHOD = '$/assistant-ls/drained';

function isObject(message: unknown): message is Partial<RequestMessage> {
  return typeof message === 'object' && message !== null && !Array.isArray(message);
}

function hasId(message: Partial<RequestMessage>): message is Partial<RequestMessage> & { id: number | string } {
  return typeof message.id === 'number' || typeof message.id === 'string';
}

/**
 * Reads `[x]` as `x`, and `null` or `[]` as no parameters. Trailing nulls go first: vscode-jsonrpc sends
 * `sendRequest(method, params, undefined)` (a client passing an absent cancellation token) as `[params, null]`.
 */
function normalizeParams(request: RequestMessage): RequestMessage {
  let params: unknown = request.params;
  if (Array.isArray(params)) {
    let length = params.length;
    while (length > 1 && params[length - 1] === null) length--;
    if (length <= 1) params = params[0];
  }
  if (params === null) params = undefined;
  if (params === request.params) return request;
  const copy: Record<string, unknown> = { ...request };
  delete copy.params;
  return (params === undefined ? copy : { ...copy, params }) as unknown as RequestMessage;
}

function idKey(id: number | string | null): string {
  return `${typeof id}:${String(id)}`;
}

function isRequest(message: unknown): message is RequestMessage {
  return isObject(message) && typeof message.method === 'string' && hasId(message);
}

function isNotification(message: unknown): message is Message & { method: string } {
  return isObject(message) && typeof message.method === 'string' && message.id === undefined;
}

/**
 * Sits between the transport and the connection. The library dispatches every request it has a
 * handler for; the specification wants requests refused before `initialize` and after `shutdown`.
 */
export class LifecycleGate implements MessageReader {
  private phase: Phase = 'uninitialized';
  /**
   * The ids of the requests passed on and not answered yet (`typeof:id`: 1 and "1" are two ids). The library keeps
   * one record per id, so a second request with the id of one in flight would take over its record and one of the
   * two would never be answered; it is refused instead, and the first is answered as usual.
   */
  private readonly inFlight = new Set<string>();

  /** The connection's callback, once it listens: `drain` puts its marker in the same queue. */
  private callback: DataCallback | undefined;
  private readonly drains: (() => void)[] = [];
  /** What must finish before `exit` reaches the library, which ends the process at once (see `beforeExit`). */
  private settle: (() => Promise<void>) | undefined;
  private closeHeld: Emitter<void> | undefined;

  constructor(
    private readonly inner: MessageReader,
    private readonly writer: MessageWriter,
  ) {}

  get onError(): Event<Error> {
    return this.inner.onError;
  }
  /**
   * The transport's close, told to the connection only once the session has settled (see `beforeExit`): until then the
   * messages read before it are handled as in a live session, and what their handlers send is written or lost quietly,
   * not refused with "Connection is closed".
   */
  get onClose(): Event<void> {
    if (!this.closeHeld) {
      this.closeHeld = new Emitter<void>();
      const held = this.closeHeld;
      this.inner.onClose(() => void (this.settle?.() ?? Promise.resolve()).finally(() => held.fire()));
    }
    return this.closeHeld.event;
  }
  get onPartialMessage(): Event<PartialMessageInfo> {
    return this.inner.onPartialMessage;
  }

  /** Whether `shutdown` was received, which decides the exit code. */
  get shutdownReceived(): boolean {
    return this.phase === 'shutdown';
  }

  /**
   * Resolves once every message read so far has been dispatched: a marker notification (DRAIN_METHOD) goes into the
   * connection's queue behind them, and the connection's handler for it calls `drained`. The library dispatches in
   * order, one message at a time.
   */
  drain(): Promise<void> {
    const callback = this.callback;
    if (!callback) return Promise.resolve();
    return new Promise((resolve) => {
      this.drains.push(resolve);
      callback({ jsonrpc: '2.0', method: DRAIN_METHOD } as Message);
    });
  }

  /** The marker of the oldest `drain` was dispatched. */
  drained(): void {
    this.drains.shift()?.();
  }

  /** `exit` is passed on only after `settle` has finished (the library exits the process as it dispatches it). */
  beforeExit(settle: () => Promise<void>): void {
    this.settle = settle;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    return this.inner.listen((received) => {
      let message = received;
      if (isObject(message) && hasId(message) && 'method' in message && typeof message.method !== 'string') {
        this.refuse(message as RequestMessage, ErrorCodes.InvalidRequest, 'Invalid request: "method" must be a string.');
        return;
      }
      if (isRequest(message)) {
        if (this.phase === 'uninitialized' && message.method !== 'initialize') {
          this.refuse(message, ErrorCodes.ServerNotInitialized, `The server is not initialized: send "initialize" before "${message.method}".`);
          return;
        }
        if (this.phase === 'shutdown') {
          this.refuse(message, ErrorCodes.InvalidRequest, `The server is shutting down: only "exit" is accepted after "shutdown", not "${message.method}".`);
          return;
        }
        if (message.method === 'initialize' && this.phase === 'running') {
          this.refuse(message, ErrorCodes.InvalidRequest, 'The server is already initialized: "initialize" is sent once.');
          return;
        }
        // Every method here takes one parameter object. vscode-jsonrpc sends a lone non-object parameter by position
        // (`shutdown` with `[null]`), so `[x]` is read as `x`, and null or `[]` as no parameters; other arrays would
        // be spread into the handler's arguments, and a number or string is no parameter object.
        const request = normalizeParams(message);
        if (request.params !== undefined && !isObject(request.params)) {
          this.refuse(request, ErrorCodes.InvalidParams, `"${request.method}" takes its parameters as an object.`);
          return;
        }
        if (request.method === 'initialize' && request.params === undefined) {
          this.refuse(request, ErrorCodes.InvalidParams, '"initialize" needs its parameters (InitializeParams).');
          return;
        }
        const key = idKey(request.id);
        if (this.inFlight.has(key)) {
          this.refuse(request, ErrorCodes.InvalidRequest, `Invalid request: id ${JSON.stringify(request.id)} is already used by a request in flight; each request needs an id of its own.`);
          return;
        }
        this.inFlight.add(key);
        if (request.method === 'initialize') this.phase = 'running';
        else if (request.method === 'shutdown') this.phase = 'shutdown';
        message = request;
      } else if (isNotification(message) && message.method !== 'exit') {
        // Notifications other than exit are dropped before initialize and after shutdown, and so are those whose
        // params are not an object (there is no one to tell: a notification has no answer).
        if (this.phase !== 'running') return;
        const notification = normalizeParams(message as RequestMessage);
        if (notification.params !== undefined && !isObject(notification.params)) return;
        // The library reads `params.id` of a cancel without looking; one with no usable id cancels nothing.
        if (notification.method === '$/cancelRequest' && !(isObject(notification.params) && hasId(notification.params))) return;
        // Only the gate's own marker drains; one from the client is nobody's.
        if (notification.method === DRAIN_METHOD) return;
        message = notification;
      } else if (isNotification(message) && this.settle) {
        // exit: the session settles first, as when the input ends; a client that sent exit without waiting for the
        // answer to shutdown loses nothing.
        const exit = message;
        void this.settle().finally(() => callback(exit));
        return;
      }
      callback(message);
    });
  }

  dispose(): void {
    this.inner.dispose();
  }

  /**
   * The writer the connection answers through: each answer it writes frees its request's id for reuse. (The gate's
   * own refusals go straight to the transport: refusing a duplicate must not free the id of the request in flight.)
   */
  answers(): MessageWriter {
    const writer = this.writer;
    return {
      onError: writer.onError,
      onClose: writer.onClose,
      write: (message: Message): Promise<void> => {
        const response = message as Partial<ResponseMessage> & { method?: unknown };
        if (response.method === undefined && (typeof response.id === 'number' || typeof response.id === 'string')) this.inFlight.delete(idKey(response.id));
        return writer.write(message);
      },
      end: () => writer.end(),
      dispose: () => writer.dispose(),
    };
  }

  private refuse(request: RequestMessage, code: number, message: string): void {
    const response: ResponseMessage = { jsonrpc: '2.0', id: request.id, error: { code, message } };
    void this.writer.write(response).catch(() => undefined);
  }
}
