// Bundles the server with esbuild (the command line and the type-check worker, two ESM entries over shared chunks): Node starts it about a third faster than the build's hundred-odd modules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The server is ESM (lowdb is ESM-only); its CommonJS dependencies (ts-morph, TypeScript) still call require and __dirname.
const shims = [
  "import { createRequire as __assistantCreateRequire } from 'node:module';",
  "import { fileURLToPath as __assistantFileURLToPath } from 'node:url';",
  "import { dirname as __assistantDirname } from 'node:path';",
  'const require = __assistantCreateRequire(import.meta.url);',
  'const __filename = __assistantFileURLToPath(import.meta.url);',
  'const __dirname = __assistantDirname(__filename);',
].join('\n');

/**
 * The esbuild options of the server bundle, written to `outdir`: `assistant-ls.mjs` (the command line; the core and
 * the evaluation harness are chunks it imports when first needed), `diagnosticsWorker.mjs` (found beside the chunk
 * that starts it, so chunks stay in the same folder) and the chunks they share, TypeScript among them. `note` is the
 * comment under the shebang. Plain data, so the VS Code extension's build hands the same options to its own esbuild.
 */
export function serverBundleOptions({ outdir, note, sourcemap = false }) {
  return {
    entryPoints: { 'assistant-ls': path.join(repoRoot, 'server', 'src', 'cli.ts'), diagnosticsWorker: path.join(repoRoot, 'server', 'src', 'oracle', 'diagnosticsWorker.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: `#!/usr/bin/env node\n// ${note}\n${shims}` },
    sourcemap,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/** Builds the bundle into `outdir` with the given esbuild, after emptying it (chunk names change with their content). */
export async function bundleServer(esbuild, options) {
  fs.rmSync(options.outdir, { recursive: true, force: true });
  await esbuild.build(serverBundleOptions(options));
}

// `node scripts/bundleServer.mjs` (part of `npm run build`): the bundle `bin/assistant-ls.js` starts, in dist/bundle/.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const esbuild = await import('esbuild');
  await bundleServer(esbuild, { outdir: path.join(repoRoot, 'dist', 'bundle'), note: 'assistant-ls, bundled from server/src by `npm run build`.', sourcemap: true });
}
