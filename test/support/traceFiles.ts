// Reads trace segment files straight from disk, in either form (a `.jsonl` log or a whole `.json` document), for tests that check what reached the files.
import fs from 'node:fs';
import path from 'node:path';
import { parseSegmentLog } from '../../server/src/trace/segmentLog.js';
import type { SegmentFile } from '../../server/src/trace/segmentFiles.js';
import type { Interaction } from '../../server/src/protocol.js';

export const SEGMENT_FILE = /segment-\d+\.jsonl?$/;

/** A segment file's content; a log's folded like the server folds it (an empty log: no interactions). */
export function readSegment(file: string): SegmentFile {
  const text = fs.readFileSync(file, 'utf8');
  if (!file.endsWith('.jsonl')) return JSON.parse(text) as SegmentFile;
  return parseSegmentLog(text) ?? ({ format: 1, session: { id: path.basename(path.dirname(file)) }, interactions: [] } as unknown as SegmentFile);
}

/** Every segment file under a trace directory (all sessions), as absolute paths. */
export function segmentFiles(traceDirectory: string): string[] {
  if (!fs.existsSync(traceDirectory)) return [];
  return fs
    .readdirSync(traceDirectory, { recursive: true })
    .map(String)
    .filter((file) => SEGMENT_FILE.test(file) && fs.statSync(path.join(traceDirectory, file)).isFile())
    .map((file) => path.join(traceDirectory, file));
}

/** Every interaction of every session under a workspace's trace directory (`.assistant/trace`). */
export function readInteractions(workspace: string): Interaction[] {
  return segmentFiles(path.join(workspace, '.assistant', 'trace')).flatMap((file) => (readSegment(file) as unknown as { interactions: Interaction[] }).interactions);
}
