// The worker thread that type-checks open documents for the server's own diagnostics, on ts-morph projects of its own, so the main thread never waits for a check.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { WorkspaceProjects } from '../repo/workspaceProject.js';
import type { WorkspaceProject } from '../repo/workspaceProject.js';
import { CHECKER_NICE, type CheckReply, type CheckRequest, type CheckerThreadData } from './checkerThread.js';
import { DiskRefresh } from './diskRefresh.js';
import { diagnosticsOf } from './typeCheck.js';

const port = parentPort;
if (!port) throw new Error('diagnosticsWorker.js runs only as a worker thread');

/**
 * Lowers this thread's priority, on Linux, where a thread is a task of its own to the scheduler: a check (seconds,
 * the first one, which parses the default library) then takes a core only when the main thread and the editor leave
 * one, instead of sharing it with them. Elsewhere, or where it is not allowed, the thread keeps the process's priority.
 */
function yieldToForeground(): void {
  try {
    const tid = Number(/\/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    // Never above the priority it was started with: a server started under `nice 15` stays there.
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.max(os.getPriority(tid), CHECKER_NICE));
  } catch {
    // Not Linux, or not permitted: the check runs at the process's priority.
  }
}
yieldToForeground();
const projects = new WorkspaceProjects((workerData as CheckerThreadData).root);
// Only this thread uses its projects, so each can follow the disk: a file saved since its last check is read again.
const disks = new Map<WorkspaceProject, DiskRefresh>();

function diskOf(project: WorkspaceProject): DiskRefresh {
  let disk = disks.get(project);
  if (!disk) disks.set(project, (disk = new DiskRefresh(() => project.tsProject())));
  return disk;
}

// Requests come one at a time (the main thread sends the next after this reply), so the check of a document is never
// queued behind checks of versions nobody wants any more.
port.on('message', (request: CheckRequest) => {
  let reply: CheckReply;
  try {
    const project = projects.forFile(request.fsPath);
    const disk = diskOf(project);
    disk.refresh();
    reply = { id: request.id, diagnostics: diagnosticsOf(project, request.fsPath, request.text, (program) => disk.checkedOn(program)) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
