// The server's own progress (a code action's agents, a project check) as a notification with a Cancel button when the server says the work can be cancelled.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { WorkDoneProgress, WorkDoneProgressCancelNotification, WorkDoneProgressCreateRequest } from 'vscode-languageclient/node';

/**
 * Shows every progress the server creates. vscode-languageclient 9 shows it in the status bar, where it cannot be
 * cancelled whatever `cancellable` says; here cancellable work gets a notification whose Cancel button sends
 * `window/workDoneProgress/cancel`, and other work stays in the status bar. Registered on a started client, this
 * handler takes the place of the library's.
 */
export function showServerProgress(client: LanguageClient): vscode.Disposable {
  const following = new Set<vscode.Disposable>();
  const registration = client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    let report: ((message: string | undefined, percentage: number | undefined) => void) | undefined;
    let finish: (() => void) | undefined;
    let reported = 0;
    const subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind === 'begin') {
        const cancellable = value.cancellable === true;
        void vscode.window.withProgress({ location: cancellable ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window, title: value.title, cancellable }, (progress, cancel) => {
          cancel.onCancellationRequested(() => void client.sendNotification(WorkDoneProgressCancelNotification.type, { token }));
          // VS Code adds increments up; the server reports where the work is.
          report = (message, percentage) => {
            const increment = percentage === undefined ? undefined : Math.max(0, percentage - reported);
            if (percentage !== undefined) reported = Math.max(reported, percentage);
            progress.report({ message, increment });
          };
          report(value.message, value.percentage);
          return new Promise<void>((resolve) => (finish = resolve));
        });
      } else if (value.kind === 'report') {
        report?.(value.message, value.percentage);
      } else {
        finish?.();
        subscription.dispose();
        following.delete(subscription);
      }
    });
    following.add(subscription);
    return null;
  });
  return new vscode.Disposable(() => {
    registration.dispose();
    for (const subscription of following) subscription.dispose();
  });
}
