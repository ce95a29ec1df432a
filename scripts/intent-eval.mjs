// Measures the intent classifier on the intent sets (two tuning, held-out, terse) and prints accuracy per set: the offline one, or with --model a local GGUF model as assistant/ask uses it; run `npm run build` first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  if (!args[index + 1]) {
    console.error('usage: node scripts/intent-eval.mjs [--json FILE] [--model FILE.gguf] [--sets tuning,tuning2,held-out,terse]');
    process.exit(2);
  }
  return args[index + 1];
};
const jsonFile = option('--json');
const modelPath = option('--model');
const only = option('--sets')?.split(',');
const { evaluateIntents, formatIntentReport, readIntentSet } = await import(path.join(root, 'dist', 'server', 'src', 'eval', 'intentEval.js'));
const folder = path.join(root, 'test', 'fixtures', 'intents');
// The targets are issue 35's; the tuning sets have none, since a figure reached by tuning on them says nothing.
const sets = [
  readIntentSet(path.join(folder, 'tuning.json'), 'tuning'),
  readIntentSet(path.join(folder, 'tuning2.json'), 'tuning2'),
  readIntentSet(path.join(folder, 'heldOut.json'), 'held-out', { target: 0.9, heldOut: true }),
  readIntentSet(path.join(folder, 'terse.json'), 'terse', { target: 0.8 }),
];
let registry;
if (modelPath) {
  // The classifier assistant/ask uses when this model is the one agent configured.
  const { buildRegistry } = await import(path.join(root, 'dist', 'server', 'src', 'agents', 'registry.js'));
  const { resolveSettings } = await import(path.join(root, 'dist', 'server', 'src', 'config', 'settings.js'));
  const { settings, problems } = resolveSettings({ useEnvironment: false, agents: [{ name: 'local', modelPath: path.resolve(modelPath) }] });
  registry = buildRegistry(settings, process.env, problems);
  if (registry.problems?.length) console.error(registry.problems.join('\n'));
}
try {
  const reports = await evaluateIntents(folder, only ? sets.filter((set) => only.includes(set.name)) : sets, registry);
  console.log(formatIntentReport(reports));
  if (jsonFile) fs.writeFileSync(jsonFile, `${JSON.stringify({ date: new Date().toISOString(), ...(modelPath ? { model: path.basename(modelPath) } : {}), sets: reports }, null, 2)}\n`);
} finally {
  await registry?.dispose();
}
