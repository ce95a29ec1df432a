// Where the code the assistant inserted is now: each recorded insertion moved with the edits the server sees, found again by its text where a file changed unseen, and whether each applied edit reached the disk.
import type { Position, Range } from 'vscode-languageserver-protocol';
import type { InsertionFate, InsertionRecord, InsertionState, Interaction, TraceResponse } from '../protocol.js';
import { changedSpan, lineStarts, offsetToPosition, offsetsToRange, positionToOffset } from '../edits/textEdits.js';
import type { FatePatch, InsertionPatch, ResponsePatch } from './amendments.js';
import type { TraceStore } from './traceStore.js';

/** One change of a text: `[start, end)` of the text before it became `text`. */
export interface TextChange {
  start: number;
  end: number;
  text: string;
}

/** One recorded insertion, with where it is in its file's tracked text. */
interface Tracked {
  interactionId: string;
  responseId: string;
  /** Its index in the response's `insertedAt`. */
  index: number;
  /** The text the edit inserted. */
  text: string;
  created: boolean;
  /** Offsets in the file's tracked text; equal when removed (where it was). */
  start: number;
  end: number;
  removed: boolean;
  /** The response was reverted: its place is kept for the history of the code, and nothing is decided about it. */
  reverted: boolean;
  /** This session decides whether the edit was kept (see `TraceStore.inheritsFrom`). */
  settles: boolean;
  /**
   * Found again only at its very place: a short completion (a word accepted from ghost text) occurs in code
   * everywhere, so its nearest occurrence on a text the tracker did not see change is no evidence of it.
   */
  pinned: boolean;
  /** It does so for a session that ended before it could. */
  inherited: boolean;
  fate?: InsertionFate;
  fateAt?: string;
  /** What it was in the file when the file was last judged here on disk. */
  onDisk?: InsertionState;
  /** What the trace says of it now (its last patch, or the record), to write only what changed. */
  written: string;
}

/** The tracked insertions of one document, on the text their offsets refer to. */
interface TrackedFile {
  text: string;
  items: Tracked[];
  /** `TraceStore.insertionsVersion` when the document's insertions were last read from the trace. */
  seen: number;
}

/** An insertion to put on a text, near where it was (in an older text), holding `expected` (its edited text) or its inserted text. */
interface Placement {
  item: Tracked;
  was: Position;
  expected: string | undefined;
}

/** Why an edit is found discarded, for the user. */
const REASON = {
  removed: 'The inserted code was removed before the file was saved.',
  unsaved: 'The file was closed, or the editor quit, without saving the inserted code.',
  ended: 'The editor session ended without saving the inserted code.',
} as const;

/** An undone removal puts the text back about where it was: looked for this far around the place. */
const REVIVE_SLACK = 64;
/** Below this many characters (white space aside) an insertion's text is too common to be recognised by its text near its place. */
const SHORT_TEXT = 16;

/** Names one insertion: its interaction, response and index in `insertedAt`. */
function key(interactionId: string, responseId: string, index: number): string {
  return `${interactionId}\u0000${responseId}\u0000${index}`;
}

/** What the trace holds for one insertion's tracking fields, as one comparable string. */
function writtenKey(range: Range, state: InsertionState, editedText: string | undefined, fate: InsertionFate | undefined): string {
  return JSON.stringify([range, state, editedText ?? null, fate ?? null]);
}

/** The change with what its old and new text share at both ends taken off (an editor may send a whole line for one character). */
function narrowed(before: string, change: TextChange): TextChange {
  const old = before.slice(change.start, change.end);
  const text = change.text;
  const most = Math.min(old.length, text.length);
  let head = 0;
  while (head < most && old.charCodeAt(head) === text.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < most - head && old.charCodeAt(old.length - 1 - tail) === text.charCodeAt(text.length - 1 - tail)) tail++;
  return { start: change.start + head, end: change.end - tail, text: text.slice(head, text.length - tail) };
}

/**
 * Moves one tracked insertion through one change. Text typed right before or right after it is not part of it; an edit
 * inside it changes its extent; an edit over all of it removes it (its place is then the end of what replaced it).
 * Returns whether the change reached its place.
 */
function moveThrough(item: Tracked, change: TextChange): boolean {
  const { start: s, end: e } = change;
  const length = change.text.length;
  const delta = length - (e - s);
  const a = item.start;
  const b = item.end;
  if (e <= a) {
    item.start += delta;
    item.end += delta;
    return e === a;
  }
  if (item.removed || a === b) {
    // A place, not a span: it stays where it is unless the change took the text around it.
    if (s < a) item.start = item.end = s + length;
    return s <= a;
  }
  if (s >= b) return s === b;
  if (s <= a && e >= b) {
    item.start = item.end = s + length;
    item.removed = true;
    return true;
  }
  if (s >= a && e <= b) item.end += delta;
  else if (s < a) {
    item.start = s + length;
    item.end += delta;
  } else item.end = s;
  return true;
}

/**
 * Whether a change came close enough to a removed insertion's place to have put its text back there: an undo, or the
 * editor's own change for an edit recorded before it came (editors may send a change after answering the edit, and
 * describe it from another place: a line's end where the edit inserted at the next line's start).
 */
function near(item: Tracked, change: TextChange): boolean {
  return item.removed && change.text.length > 0 && change.start <= item.start + REVIVE_SLACK && change.start + change.text.length >= item.start - item.text.length - REVIVE_SLACK;
}

interface Span {
  start: number;
  end: number;
}

/**
 * Where each change's new text lies in the text after all of them (each change on the text the ones before it left).
 * Text typed a key at a time stays as many spans as keys: only a change that puts a whole text back (an undo) holds it.
 */
function insertedSpans(changes: readonly TextChange[]): Span[] {
  let spans: Span[] = [];
  for (const change of changes) {
    const delta = change.text.length - (change.end - change.start);
    spans = spans.flatMap((span) => {
      if (change.end <= span.start) return [{ start: span.start + delta, end: span.end + delta }];
      if (change.start >= span.end) return [span];
      // A later change inside a span cuts it: what is left of it on either side.
      const parts: Span[] = [];
      if (change.start > span.start) parts.push({ start: span.start, end: change.start });
      if (change.end < span.end) parts.push({ start: change.start + change.text.length, end: span.end + delta });
      return parts;
    });
    if (change.text.length > 0) spans.push({ start: change.start, end: change.start + change.text.length });
  }
  return spans;
}

/** The changes, in order, each narrowed on the text the ones before it left. */
function narrowedInOrder(before: string, changes: readonly TextChange[]): TextChange[] {
  let text = before;
  return changes.map((change, index) => {
    const step = narrowed(text, change);
    if (index < changes.length - 1) text = text.slice(0, change.start) + change.text + text.slice(change.end);
    return step;
  });
}

/** The one change that takes `before` to `after`, found by comparing them. */
function wholeChange(before: string, after: string): TextChange {
  const span = changedSpan(before, after);
  return { start: span.start, end: span.beforeEnd, text: after.slice(span.start, span.afterEnd) };
}

/** The offset of the occurrence of `needle` in `text` nearest to `near`, or -1. */
function nearest(text: string, needle: string, near: number): number {
  if (needle === '') return Math.max(0, Math.min(near, text.length));
  let best = -1;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    if (best < 0 || Math.abs(at - near) < Math.abs(best - near)) best = at;
    if (at > near) break;
  }
  return best;
}

/**
 * The positions of the code the assistant inserted, kept in memory per document while the server runs, and the fate
 * of each applied edit. Every change of an open document moves them (`changed`); a save, a close and the end of the
 * session compare them with what reached the disk and write what changed to the trace as amendments (one write per
 * event); a text the tracker did not see change (a file edited while no server ran) is searched for the inserted text.
 */
export class InsertionTracker {
  private readonly files = new Map<string, TrackedFile>();
  /** Every tracked insertion by `key`. */
  private readonly items = new Map<string, Tracked>();
  /** Each response's fate as last written here (the trace's copy may still be on its way). */
  private readonly fates = new Map<string, FatePatch['fate']>();
  /** Amendments being written; queries wait for them, so what they say is in what is read. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly trace: TraceStore,
    /** The text of a document as the editor has it (open) or as the disk has it. */
    private readonly current: (uri: string) => string | undefined,
    /** The text of a file on disk; undefined when there is none. */
    private readonly onDisk: (uri: string) => string | undefined,
    private readonly log: (message: string) => void,
  ) {}

  /** Resolves once every amendment issued so far is written (or has failed, which is logged). */
  idle(): Promise<void> {
    return this.writing;
  }

  /**
   * A document opened or changed in the editor: `before` is its text before the change and `changes` what changed, in
   * the order applied (each on the text the ones before it left); without them, the change is found by comparing.
   */
  changed(uri: string, after: string, before?: string, changes?: readonly TextChange[]): void {
    if (before === undefined) {
      this.sync(uri, after);
      return;
    }
    const file = this.onText(uri, before);
    // An edit recorded before its change came (editors may send it after answering the edit) is anchored after it.
    const { on, later } = this.recordedOn(this.recorded(file, uri), before);
    this.track(file, uri, on, before);
    if (file.items.length === 0) {
      file.text = after;
      this.track(file, uri, later, after);
      return;
    }
    // Each change is on the text the ones before it left (see `LspDocuments`), as the protocol has it.
    const steps = changes ? narrowedInOrder(before, changes) : [wholeChange(before, after)];
    const touched: Tracked[] = [];
    let newlyRemoved = false;
    for (const item of file.items) {
      const wasRemoved = item.removed;
      if (item.created) {
        this.anchor(item, after, 0, undefined);
        continue;
      }
      let reached = false;
      for (const step of steps) reached = moveThrough(item, step) || near(item, step) || reached;
      if (reached && item.removed) touched.push(item);
      if (!wasRemoved && item.removed && item.settles && !item.reverted && item.fate !== 'kept') newlyRemoved = true;
    }
    file.text = after;
    this.track(file, uri, later, after);
    if (touched.length > 0) {
      const spans = insertedSpans(steps);
      // A short text counts only inside one change's text, not at its place: the user may have typed it there again.
      for (const item of touched) this.revive(item, after, spans, false);
    }
    // The buffer taken back to the file on disk without the edit (a reload, an undo to the saved text): settled now.
    if (newlyRemoved && file.items.some((item) => item.removed && item.settles && !item.reverted && item.fate !== 'kept') && this.onDisk(uri) === after) {
      this.settle(uri, after, REASON.removed);
    }
  }

  /** The editor saved a document: what it holds now is on disk. */
  saved(uri: string): void {
    const text = this.current(uri);
    if (text === undefined) return;
    this.sync(uri, text);
    this.settle(uri, text, REASON.removed);
  }

  /** The editor closed a document: what reached the disk decides, whatever the buffer held. */
  closed(uri: string): void {
    const file = this.files.get(uri);
    if (!file) return;
    const disk = this.onDisk(uri) ?? '';
    this.sync(uri, disk);
    this.settle(uri, disk, REASON.unsaved);
  }

  /**
   * The session ends: every document with insertions this session settles is judged by the disk, as if closed, and
   * the positions are written; resolves once written.
   */
  async close(): Promise<void> {
    const uris = new Set(this.files.keys());
    for (const interaction of this.ownApplied()) for (const response of interaction.responses) for (const insertion of response.insertedAt ?? []) uris.add(insertion.uri);
    const changes: { interactionId: string; responseId: string; patch: ResponsePatch }[] = [];
    for (const uri of uris) {
      const disk = this.onDisk(uri) ?? '';
      this.sync(uri, disk);
      changes.push(...this.judge(uri, disk, REASON.unsaved));
    }
    this.write(changes);
    await this.writing;
  }

  /** The interactions of this session with an applied edit, newest first. */
  private ownApplied(): Interaction[] {
    const found: Interaction[] = [];
    for (let offset = 0; ; ) {
      const page = this.trace.query({ sessionId: this.trace.session.id, limit: 200, offset });
      found.push(...page.interactions.filter((i) => i.responses.some((r) => r.insertedAt?.length)));
      if (page.nextOffset === undefined) return found;
      offset = page.nextOffset;
    }
  }

  /**
   * The interactions whose insertions cover a line of the document or touch `span` (offsets: a declaration's doc comment
   * and annotations, say), newest first by the trace's order; a reverted insertion counts where it was.
   */
  idsAt(uri: string, text: string, line: number, span?: { start: number; end: number }): string[] {
    const file = this.sync(uri, text);
    if (file.items.length === 0) return [];
    const starts = lineStarts(text);
    const lineStart = starts[Math.min(line, starts.length - 1)] ?? 0;
    const lineEnd = starts[line + 1] ?? text.length + 1;
    const ids = new Set<string>();
    for (const item of file.items) {
      if (item.removed && !item.reverted) continue;
      const onLine = item.start < lineEnd && (item.end > lineStart || (item.start === item.end && item.start >= lineStart));
      const inSpan = span !== undefined && (item.start === item.end ? item.start >= span.start && item.start <= span.end : item.start <= span.end && item.end > span.start);
      if (onLine || inSpan) ids.add(item.interactionId);
    }
    return [...ids];
  }

  /** The interactions with insertions anywhere in the document, counted as `idsAt` counts them on a line. */
  idsIn(uri: string, text: string): string[] {
    const file = this.sync(uri, text);
    return [...new Set(file.items.filter((item) => !item.removed || item.reverted).map((item) => item.interactionId))];
  }

  /**
   * A revert of the response is about to be applied (`done` undefined), was applied (true) or was not (false): what it
   * removes is reverted, not discarded, and stays where it was for the history of the code.
   */
  reverting(interaction: Interaction, responseId: string, done?: boolean): void {
    for (const insertion of interaction.responses.find((r) => r.id === responseId)?.insertedAt ?? []) {
      const text = this.files.get(insertion.uri)?.text ?? this.current(insertion.uri);
      if (text !== undefined) this.sync(insertion.uri, text);
    }
    for (const item of this.items.values()) if (item.interactionId === interaction.id && item.responseId === responseId) item.reverted = done !== false;
  }

  /** The interaction with the positions tracked here in place of the recorded ones (open documents); changes it. */
  overlay(interaction: Interaction): Interaction {
    for (const response of interaction.responses) {
      response.insertedAt?.forEach((insertion, index) => {
        const tracked = this.files.get(insertion.uri);
        // A document tracked here (open, or read at a close) may have insertions recorded since it was read.
        const file = tracked && this.sync(insertion.uri, tracked.text);
        const item = this.items.get(key(interaction.id, response.id, index));
        if (!file || !item) return;
        const range = offsetsToRange(file.text, item.start, item.end);
        if (insertion.appliedRange === undefined && JSON.stringify(range) !== JSON.stringify(insertion.range)) insertion.appliedRange = insertion.range;
        insertion.range = range;
        const state = this.stateOf(file.text, item);
        if (state === 'present') delete insertion.state;
        else insertion.state = state;
      });
    }
    return interaction;
  }

  /** The file's tracked insertions on `text`: loaded from the trace when new, found again when the text is not theirs. */
  private sync(uri: string, text: string): TrackedFile {
    const file = this.onText(uri, text);
    this.track(file, uri, this.recorded(file, uri), text);
    return file;
  }

  /** The file's tracked insertions, found again on `text` when it is not the text they were on. */
  private onText(uri: string, text: string): TrackedFile {
    let file = this.files.get(uri);
    if (!file) {
      file = { text, items: [], seen: -1 };
      this.files.set(uri, file);
    } else if (file.text !== text) {
      const old = file.text;
      const starts = lineStarts(old);
      this.anchorAll(
        file.items.map((item) => {
          const held = item.removed ? undefined : old.slice(item.start, item.end);
          return { item, was: offsetToPosition(old, item.start, starts), expected: held !== item.text ? held : undefined };
        }),
        text,
      );
      file.text = text;
    }
    return file;
  }

  /** The insertions into the file recorded since it was last read from the trace (rarely any: an edit was applied). */
  private recorded(file: TrackedFile, uri: string): Placement[] {
    if (file.seen === this.trace.insertionsVersion) return [];
    file.seen = this.trace.insertionsVersion;
    const loaded: Placement[] = [];
    for (const id of this.trace.idsInsertedInto(uri)) {
      // The code as it is in the editor, secrets included, to be found there.
      const interaction = this.trace.getWithSecrets(id);
      if (interaction) for (const response of interaction.responses) loaded.push(...this.load(file, uri, interaction, response));
    }
    return loaded;
  }

  /**
   * Starts tracking newly recorded insertions, anchored on `text`. Edits a session that ended (a server killed, or
   * stopped before its last save was judged) left unsettled are judged at once when `text` is what is on disk.
   */
  private track(file: TrackedFile, uri: string, placements: readonly Placement[], text: string): void {
    if (placements.length === 0) return;
    this.anchorAll(placements, text);
    for (const { item } of placements) {
      this.items.set(key(item.interactionId, item.responseId, item.index), item);
      file.items.push(item);
    }
    if (placements.some(({ item }) => item.inherited && item.fate === undefined && !item.reverted) && this.onDisk(uri) === text) this.settle(uri, text, REASON.ended);
  }

  /**
   * Of newly recorded insertions, those of responses whose every insertion is at its recorded place in `text`: they
   * were recorded on it. The others were recorded on a later text, which the editor's change has not brought yet.
   */
  private recordedOn(placements: readonly Placement[], text: string): { on: Placement[]; later: Placement[] } {
    const starts = lineStarts(text);
    const misplaced = new Set<string>();
    for (const { item, was, expected } of placements) {
      if (!text.startsWith(expected ?? item.text, positionToOffset(text, was, starts))) misplaced.add(`${item.interactionId}\u0000${item.responseId}`);
    }
    const on: Placement[] = [];
    const later: Placement[] = [];
    for (const placement of placements) (misplaced.has(`${placement.item.interactionId}\u0000${placement.item.responseId}`) ? later : on).push(placement);
    return { on, later };
  }

  /** The response's insertions into `uri` not tracked yet, each with where it was recorded to be, to be anchored. */
  private load(file: TrackedFile, uri: string, interaction: Interaction, response: TraceResponse): Placement[] {
    const insertions: unknown = response.insertedAt;
    if (!Array.isArray(insertions)) return [];
    const settles = (response.used || response.outcome === 'discarded-after-apply') && this.trace.inheritsFrom(interaction.sessionId);
    const placements: Placement[] = [];
    (insertions as InsertionRecord[]).forEach((insertion, index) => {
      if (insertion?.uri !== uri || typeof insertion.text !== 'string' || !insertion.range?.start || this.items.has(key(interaction.id, response.id, index))) return;
      const starts = lineStarts(file.text);
      const start = positionToOffset(file.text, insertion.range.start, starts);
      const end = insertion.range.end ? positionToOffset(file.text, insertion.range.end, starts) : start;
      const state = insertion.state ?? 'present';
      const item: Tracked = {
        interactionId: interaction.id,
        responseId: response.id,
        index,
        text: insertion.text,
        created: insertion.created === true,
        start,
        end,
        removed: state === 'removed',
        reverted: response.revertedAt !== undefined,
        settles,
        pinned: interaction.task === 'complete' && insertion.text.trim().length < SHORT_TEXT,
        inherited: settles && interaction.sessionId !== this.trace.session.id,
        ...(insertion.fate ? { fate: insertion.fate } : {}),
        ...(insertion.fateAt ? { fateAt: insertion.fateAt } : {}),
        written: writtenKey(insertion.range, state, insertion.editedText, insertion.fate),
      };
      placements.push({ item, was: insertion.range.start, expected: state === 'edited' ? insertion.editedText : undefined });
    });
    return placements;
  }

  /**
   * Anchors insertions on a text they were not moved onto (see `anchor`). Where they were is a place in an older
   * text: an insertion whose text occurs once tells how many lines the text moved there, and the others are looked for
   * first where that puts them (a short text, such as a renamed name, occurs in many places).
   */
  private anchorAll(placements: readonly Placement[], text: string): void {
    const starts = lineStarts(text);
    const shifts: { line: number; by: number }[] = [];
    const pending: Placement[] = [];
    for (const placement of placements) {
      const { item, was, expected } = placement;
      const needle = expected ?? item.text;
      const near = positionToOffset(text, was, starts);
      const first = needle === '' || item.created || item.removed ? -1 : text.indexOf(needle);
      if (first >= 0 && text.indexOf(needle, first + 1) < 0) shifts.push({ line: was.line, by: offsetToPosition(text, first, starts).line - was.line });
      else if (first >= 0 && !text.startsWith(needle, near)) {
        pending.push(placement);
        continue;
      }
      this.anchor(item, text, near, expected);
    }
    for (const { item, was, expected } of pending) {
      let closest: { line: number; by: number } | undefined;
      for (const shift of shifts) if (!closest || Math.abs(shift.line - was.line) < Math.abs(closest.line - was.line)) closest = shift;
      this.anchor(item, text, positionToOffset(text, { line: Math.max(0, was.line + (closest?.by ?? 0)), character: was.character }, starts), expected);
    }
  }

  /**
   * Puts an insertion on `text`, near where it was (`near`): where `expected` (its edited text) or its inserted text is
   * found, the nearest occurrence; a created file is the whole file; otherwise it is removed, at its old place.
   */
  private anchor(item: Tracked, text: string, near: number, expected: string | undefined): void {
    if (item.created) {
      item.start = 0;
      item.end = text.length;
      item.removed = text === '' && item.text !== '';
      return;
    }
    const clamp = Math.max(0, Math.min(near, text.length));
    if (item.removed) {
      item.start = item.end = clamp;
      this.revive(item, text);
      return;
    }
    for (const needle of expected !== undefined ? [expected, item.text] : [item.text]) {
      const at = text.startsWith(needle, near) ? near : item.pinned ? -1 : nearest(text, needle, near);
      if (at >= 0) {
        item.start = at;
        item.end = at + needle.length;
        return;
      }
    }
    item.start = item.end = clamp;
    item.removed = true;
  }

  /**
   * A removed insertion whose text is back about where it was (an undo, a redo) is there again. A short text (a word
   * taken from a completion) is found in code everywhere, so it counts only back at its very place.
   */
  private revive(item: Tracked, text: string, inserted: readonly Span[] = [], atPlace = true): void {
    if (item.reverted || item.text === '') return;
    const short = item.text.trim().length < SHORT_TEXT;
    // An occurrence of a short text counts at the insertion's very place (on a text not seen changing), or inside text
    // a change just put back.
    const counts = (at: number): boolean => !short || (atPlace && at === item.start) || inserted.some((span) => span.start <= at && at + item.text.length <= span.end);
    let at = text.indexOf(item.text, Math.max(0, item.start - item.text.length - REVIVE_SLACK));
    while (at >= 0 && at <= item.start + REVIVE_SLACK && !counts(at)) at = text.indexOf(item.text, at + 1);
    if (at < 0 || at > item.start + REVIVE_SLACK) return;
    item.start = at;
    item.end = at + item.text.length;
    item.removed = false;
  }

  private stateOf(text: string, item: Tracked): InsertionState {
    if (item.removed) return 'removed';
    return text.slice(item.start, item.end) === item.text ? 'present' : 'edited';
  }

  /** Judges a document's insertions on `text` (what is on disk) and writes what changed. */
  private settle(uri: string, text: string, reason: string): void {
    this.write(this.judge(uri, text, reason));
  }

  /**
   * What the trace must be told of the document's insertions, `text` being what reached the disk: positions that moved,
   * and for edits this session settles, each insertion kept (its code is in the file) or discarded (it is not), and the
   * response's fate once it changes (kept when some insertion is, discarded when every one is, removed when it was
   * kept and none of it is in the files any more).
   */
  private judge(uri: string, text: string, reason: string): { interactionId: string; responseId: string; patch: ResponsePatch }[] {
    const file = this.files.get(uri);
    if (!file) return [];
    const now = new Date().toISOString();
    const patches = new Map<string, { interactionId: string; responseId: string; insertions: InsertionPatch[]; settles: boolean }>();
    const starts = lineStarts(text);
    for (const item of file.items) {
      const state = this.stateOf(text, item);
      item.onDisk = state;
      if (item.settles && !item.reverted && item.fate !== 'kept' && item.text !== '') {
        const fate: InsertionFate = state === 'removed' ? 'discarded' : 'kept';
        if (fate !== item.fate) {
          item.fate = fate;
          item.fateAt = now;
        }
      }
      const range = offsetsToRange(text, item.start, item.end, starts);
      const editedText = state === 'edited' && !item.created ? text.slice(item.start, item.end) : undefined;
      const written = writtenKey(range, state, editedText, item.fate);
      const responseKey = `${item.interactionId}\u0000${item.responseId}`;
      let patch = patches.get(responseKey);
      if (!patch) patches.set(responseKey, (patch = { interactionId: item.interactionId, responseId: item.responseId, insertions: [], settles: item.settles && !item.reverted }));
      if (written === item.written) continue;
      item.written = written;
      patch.insertions.push({ index: item.index, range, state, ...(editedText !== undefined ? { editedText } : {}), ...(item.fate ? { fate: item.fate } : {}), ...(item.fateAt ? { fateAt: item.fateAt } : {}) });
    }
    const out: { interactionId: string; responseId: string; patch: ResponsePatch }[] = [];
    for (const patch of patches.values()) {
      const fate = patch.settles ? this.responseFate(patch.interactionId, patch.responseId, now, reason) : undefined;
      if (patch.insertions.length === 0 && !fate) continue;
      out.push({ interactionId: patch.interactionId, responseId: patch.responseId, patch: { ...(patch.insertions.length ? { insertions: patch.insertions } : {}), ...(fate ? { fate } : {}) } });
    }
    return out;
  }

  /**
   * The response's fate from every one of its insertions (tracked here, or as the trace says), when it changes. A kept
   * edit none of whose code is in its files on disk now (undone or deleted, then saved) was removed: kept is final for
   * each insertion, and the response says that its code has gone since.
   */
  private responseFate(interactionId: string, responseId: string, now: string, reason: string): FatePatch | undefined {
    const response = this.trace.get(interactionId)?.responses.find((r) => r.id === responseId);
    if (!response?.insertedAt?.length) return undefined;
    const judged = response.insertedAt.flatMap((insertion, index) => {
      if (insertion.text === '') return [];
      const item = this.items.get(key(interactionId, responseId, index));
      return [item ? { fate: item.fate, onDisk: item.onDisk ?? insertion.state } : { fate: insertion.fate, onDisk: insertion.state }];
    });
    if (judged.length === 0) return undefined;
    const fates = judged.map((one) => one.fate);
    const kept = fates.includes('kept');
    const fate = kept && judged.every((one) => one.onDisk === 'removed') ? 'removed' : kept ? 'kept' : fates.every((one) => one === 'discarded') ? 'discarded' : 'applied';
    const responseKey = `${interactionId}\u0000${responseId}`;
    const was = this.fates.get(responseKey) ?? (response.outcome === 'discarded-after-apply' ? 'discarded' : response.removedAt !== undefined ? 'removed' : response.keptAt !== undefined ? 'kept' : 'applied');
    if (fate === was) return undefined;
    this.fates.set(responseKey, fate);
    return { fate, at: now, ...(fate === 'discarded' ? { reason } : {}) };
  }

  /** Writes amendments in the background, one write for all; a failure is logged (the next save writes them again). */
  private write(changes: { interactionId: string; responseId: string; patch: ResponsePatch }[]): void {
    if (changes.length === 0) return;
    this.writing = this.writing
      .then(() => this.trace.amendResponses(changes))
      .catch((error: unknown) => {
        this.log(`trace: could not record where inserted code is now: ${error instanceof Error ? error.message : String(error)}`);
        for (const item of this.items.values()) item.written = '';
        this.fates.clear();
      });
  }
}
