// Writes what the settings declaration (protocol/src/settings.ts) generates: VS Code's settings schema in clients/vscode/package.json, the settings table in docs/protocol.md and the defaults in clients/helix/languages.toml; run as `npm run generate`.
import fs from 'node:fs';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The renderers are TypeScript beside the declaration; esbuild compiles them in memory, so no build is needed first.
const bundle = await build({
  entryPoints: [path.join(repoRoot, 'protocol', 'src', 'settingsOutputs.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  logLevel: 'silent',
});
const { generateSettingsFiles } = await import(`data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`);

for (const file of generateSettingsFiles((relative) => fs.readFileSync(path.join(repoRoot, relative), 'utf8'))) {
  const full = path.join(repoRoot, file.path);
  if (fs.readFileSync(full, 'utf8') === file.text) {
    console.log(`unchanged ${file.path}`);
    continue;
  }
  fs.writeFileSync(full, file.text);
  console.log(`wrote ${file.path}`);
}
