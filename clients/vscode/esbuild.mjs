// Bundles the extension (CommonJS, `vscode` external, protocol sources included) and the server (one ESM file) into dist/.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const watch = process.argv.includes('--watch');

/**
 * `protocol/src` lives outside this package: its `vscode-languageserver-protocol` imports must resolve to this
 * package's copy (the one vscode-languageclient uses), not to the repository root's, so the bundle holds one copy.
 */
const clientCopies = {
  name: 'client-copies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^vscode-(languageserver-protocol|languageserver-types|jsonrpc)(\/.*)?$/ }, (args) => {
      if (args.resolveDir === here || args.resolveDir.startsWith(here + path.sep)) return undefined;
      return pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: here });
    });
  },
};

const extension = {
  entryPoints: [path.join(here, 'src', 'extension.ts')],
  outfile: path.join(here, 'dist', 'extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  sourcemap: true,
  logLevel: 'warning',
  plugins: [clientCopies],
};

// The server is ESM (lowdb is ESM-only); its CommonJS dependencies (ts-morph, TypeScript) still call require and __dirname.
const serverBanner = [
  "import { createRequire as __assistantCreateRequire } from 'node:module';",
  "import { fileURLToPath as __assistantFileURLToPath } from 'node:url';",
  "import { dirname as __assistantDirname } from 'node:path';",
  'const require = __assistantCreateRequire(import.meta.url);',
  'const __filename = __assistantFileURLToPath(import.meta.url);',
  'const __dirname = __assistantDirname(__filename);',
].join('\n');

const server = {
  entryPoints: [path.join(repoRoot, 'server', 'src', 'cli.ts')],
  outfile: path.join(here, 'dist', 'server', 'assistant-ls.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner: { js: `#!/usr/bin/env node\n// assistant-ls, bundled for the VS Code extension from server/src at build time.\n${serverBanner}` },
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};

if (!fs.existsSync(path.join(repoRoot, 'node_modules', 'vscode-languageserver'))) {
  console.error(`esbuild: the server's dependencies are missing; run "npm ci" in ${repoRoot} first.`);
  process.exit(1);
}

if (watch) {
  const { context } = await import('esbuild');
  for (const options of [extension, server]) await (await context(options)).watch();
  console.log('esbuild: watching');
} else {
  const started = Date.now();
  await Promise.all([build(extension), build(server)]);
  const size = (file) => `${(fs.statSync(file).size / 1e6).toFixed(1)} MB`;
  console.log(`esbuild: ${path.relative(here, extension.outfile)} (${size(extension.outfile)}) and ${path.relative(here, server.outfile)} (${size(server.outfile)}) in ${Date.now() - started} ms`);
}
