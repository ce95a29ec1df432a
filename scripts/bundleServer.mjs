// Bundles the server with esbuild (the command line and the type-check worker, two ESM entries over shared chunks, and ts-morph with TypeScript as one CommonJS file loaded through a V8 code cache): Node starts it about a third faster than the build's hundred-odd modules.
import fs from 'node:fs';
import { createRequire } from 'node:module';
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

/** The file ts-morph (with TypeScript) is bundled into, beside the chunks. */
const VENDOR_FILE = 'ts-morph.cjs';

/**
 * Every `import ... from 'ts-morph'` of the server becomes this CommonJS module, which loads the vendor file beside
 * the chunk through `server/src/codeCache.ts`: compiling TypeScript is most of a server's start, and an ES module
 * cannot be given a code cache on Node 20.
 */
const codeCachedTsMorph = {
  name: 'code-cached-ts-morph',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^ts-morph$/ }, () => ({ path: 'ts-morph', namespace: 'code-cached' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'code-cached' }, () => ({
      contents: [
        `const { loadWithCodeCache } = require(${JSON.stringify(path.join(repoRoot, 'server', 'src', 'codeCache.ts'))});`,
        `module.exports = loadWithCodeCache(require('node:path').join(__dirname, ${JSON.stringify(VENDOR_FILE)})).exports;`,
      ].join('\n'),
      loader: 'js',
      resolveDir: repoRoot,
    }));
  },
};

/** The esbuild options of the vendor file: ts-morph and what it requires (TypeScript among them), one CommonJS file. */
export function vendorBundleOptions({ outdir }) {
  return {
    entryPoints: [createRequire(path.join(repoRoot, 'package.json')).resolve('ts-morph')],
    outfile: path.join(outdir, VENDOR_FILE),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/**
 * The esbuild options of the server bundle, written to `outdir`: `assistant-ls.mjs` (the command line; the core and
 * the evaluation harness are chunks it imports when first needed), `diagnosticsWorker.mjs` and `localModelWorker.mjs`
 * (found beside the chunk that starts them, so chunks stay in the same folder) and the chunks they share; ts-morph and TypeScript are left to
 * the vendor file (`vendorBundleOptions`), which must be built into the same folder. `note` is the comment under the
 * shebang. Options only, so the VS Code extension's build hands the same ones to its own esbuild.
 */
export function serverBundleOptions({ outdir, note, sourcemap = false }) {
  return {
    entryPoints: {
      'assistant-ls': path.join(repoRoot, 'server', 'src', 'cli.ts'),
      diagnosticsWorker: path.join(repoRoot, 'server', 'src', 'oracle', 'diagnosticsWorker.ts'),
      localModelWorker: path.join(repoRoot, 'server', 'src', 'agents', 'local', 'localModelWorker.ts'),
    },
    // An optional dependency with native code, loaded by the local model's worker only where it is installed.
    external: ['node-llama-cpp'],
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
    plugins: [codeCachedTsMorph],
  };
}

/** Builds the bundle and the vendor file into `outdir` with the given esbuild, after emptying it (chunk names change with their content, and old code caches go with them). */
export async function bundleServer(esbuild, options) {
  fs.rmSync(options.outdir, { recursive: true, force: true });
  await Promise.all([esbuild.build(vendorBundleOptions(options)), esbuild.build(serverBundleOptions(options))]);
}

// `node scripts/bundleServer.mjs` (part of `npm run build`): the bundle `bin/assistant-ls.js` starts, in dist/bundle/.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const esbuild = await import('esbuild');
  await bundleServer(esbuild, { outdir: path.join(repoRoot, 'dist', 'bundle'), note: 'assistant-ls, bundled from server/src by `npm run build`.', sourcemap: true });
}
