// ESLint as the fix scenario's second static analyzer: the repository's own installation and configuration, loaded only when both exist.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { lineStarts, positionToOffset } from '../edits/textEdits.js';

const FLAT_CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const LEGACY_CONFIGS = ['.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.json', '.eslintrc.yaml', '.eslintrc.yml'];

/** One ESLint message as offsets into the linted text. */
export interface LintDiagnostic {
  /** The rule; never null here (messages without a rule are parse or configuration problems, left out). */
  ruleId: string;
  message: string;
  /** 1 error, 2 warning (the LSP values). */
  severity: 1 | 2;
  start: number;
  end: number;
  line: number;
  /** ESLint's own fix of this finding, as a replacement of [start, end) in the linted text. */
  fix?: { start: number; end: number; text: string };
}

/** The part of ESLint's API used here, as versions 8.57 to 10 have it. */
interface ESLintLike {
  lintText(code: string, options: { filePath: string }): Promise<Array<{ messages: Array<{ ruleId: string | null; message: string; severity: number; line?: number; column?: number; endLine?: number; endColumn?: number; fatal?: boolean; fix?: { range: [number, number]; text: string } }> }>>;
  isPathIgnored(filePath: string): Promise<boolean>;
}
type ESLintModule = { ESLint?: new (options: { cwd: string }) => ESLintLike; loadESLint?: (options: { useFlatConfig?: boolean; cwd?: string }) => Promise<new (options: { cwd: string }) => ESLintLike> };

/**
 * Rules about imports and modules: their findings depend on the installed packages and the module setup, which a
 * one-file fix cannot change (the Copilot harness leaves such warnings out).
 */
export function isImportRule(ruleId: string): boolean {
  return /(?:^|\/)(?:no-)?[\w-]*(?:import|require|module|extraneous|unpublished|unresolved|resolve)[\w-]*$/i.test(ruleId) || /^(?:import|import-x|n|node|eslint-plugin-import)\//.test(ruleId);
}

export class EslintRunner {
  /** Files ESLint failed on (its exception, not findings), and the first such failure. */
  failures = 0;
  firstFailure: string | undefined;

  private constructor(
    private readonly eslint: ESLintLike,
    /** The configuration file found, for the notes. */
    readonly configFile: string,
    readonly version: string,
  ) {}

  /**
   * The repository's ESLint, when a configuration file is at its root and the `eslint` package resolves from it;
   * otherwise a reason (undefined when no configuration exists at all). Loading runs the configuration's code.
   */
  static async load(root: string): Promise<EslintRunner | { unavailable: string } | undefined> {
    const flat = FLAT_CONFIGS.find((name) => fs.existsSync(path.join(root, name)));
    const legacy = flat ? undefined : LEGACY_CONFIGS.find((name) => fs.existsSync(path.join(root, name))) ?? (hasPackageConfig(root) ? 'package.json (eslintConfig)' : undefined);
    const configFile = flat ?? legacy;
    if (!configFile) return undefined;
    let entry: string;
    let version = 'unknown';
    try {
      const require = createRequire(path.join(root, 'package.json'));
      entry = require.resolve('eslint');
      version = (require('eslint/package.json') as { version?: string }).version ?? version;
    } catch {
      return { unavailable: `ESLint is configured (${configFile}) but not installed in the repository; lint diagnostics are left out` };
    }
    try {
      const mod = (await import(pathToFileURL(entry).href)) as ESLintModule & { default?: ESLintModule };
      const api: ESLintModule = mod.loadESLint || mod.ESLint ? mod : (mod.default ?? {});
      const ESLintClass = api.loadESLint ? await api.loadESLint({ useFlatConfig: flat !== undefined, cwd: root }) : api.ESLint;
      if (!ESLintClass) return { unavailable: `the installed ESLint ${version} has no ESLint class; lint diagnostics are left out` };
      const eslint = new ESLintClass({ cwd: root });
      return new EslintRunner(eslint, configFile, version);
    } catch (error) {
      return { unavailable: `ESLint ${version} could not load ${configFile}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
    }
  }

  /**
   * The rule findings ESLint reports for `text` as the file `fsPath` (the file on disk is not read), or undefined
   * when ESLint ignores the file. Parse errors and messages without a rule are left out: they are syntax (which the
   * type checker reports too) or configuration problems.
   */
  async lint(fsPath: string, text: string): Promise<LintDiagnostic[] | undefined> {
    try {
      return await this.lintOrThrow(fsPath, text);
    } catch (error) {
      // A file ESLint cannot lint (a parser or plugin failing on it) has no findings; the first failure is kept for the notes.
      this.failures++;
      this.firstFailure ??= `${path.basename(fsPath)}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      return undefined;
    }
  }

  /** As `lint`, but ESLint's own failure on the file is thrown rather than taken as no findings. */
  async lintOrThrow(fsPath: string, text: string): Promise<LintDiagnostic[] | undefined> {
    if (await this.eslint.isPathIgnored(fsPath)) return undefined;
    const [result] = await this.eslint.lintText(text, { filePath: fsPath });
    const starts = lineStarts(text);
    const out: LintDiagnostic[] = [];
    for (const m of result?.messages ?? []) {
      if (!m.ruleId || m.fatal || m.line === undefined) continue;
      const start = positionToOffset(text, { line: m.line - 1, character: Math.max(0, (m.column ?? 1) - 1) }, starts);
      const end = m.endLine !== undefined ? positionToOffset(text, { line: m.endLine - 1, character: Math.max(0, (m.endColumn ?? 1) - 1) }, starts) : start;
      const fix = m.fix && Array.isArray(m.fix.range) && typeof m.fix.text === 'string' ? { start: m.fix.range[0], end: m.fix.range[1], text: m.fix.text } : undefined;
      out.push({ ruleId: m.ruleId, message: m.message, severity: m.severity >= 2 ? 1 : 2, start, end: Math.max(start, end), line: m.line, ...(fix ? { fix } : {}) });
    }
    return out;
  }
}

function hasPackageConfig(root: string): boolean {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { eslintConfig?: unknown };
    return pkg.eslintConfig !== undefined;
  } catch {
    return false;
  }
}
