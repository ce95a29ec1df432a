// Seeded randomness and the statistics of the harness: shuffles, means, the paired bootstrap interval of a difference, and Pass@k.

/** A deterministic generator of numbers in [0, 1) (mulberry32): the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed derived from a base seed and a label, so each comparison has its own reproducible stream. */
export function deriveSeed(seed: number, label: string): number {
  let hash = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A shuffled copy (Fisher–Yates) in the order the seed determines. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The value below which a share `q` of the sorted values lies (linear interpolation between ranks). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (position - low);
}

/** The mean difference of paired scores and its bootstrap interval. */
export interface PairedDifference {
  /** Pairs compared (cases both agents were scored on). */
  n: number;
  meanA: number;
  meanB: number;
  /** meanA − meanB. */
  difference: number;
  /** Percentile interval of the difference over the resamples. */
  interval: [number, number];
  level: number;
  resamples: number;
  /** Share of resamples in which the difference is at most zero (A no better than B): a one-sided bootstrap p-value. */
  shareAtMostZero: number;
}

/**
 * The paired bootstrap: cases are drawn with replacement `resamples` times, keeping each case's two scores together,
 * and the interval is the central `level` share of the resampled mean differences. Undefined without pairs.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], options: { seed: number; resamples?: number; level?: number }): PairedDifference | undefined {
  if (a.length !== b.length) throw new RangeError('pairedBootstrap: both samples must have one score per case');
  const n = a.length;
  if (n === 0) return undefined;
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const differences = a.map((value, i) => value - (b[i] as number));
  const meanA = mean(a) as number;
  const meanB = mean(b) as number;
  const random = seededRandom(options.seed);
  const means: number[] = new Array<number>(resamples);
  let atMostZero = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[Math.floor(random() * n)] as number;
    const m = sum / n;
    means[r] = m;
    if (m <= 0) atMostZero++;
  }
  means.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return {
    n,
    meanA,
    meanB,
    difference: meanA - meanB,
    interval: [quantile(means, tail), quantile(means, 1 - tail)],
    level,
    resamples,
    shareAtMostZero: atMostZero / resamples,
  };
}

/**
 * The unbiased Pass@k estimator of one case (Chen et al., 2021): the chance that at least one of k samples drawn
 * without replacement from the n taken passes, c of them passing, i.e. 1 − C(n−c, k)/C(n, k). Computed as a product
 * rather than with binomials, which overflow for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || k < 1 || k > n || c < 0 || c > n) {
    throw new RangeError(`passAtK: needs 1 ≤ k ≤ n and 0 ≤ c ≤ n, not n=${n}, c=${c}, k=${k}`);
  }
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/** Pass@k over cases: the per-case estimator averaged, each case counting once whatever its number of samples. */
export function meanPassAtK(cases: readonly { n: number; c: number }[], k: number): number | null {
  return mean(cases.map(({ n, c }) => passAtK(n, c, k)));
}
