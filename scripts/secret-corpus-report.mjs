// Reports the share of the secret corpus the built server redacts, per kind, and its false positives (run `npm run build` first).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusPath = process.argv[2] ?? path.join(root, 'test', 'fixtures', 'secrets', 'corpus.json');
const { redactSecrets, forgetRememberedSecrets } = await import(path.join(root, 'dist', 'server', 'src', 'privacy', 'secrets.js'));
const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf8'));

/** Each text on its own: nothing remembered from an earlier text helps the next. */
function redact(text) {
  forgetRememberedSecrets();
  return redactSecrets(text);
}

const kinds = new Map();
let caught = 0;
let values = 0;
let valuesCaught = 0;
const missed = [];
for (const entry of corpus.positives) {
  const out = redact(entry.text);
  const leaked = entry.secrets.filter((secret) => out.includes(secret));
  values += entry.secrets.length;
  valuesCaught += entry.secrets.length - leaked.length;
  const tally = kinds.get(entry.kind) ?? { caught: 0, total: 0 };
  tally.total++;
  if (leaked.length === 0) {
    tally.caught++;
    caught++;
  } else {
    missed.push(`${entry.id} ${entry.kind}: ${entry.text.slice(0, 100)}`);
  }
  kinds.set(entry.kind, tally);
}
const ordinary = corpus.negatives.filter((n) => !n.hard);
const hard = corpus.negatives.filter((n) => n.hard);
const changed = (list) => list.filter((n) => redact(n.text) !== n.text);
const pct = (part, whole) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

console.log(`corpus: ${corpusPath}`);
for (const [kind, tally] of [...kinds].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`  ${kind.padEnd(22)} ${tally.caught}/${tally.total}`);
console.log(`positives fully redacted: ${caught}/${corpus.positives.length} (${pct(caught, corpus.positives.length)}); secret values: ${valuesCaught}/${values} (${pct(valuesCaught, values)})`);
for (const line of missed) console.log(`  missed ${line}`);
const fp = changed(ordinary);
const hardFp = changed(hard);
console.log(`false positives: ${fp.length}/${ordinary.length} ordinary lines (${pct(fp.length, ordinary.length)}); ${hardFp.length}/${hard.length} public random ids (${hardFp.map((n) => n.note).join(', ') || 'none'})`);
for (const n of fp) console.log(`  changed ${n.id} ${n.note}: ${n.text}`);
const holdout = corpus.holdout ?? [];
const holdoutMissed = holdout.filter((entry) => entry.secrets.some((secret) => redact(entry.text).includes(secret)));
console.log(`hold-out (written after the detectors were tuned): ${holdout.length - holdoutMissed.length}/${holdout.length} (${pct(holdout.length - holdoutMissed.length, holdout.length)})`);
for (const entry of holdoutMissed) console.log(`  missed ${entry.id}: ${entry.text.slice(0, 100)}`);
