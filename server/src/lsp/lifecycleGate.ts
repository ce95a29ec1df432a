// Enforces the LSP lifecycle on incoming messages: -32002 before `initialize`, InvalidRequest after `shutdown`.
import type { DataCallback, Disposable, Message, MessageReader, MessageWriter, PartialMessageInfo, RequestMessage, ResponseMessage } from 'vscode-jsonrpc/node';
import type { Event } from 'vscode-jsonrpc/node';
import { ErrorCodes } from 'vscode-jsonrpc/node';

type Phase = 'uninitialized' | 'running' | 'shutdown';

function isRequest(message: Message): message is RequestMessage {
  const m = message as Partial<RequestMessage>;
  return typeof m.method === 'string' && (typeof m.id === 'number' || typeof m.id === 'string');
}

function isNotification(message: Message): message is Message & { method: string } {
  const m = message as Partial<RequestMessage>;
  return typeof m.method === 'string' && m.id === undefined;
}

/**
 * Sits between the transport and the connection. The library dispatches every request it has a
 * handler for; the specification wants requests refused before `initialize` and after `shutdown`.
 */
export class LifecycleGate implements MessageReader {
  private phase: Phase = 'uninitialized';

  constructor(
    private readonly inner: MessageReader,
    private readonly writer: MessageWriter,
  ) {}

  get onError(): Event<Error> {
    return this.inner.onError;
  }
  get onClose(): Event<void> {
    return this.inner.onClose;
  }
  get onPartialMessage(): Event<PartialMessageInfo> {
    return this.inner.onPartialMessage;
  }

  /** Whether `shutdown` was received, which decides the exit code. */
  get shutdownReceived(): boolean {
    return this.phase === 'shutdown';
  }

  listen(callback: DataCallback): Disposable {
    return this.inner.listen((message) => {
      if (isRequest(message)) {
        if (this.phase === 'uninitialized' && message.method !== 'initialize') {
          this.refuse(message, ErrorCodes.ServerNotInitialized, `The server is not initialized: send "initialize" before "${message.method}".`);
          return;
        }
        if (this.phase === 'shutdown') {
          this.refuse(message, ErrorCodes.InvalidRequest, `The server is shutting down: only "exit" is accepted after "shutdown", not "${message.method}".`);
          return;
        }
        if (message.method === 'initialize') this.phase = 'running';
        else if (message.method === 'shutdown') this.phase = 'shutdown';
      } else if (isNotification(message) && message.method !== 'exit' && this.phase !== 'running') {
        // Notifications other than exit are dropped before initialize and after shutdown.
        return;
      }
      callback(message);
    });
  }

  dispose(): void {
    this.inner.dispose();
  }

  private refuse(request: RequestMessage, code: number, message: string): void {
    const response: ResponseMessage = { jsonrpc: '2.0', id: request.id, error: { code, message } };
    void this.writer.write(response).catch(() => undefined);
  }
}
