// Unit tests of the texts kept from disk between requests: read once while a settled file's stamp holds, read again after any change, never kept while a change could leave the stamp as it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiskTexts } from '../../server/src/workspace/diskTexts.js';
import { settleMs } from '../../server/src/workspace/fileTimes.js';

const directories: string[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function workspace(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-texts-'));
  directories.push(directory);
  return directory;
}

/** Writes a file and waits until its times have settled (its status-change time is the write's, whatever `utimes` does). */
async function settledFile(file: string, text: string): Promise<void> {
  fs.writeFileSync(file, text);
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(file, past, past);
  await settled(file);
}

async function settled(file: string): Promise<void> {
  const stat = fs.statSync(file);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(stat.mtimeMs, stat.ctimeMs) + settleMs(stat) - Date.now()) + 20));
}

/** How many times `file` is read from disk while `run` runs. */
function readsOf(file: string, run: () => void): number {
  const spy = vi.spyOn(fs, 'readFileSync');
  try {
    run();
    return spy.mock.calls.filter((call) => call[0] === file).length;
  } finally {
    spy.mockRestore();
  }
}

describe('DiskTexts', () => {
  it('reads a settled file once while its stamp holds, and again after its content changes with its modification time put back', async () => {
    const disk = new DiskTexts();
    const file = path.join(workspace(), 'a.ts');
    await settledFile(file, 'export const a = 1;\n');
    expect(readsOf(file, () => {
      expect(disk.text(file, 1_000)).toBe('export const a = 1;\n');
      expect(disk.text(file, 1_000)).toBe('export const a = 1;\n');
      expect(disk.text(file, 1_000)).toBe('export const a = 1;\n');
    })).toBe(1);
    // Same size, same modification time: only the status-change time moves, and that is enough.
    const { atime, mtime, mtimeMs } = fs.statSync(file);
    fs.writeFileSync(file, 'export const b = 2;\n');
    fs.utimesSync(file, atime, mtime);
    expect(Math.abs(fs.statSync(file).mtimeMs - mtimeMs)).toBeLessThan(1);
    expect(readsOf(file, () => expect(disk.text(file, 1_000)).toBe('export const b = 2;\n'))).toBe(1);
  });

  it('reads a file that changed just now on every call, since its next change may leave its times as they are', () => {
    const disk = new DiskTexts();
    const file = path.join(workspace(), 'fresh.ts');
    fs.writeFileSync(file, 'export const fresh = 1;\n');
    // A time on this whole second, as a file system that keeps whole seconds writes it: unsettled for 2.5 s after
    // it, so a busy machine cannot let it settle between the calls below.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    fs.utimesSync(file, now, now);
    expect(Date.now() - fs.statSync(file).mtimeMs).toBeLessThan(settleMs(fs.statSync(file)));
    expect(readsOf(file, () => {
      expect(disk.text(file, 1_000)).toBe('export const fresh = 1;\n');
      expect(disk.text(file, 1_000)).toBe('export const fresh = 1;\n');
    })).toBe(2);
  });

  it('answers undefined for a missing file, a directory and a file over the size limit, and forgets what it kept of them', async () => {
    const disk = new DiskTexts();
    const root = workspace();
    const file = path.join(root, 'big.ts');
    await settledFile(file, 'x'.repeat(200));
    expect(disk.text(file, 1_000)).toBe('x'.repeat(200));
    expect(disk.text(file, 100)).toBeUndefined();
    expect(readsOf(file, () => expect(disk.text(file, 1_000)).toBe('x'.repeat(200)))).toBe(1);
    fs.rmSync(file);
    expect(disk.text(file, 1_000)).toBeUndefined();
    expect(disk.text(path.join(root, 'missing.ts'), 1_000)).toBeUndefined();
    expect(disk.text(root, 1_000)).toBeUndefined();
  });

  it('reads a file replaced by a rename again, though the new one has the old one\'s size and times', async () => {
    const disk = new DiskTexts();
    const root = workspace();
    const file = path.join(root, 'a.ts');
    await settledFile(file, 'export const a = 1;\n');
    expect(disk.text(file, 1_000)).toBe('export const a = 1;\n');
    const { atime, mtime } = fs.statSync(file);
    const replacement = path.join(root, 'a.ts.tmp');
    fs.writeFileSync(replacement, 'export const z = 9;\n');
    fs.utimesSync(replacement, atime, mtime);
    fs.renameSync(replacement, file);
    expect(disk.text(file, 1_000)).toBe('export const z = 9;\n');
  });
});

describe('settleMs', () => {
  it('waits a clock tick after a change on a file system with sub-second times, and 2.5 s when times fall on whole seconds', () => {
    // ext4, xfs, APFS, NTFS: nanoseconds, advanced by a clock tick of at most 10 ms.
    expect(settleMs({ mtimeMs: 1_763_800_000_123.25, ctimeMs: 1_763_800_000_123.25 })).toBe(50);
    // FAT (2 s), some network file systems (1 s): a change may leave the time where it was for that long.
    expect(settleMs({ mtimeMs: 1_763_800_000_000, ctimeMs: 1_763_800_000_000 })).toBe(2_500);
    expect(settleMs({ mtimeMs: 1_763_800_002_000, ctimeMs: 1_763_800_000_123.5 })).toBe(2_500);
    expect(settleMs({ mtimeMs: 1_763_800_000_123.5, ctimeMs: 1_763_800_004_000 })).toBe(2_500);
  });
});
