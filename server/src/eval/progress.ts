// Progress of an evaluation on stderr: a redrawn bar on a terminal, plain periodic lines otherwise (logs, CI).

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export class Progress {
  private done = 0;
  private failed = 0;
  private total = 0;
  private label = '';
  private lastDraw = 0;
  private lastLineAt = 0;
  private lastLineShare = -1;
  private drawn = false;
  private lastLine = '';

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = Date.now,
  ) {}

  private get tty(): boolean {
    return this.stream.isTTY === true;
  }

  /** A line of its own (phases, notes), keeping the bar below it on a terminal. */
  note(message: string): void {
    this.clear();
    this.stream.write(`eval: ${message}\n`);
    if (this.total > 0) this.draw(true);
  }

  start(total: number, alreadyDone: number): void {
    this.total = total;
    this.done = alreadyDone;
    this.lastLineAt = this.now();
    this.draw(true);
  }

  /** The work item now running, shown on the bar. */
  working(label: string): void {
    this.label = label;
    this.draw(false);
  }

  step(passed: boolean): void {
    this.done++;
    if (!passed) this.failed++;
    this.draw(false);
  }

  finish(): void {
    if (this.total === 0) return;
    this.draw(true);
    if (this.tty) this.stream.write('\n');
    this.drawn = false;
    this.total = 0;
  }

  private clear(): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }

  private draw(force: boolean): void {
    if (this.total === 0) return;
    const now = this.now();
    const summary = `${this.done}/${this.total}${this.failed > 0 ? ` (${this.failed} not passed)` : ''}`;
    if (this.tty) {
      if (!force && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const width = 24;
      const filled = Math.round((this.done / this.total) * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${summary}${this.label ? `  ${this.label}` : ''}`;
      const columns = this.stream.columns ?? 100;
      this.stream.write(`\r\x1b[K${bar.length >= columns ? `${bar.slice(0, columns - 2)}…` : bar}`);
      this.drawn = true;
      return;
    }
    // Without a terminal: a line per tenth done, or every five seconds, and at the end.
    const share = Math.floor((this.done / this.total) * 10);
    if (summary === this.lastLine) return;
    if (force || share > this.lastLineShare || now - this.lastLineAt >= 5000 || this.done === this.total) {
      this.lastLineShare = share;
      this.lastLineAt = now;
      this.lastLine = summary;
      this.stream.write(`eval: ${summary} done\n`);
    }
  }
}
