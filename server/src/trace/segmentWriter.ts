// This session's segments: loaded at open, the one to append to chosen (a new one when full), and each change made durable.
import * as fsp from 'node:fs/promises';
import { createSegment, listSegmentsLater, SEGMENT_FORMAT, type Segment, type SegmentContext } from './segmentFiles.js';
import { SegmentAppender, type LogEntry } from './segmentLog.js';

/** The only writer of `<trace>/<session>/`: other sessions' folders are never written to. */
export class SegmentWriter {
  /** This session's segments, oldest first; only the last one is appended to. */
  private readonly ownSegments: Segment[] = [];
  private nextSegmentIndex = 1;

  constructor(
    private readonly sessionDirectory: string,
    /** Interactions per segment file before a new one starts. */
    private readonly segmentSize: number,
    private readonly context: SegmentContext,
  ) {}

  /** This session's own segments (when it continues a session id), oldest first: appends continue the last one. */
  async load(): Promise<Segment[]> {
    const session = this.context.session;
    for (const { index, log } of await listSegmentsLater(this.sessionDirectory)) {
      const segment = createSegment(session.id, index, this.sessionDirectory, log, this.context);
      const data = await segment.adapter.read();
      this.nextSegmentIndex = Math.max(this.nextSegmentIndex, index + 1);
      if (data === null) continue;
      segment.db.data = data;
      this.ownSegments.push(segment);
    }
    // A log left by an earlier process of this session is continued; the others are rewritten whole on the rare update.
    const last = this.ownSegments.at(-1);
    if (last?.log) last.appender = new SegmentAppender(last.filePath, this.sessionDirectory, session);
    return [...this.ownSegments];
  }

  /**
   * This session's segment to append to: a log, started anew when the last one is full, is not a log, or could not be
   * written to (see `SegmentAppender.broken`).
   */
  async appendTarget(): Promise<{ segment: Segment; created: boolean }> {
    const last = this.ownSegments.at(-1);
    if (last?.appender && !last.appender.broken && last.db.data.interactions.length < this.segmentSize) return { segment: last, created: false };
    if (last === undefined) await fsp.mkdir(this.sessionDirectory, { recursive: true });
    this.stopAppending(last);
    const session = this.context.session;
    const segment = createSegment(session.id, this.nextSegmentIndex, this.sessionDirectory, true, this.context);
    segment.db.data = { format: SEGMENT_FORMAT, session, interactions: [] };
    segment.appender = new SegmentAppender(segment.filePath, this.sessionDirectory, session);
    this.nextSegmentIndex += 1;
    this.ownSegments.push(segment);
    return { segment, created: true };
  }

  /** Undoes `appendTarget` when it started the segment a failed write was for. */
  dropIfCreated(created: boolean): void {
    if (!created) return;
    this.stopAppending(this.ownSegments.pop());
    this.nextSegmentIndex -= 1;
  }

  /**
   * Makes a change to a segment's data durable: one line appended to the segment being appended to, otherwise the
   * segment rewritten whole (a temp file renamed over it), which also ends appending to it. `onWritten` runs once the
   * change is in the file: after the line's write, before its `fdatasync`; after the whole rewrite.
   */
  async persist(segment: Segment, entry: LogEntry | readonly LogEntry[], onWritten?: () => void): Promise<void> {
    if (segment.appender && !segment.appender.broken) return segment.appender.append(entry, onWritten);
    this.stopAppending(segment);
    await segment.db.write();
    onWritten?.();
  }

  /** Ends appending to the last segment, as the store closes. */
  close(): void {
    this.stopAppending(this.ownSegments.at(-1));
  }

  private stopAppending(segment: Segment | undefined): void {
    segment?.appender?.close();
    if (segment) delete segment.appender;
  }
}
