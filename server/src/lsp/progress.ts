// Work-done progress: on the client's token or one the server creates, with cancellation from the progress UI.
import { randomUUID } from 'node:crypto';
import type { Connection } from 'vscode-languageserver/node';
import { WorkDoneProgress, WorkDoneProgressCancelNotification, WorkDoneProgressCreateRequest } from 'vscode-languageserver/node';
import type { ProgressToken, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport } from 'vscode-languageserver/node';
import type { ProgressSink } from '../editorPort.js';
import { DEFAULT_SETTINGS } from '../protocol.js';

export interface ProgressHandle extends ProgressSink {
  done(message?: string): void;
}

const silent: ProgressHandle = { report: () => undefined, done: () => undefined };

/** The shortest time between two progress reports of one piece of work (the first is sent at once). */
export const REPORT_INTERVAL_MS = 100;

/**
 * One table of running progress tokens, so the cancel button of any of them (client- or
 * server-created) aborts the work; the library alone only honours the tokens it created.
 */
export class ProgressTracker {
  private readonly running = new Map<ProgressToken, () => void>();
  private supported = false;
  private showAfterMs = DEFAULT_SETTINGS.progress.showAfterMs;

  constructor(private readonly connection: Connection) {}

  /** Called once the client's capabilities are known; replaces the library's cancel handler. */
  enable(clientSupportsProgress: boolean): void {
    this.supported = clientSupportsProgress;
    this.connection.onNotification(WorkDoneProgressCancelNotification.type, (params) => this.running.get(params.token)?.());
  }

  /** How long work runs before its progress is shown (the `progress.showAfterMs` setting); 0 shows it at once. */
  configure(showAfterMs: number): void {
    this.showAfterMs = showAfterMs;
  }

  /**
   * Starts a progress report; `onCancel` runs when the user cancels it in the editor. Nothing is sent for work that
   * ends within `showAfterMs`: a progress bar that flashes tells nobody anything, and each message is one more the
   * editor must handle. Once the work has run that long, a token the server creates is asked for without waiting: the
   * work goes on, and what it reports is sent, in order, once the client has accepted the token (never before, as the
   * protocol requires; nothing at all if it refuses). The latest report made while waiting follows the begin.
   */
  begin(clientToken: ProgressToken | undefined, title: string, onCancel: () => void): ProgressHandle {
    if (clientToken === undefined && !this.supported) return silent;
    if (this.showAfterMs <= 0) return this.show(clientToken, title, onCancel);
    let shown: ProgressHandle | undefined;
    let ended = false;
    let heldMessage: string | undefined;
    let highest: number | undefined;
    const waiting = setTimeout(() => {
      shown = this.show(clientToken, title, onCancel);
      if (heldMessage !== undefined) shown.report(heldMessage, highest);
    }, this.showAfterMs);
    // A client's own token can be cancelled before anything is shown on it.
    if (clientToken !== undefined) this.running.set(clientToken, onCancel);
    return {
      report: (message, percentage) => {
        if (ended) return;
        if (shown) return shown.report(message, percentage);
        if (percentage !== undefined) highest = Math.max(highest ?? 0, percentage);
        heldMessage = message;
      },
      done: (message) => {
        if (ended) return;
        ended = true;
        if (shown) return shown.done(message);
        clearTimeout(waiting);
        if (clientToken !== undefined) this.running.delete(clientToken);
      },
    };
  }

  /** Shows progress now: asks for a token when the client gave none, then begin, throttled reports, and end. */
  private show(clientToken: ProgressToken | undefined, title: string, onCancel: () => void): ProgressHandle {
    let token = clientToken;
    let ready: Promise<boolean> = Promise.resolve(true);
    if (token === undefined) {
      token = randomUUID();
      try {
        ready = this.connection.sendRequest(WorkDoneProgressCreateRequest.type, { token }).then(
          () => true,
          () => false,
        );
      } catch {
        // A connection already closed throws at once: the work goes on without progress.
        return silent;
      }
    }
    const active = token;
    this.running.set(active, onCancel);
    // Every message goes through one chain, so begin, reports and end keep their order whenever the token is ready.
    let chain = ready;
    const send = (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void => {
      chain = chain.then((accepted) => {
        if (accepted) this.send(active, value);
        return accepted;
      });
    };
    // No percentage at the start: the work is measured only where a report says how much is done (fixes of a list),
    // never by a figure that stands still while a model writes.
    send({ kind: 'begin', title, cancellable: true });
    let last: number | undefined;
    let ended = false;
    // Reports are throttled: the first goes at once, later ones at most every REPORT_INTERVAL_MS, the latest winning.
    // A stage that ends sooner is one nobody could read, and each report is a message the editor must handle.
    let reportedAt: number | undefined;
    let held: WorkDoneProgressReport | undefined;
    let timer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      timer = undefined;
      if (ended || held === undefined) return;
      reportedAt = performance.now();
      send(held);
      held = undefined;
    };
    return {
      report: (message, percentage) => {
        if (ended) return;
        // Percentages never go back; a report without one says nothing of how much is done.
        const measured = percentage === undefined ? undefined : Math.max(last ?? 0, Math.min(100, Math.round(percentage)));
        if (measured !== undefined) last = measured;
        held = { kind: 'report', message, ...(measured !== undefined ? { percentage: measured } : {}) };
        const since = reportedAt === undefined ? Infinity : performance.now() - reportedAt;
        if (since >= REPORT_INTERVAL_MS) flush();
        else timer ??= setTimeout(flush, REPORT_INTERVAL_MS - since);
      },
      done: (message) => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        this.running.delete(active);
        send({ kind: 'end', ...(message ? { message } : {}) });
      },
    };
  }

  /** Progress is best effort: a client that went away must not turn into an unhandled rejection. */
  private send(token: ProgressToken, value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd): void {
    try {
      void this.connection.sendProgress(WorkDoneProgress.type, token, value).catch(() => undefined);
    } catch {
      // The connection closed: there is nobody left to tell.
    }
  }
}
