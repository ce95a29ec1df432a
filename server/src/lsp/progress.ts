// Work-done progress: on the client's token or one the server creates, with cancellation from the progress UI.
import { randomUUID } from 'node:crypto';
import type { Connection } from 'vscode-languageserver/node';
import { WorkDoneProgress, WorkDoneProgressCancelNotification, WorkDoneProgressCreateRequest } from 'vscode-languageserver/node';
import type { ProgressToken, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport } from 'vscode-languageserver/node';
import type { ProgressSink } from '../editorPort.js';

export interface ProgressHandle extends ProgressSink {
  done(message?: string): void;
}

const silent: ProgressHandle = { report: () => undefined, done: () => undefined };

/**
 * One table of running progress tokens, so the cancel button of any of them (client- or
 * server-created) aborts the work; the library alone only honours the tokens it created.
 */
export class ProgressTracker {
  private readonly running = new Map<ProgressToken, () => void>();
  private supported = false;

  constructor(private readonly connection: Connection) {}

  /** Called once the client's capabilities are known; replaces the library's cancel handler. */
  enable(clientSupportsProgress: boolean): void {
    this.supported = clientSupportsProgress;
    this.connection.onNotification(WorkDoneProgressCancelNotification.type, (params) => this.running.get(params.token)?.());
  }

  /** Starts a progress report; `onCancel` runs when the user cancels it in the editor. */
  async begin(clientToken: ProgressToken | undefined, title: string, onCancel: () => void, signal: AbortSignal): Promise<ProgressHandle> {
    let token = clientToken;
    if (token === undefined) {
      if (!this.supported) return silent;
      token = randomUUID();
      try {
        await this.connection.sendRequest(WorkDoneProgressCreateRequest.type, { token });
      } catch {
        return silent;
      }
      if (signal.aborted) return silent;
    }
    const active = token;
    this.running.set(active, onCancel);
    this.send(active, { kind: 'begin', title, cancellable: true, percentage: 0 });
    let last = 0;
    let ended = false;
    return {
      report: (message, percentage) => {
        if (ended) return;
        if (percentage !== undefined) last = Math.max(last, Math.min(100, Math.round(percentage)));
        this.send(active, { kind: 'report', message, percentage: last });
      },
      done: (message) => {
        if (ended) return;
        ended = true;
        this.running.delete(active);
        this.send(active, { kind: 'end', ...(message ? { message } : {}) });
      },
    };
  }

  /** Progress is best effort: a client that went away must not turn into an unhandled rejection. */
  private send(token: ProgressToken, value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void {
    void this.connection.sendProgress(WorkDoneProgress.type, token, value).catch(() => undefined);
  }
}
