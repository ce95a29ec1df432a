// When a file's recorded times can be trusted to move on its next change, for caches that keep what they read while a file's times hold.
import type fs from 'node:fs';

/**
 * A file or folder that changed this recently may change again without its time moving. Times with a fraction of a
 * second come from a file system that keeps fractions (nanoseconds on ext4 and APFS, 100 ns on NTFS), and the system
 * clock behind them moves every tick (10 ms at most on Linux, about 16 ms on Windows); whole seconds may be all a file
 * system keeps (2 s on FAT, 1 s on HFS+ and some network file systems), and then the wait is longer than that.
 */
const SETTLE_FINE_MS = 50;
const SETTLE_COARSE_MS = 2_500;

/** The later of a file's modification and status-change times. */
export function changedAt(stat: Pick<fs.Stats, 'mtimeMs' | 'ctimeMs'>): number {
  return Math.max(stat.mtimeMs, stat.ctimeMs);
}

/** How long after its last change a file's or folder's times may still not move on the next change (see SETTLE_FINE_MS). */
export function settleMs(stat: Pick<fs.Stats, 'mtimeMs' | 'ctimeMs'>): number {
  // A time on a whole second may be all the file system keeps (or, rarely, a fine one that fell there): the long wait.
  return stat.mtimeMs % 1000 !== 0 && stat.ctimeMs % 1000 !== 0 ? SETTLE_FINE_MS : SETTLE_COARSE_MS;
}

/** Whether a file changed so recently that its next change may leave its times as they are. */
export function isUnsettled(stat: Pick<fs.Stats, 'mtimeMs' | 'ctimeMs'>, now: number): boolean {
  return now - changedAt(stat) < settleMs(stat);
}
