// Synthetic secrets for tests: seeded random strings in the shapes of real credentials (never real keys), and look-alikes that must stay.

/** A seeded generator of numbers in [0, 1): the same corpus on every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `length` characters drawn from `alphabet`. */
export function drawn(random: () => number, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** The body of a PEM-like block: `lines` lines of `width` base64 characters, the first starting with `prefix`. */
export function base64Lines(random: () => number, lines: number, width: number, prefix = ''): string[] {
  return Array.from({ length: lines }, (_, i) => (i === 0 ? prefix + drawn(random, BASE64, width - prefix.length) : drawn(random, BASE64, width)));
}
