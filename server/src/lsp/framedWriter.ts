// Writes base-protocol frames (`Content-Length` header + JSON body) to a byte stream, each frame in a single write.
import type { Writable } from 'node:stream';
import { AbstractMessageWriter } from 'vscode-jsonrpc/node';
import type { Message, MessageWriter } from 'vscode-jsonrpc/node';

/**
 * vscode-jsonrpc's stream writer sends a frame's header and its body as two writes, the body once the header's write
 * has completed: on a pipe, two system calls and a turn of the event loop per message, and a task sends about ten
 * (progress, `applyEdit`, the answer). This writer sends the frame as one string. Writes reach the stream in the
 * order `write` is called, so frames never interleave. A failed write rejects and is reported through `onError`
 * with the message and a running count, as the library's writer does.
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(
    private readonly stream: Writable,
    /** Run on dispose (a socket is destroyed then). */
    private readonly onDispose?: () => void,
  ) {
    super();
    stream.on('error', (error: Error) => this.fireError(error));
    stream.on('close', () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (error) {
      this.fireError(error);
      return Promise.reject(error);
    }
    const frame = `Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`;
    return new Promise((resolve, reject) => {
      const done = (error: Error | null | undefined): void => {
        if (error === undefined || error === null) {
          resolve();
          return;
        }
        this.errorCount++;
        this.fireError(error, message, this.errorCount);
        reject(error);
      };
      try {
        this.stream.write(frame, 'utf8', done);
      } catch (error) {
        done(error as Error);
      }
    });
  }

  end(): void {
    this.stream.end();
  }

  override dispose(): void {
    super.dispose();
    this.onDispose?.();
  }
}
