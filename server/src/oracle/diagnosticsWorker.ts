// The worker thread that type-checks open documents for the server's own diagnostics, on ts-morph projects of its own, so the main thread never waits for a check.
import { parentPort, workerData } from 'node:worker_threads';
import { WorkspaceProjects } from '../workspace/workspaceProject.js';
import type { WorkspaceProject } from '../workspace/workspaceProject.js';
import type { CheckReply, CheckRequest, CheckerThreadData } from './checkerThread.js';
import { DiskRefresh } from './diskRefresh.js';
import { diagnosticsOf } from './typeCheck.js';

const port = parentPort;
if (!port) throw new Error('diagnosticsWorker.js runs only as a worker thread');

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
