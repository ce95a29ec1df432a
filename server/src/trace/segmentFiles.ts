// A trace segment file: the shape of its content, its name, the segments a session's folder holds, and the handle that reads and writes one.
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { Low } from 'lowdb';
import type { Interaction, TraceSession } from '../protocol.js';
import type { Amendment } from './amendments.js';
import { DurableJsonFile } from './durableJsonFile.js';
import { parseSegmentLog, serializeSegmentLog, type SegmentAppender } from './segmentLog.js';

export const SEGMENT_FORMAT = 1;

/**
 * The content of one segment: a `segment-NNNNNN.jsonl` log (what sessions write) folded, or a whole
 * `segment-NNNNNN.json` document (what earlier versions wrote; still read, and rewritten whole on the rare update).
 */
export interface SegmentFile {
  format: typeof SEGMENT_FORMAT;
  session: TraceSession;
  interactions: Interaction[];
  amendments?: Amendment[];
}

const SEGMENT_NAME = /^segment-(\d{6,})\.json(l?)$/;

export function segmentName(index: number, log: boolean): string {
  return `segment-${String(index).padStart(6, '0')}.json${log ? 'l' : ''}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A light shape check: enough that the store and queries cannot crash on what they read. */
export function isSegmentFile(data: unknown): data is SegmentFile {
  if (!isRecord(data) || data.format !== SEGMENT_FORMAT) return false;
  if (!isRecord(data.session) || typeof data.session.id !== 'string') return false;
  if (!Array.isArray(data.interactions)) return false;
  if (data.amendments !== undefined && !(Array.isArray(data.amendments) && data.amendments.every((a: unknown) => isRecord(a) && typeof a.interactionId === 'string' && typeof a.responseId === 'string' && typeof a.at === 'string' && isRecord(a.patch)))) {
    return false;
  }
  return data.interactions.every(
    (interaction: unknown) =>
      isRecord(interaction) &&
      typeof interaction.id === 'string' &&
      typeof interaction.sessionId === 'string' &&
      typeof interaction.timestamp === 'string' &&
      typeof interaction.text === 'string' &&
      Array.isArray(interaction.responses) &&
      interaction.responses.every(
        (response: unknown) =>
          isRecord(response) &&
          isRecord(response.agent) &&
          typeof response.agent.name === 'string' &&
          typeof response.text === 'string',
      ),
  );
}

export interface Segment {
  sessionId: string;
  index: number;
  filePath: string;
  /** A `.jsonl` log; otherwise a whole `.json` document. */
  log: boolean;
  adapter: DurableJsonFile<SegmentFile>;
  db: Low<SegmentFile>;
  /** Only for other sessions' segments: the file version `db.data` was read from. */
  signature?: string;
  /** Only for the segment this session appends to: a segment without one is rewritten whole. */
  appender?: SegmentAppender;
}

/** What every segment a store opens shares: the store's own session (the content of a segment not read yet) and where warnings go. */
export interface SegmentContext {
  session: TraceSession;
  onWarning: (message: string) => void;
  /** The store only reads (see `TraceStoreOptions.readOnly`): no file is set aside or tidied away. */
  readOnly?: boolean;
}

/** The handle of one segment file of `sessionId`'s folder `directory`; nothing is read until asked. */
export function createSegment(sessionId: string, index: number, directory: string, log: boolean, context: SegmentContext): Segment {
  const filePath = path.join(directory, segmentName(index, log));
  const segment = { sessionId, index, filePath, log } as Segment;
  segment.adapter = new DurableJsonFile<SegmentFile>(filePath, {
    validate: isSegmentFile,
    onWarning: context.onWarning,
    ...(log ? { parse: parseSegmentLog, serialize: serializeSegmentLog } : {}),
  });
  segment.db = new Low<SegmentFile>(segment.adapter, { format: SEGMENT_FORMAT, session: context.session, interactions: [] });
  return segment;
}

/** The segments among a folder's names by index; should an index have both forms, the log. */
function segmentsIn(names: readonly string[]): Array<{ index: number; log: boolean }> {
  const found = new Map<number, boolean>();
  for (const name of names) {
    const match = SEGMENT_NAME.exec(name);
    if (match?.[1] === undefined) continue;
    const index = Number(match[1]);
    found.set(index, found.get(index) === true || match[2] === 'l');
  }
  return [...found].map(([index, log]) => ({ index, log })).sort((a, b) => a.index - b.index);
}

export function listSegments(directory: string): Array<{ index: number; log: boolean }> {
  try {
    return segmentsIn(fs.readdirSync(directory));
  } catch {
    return [];
  }
}

export async function listSegmentsLater(directory: string): Promise<Array<{ index: number; log: boolean }>> {
  try {
    return segmentsIn(await fsp.readdir(directory));
  } catch {
    return [];
  }
}
