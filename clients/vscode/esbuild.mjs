// Bundles the extension (CommonJS, `vscode` external, protocol sources included) and the server (ESM: its entry, the type-check worker's, and their shared chunks, with ts-morph in one CommonJS file) into dist/.
import { build } from 'esbuild';
import { bundleServer, serverBundleOptions, vendorBundleOptions } from '../../scripts/bundleServer.mjs';
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

// The server bundle is defined once, in the repository's scripts/bundleServer.mjs; this package's esbuild builds it.
const serverBundle = { outdir: path.join(here, 'dist', 'server'), note: 'assistant-ls, bundled for the VS Code extension from server/src at build time.' };
const server = serverBundleOptions(serverBundle);

if (!fs.existsSync(path.join(repoRoot, 'node_modules', 'vscode-languageserver'))) {
  console.error(`esbuild: the server's dependencies are missing; run "npm ci" in ${repoRoot} first.`);
  process.exit(1);
}

if (watch) {
  const { context } = await import('esbuild');
  // ts-morph changes only with the dependencies: built once, beside the chunks the watch rebuilds.
  await build(vendorBundleOptions(serverBundle));
  for (const options of [extension, server]) await (await context(options)).watch();
  console.log('esbuild: watching');
} else {
  const started = Date.now();
  await Promise.all([build(extension), bundleServer({ build }, serverBundle)]);
  const size = (file) => fs.statSync(file).size;
  const serverDir = server.outdir;
  const serverBytes = fs.readdirSync(serverDir, { recursive: true }).map((f) => path.join(serverDir, f)).filter((f) => fs.statSync(f).isFile()).reduce((n, f) => n + size(f), 0);
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  console.log(`esbuild: ${path.relative(here, extension.outfile)} (${mb(size(extension.outfile))}) and ${path.relative(here, serverDir)}/ (${mb(serverBytes)}) in ${Date.now() - started} ms`);
}
