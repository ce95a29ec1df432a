// The preview in the real VS Code (code-server 4.139.1 through headless Chromium): with `preview: "always"`, edits open the Refactor Preview; Discard keeps the code, Apply lands it, and nothing reaches the disk before the user saves.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { readInteractions as interactions } from '../support/traceFiles.js';
import { Workbench, assertAvailable, skipReason, skipVscode } from './harness/vscode.js';

if (skipVscode) console.warn(`vscodePreview.test.ts skipped: ${skipReason}`);

const FILE = 'src/config.ts';


describe.skipIf(skipVscode)(`the preview in VS Code 1.139 (code-server)${skipReason ? ` — ${skipReason}` : ''}`, () => {
  let session: Workbench;
  let workspace: string;
  let original: string;

  beforeAll(async () => {
    assertAvailable();
    workspace = copyFixture('basic');
    original = fs.readFileSync(path.join(workspace, FILE), 'utf8');
    // VS Code for the Web saves every changed file a second later by default (`files.autoSave: afterDelay`, `off` on
    // the desktop): a user who saves for themselves turns that off, and then nothing must save for them.
    session = await Workbench.start(workspace, { 'assistant.preview': 'always', 'files.autoSave': 'off' });
  }, 180_000);

  afterAll(async () => {
    await session?.close();
  });

  const panel = () => session.page.locator('.bulk-edit-panel');
  const code = () => session.page.locator('.editor-group-container').first().locator('.monaco-editor .view-lines');

  /** "Assistant: Ask…" with the request, and the offline agent's answer picked. */
  async function askToDocumentLoad(): Promise<void> {
    await session.runCommand('Assistant: Ask…');
    await session.page.locator('.quick-input-widget .quick-input-title').getByText('Assistant: Ask', { exact: true }).waitFor({ timeout: 10_000 });
    await session.page.keyboard.type('write documentation for the load method');
    await session.page.keyboard.press('Enter');
    await session.page.locator('.quick-input-widget .quick-input-list').getByText('doc-offline', { exact: true }).first().waitFor({ timeout: 60_000 });
    await session.page.keyboard.press('Enter');
  }

  /** The Refactor Preview with the file and the comment the edit inserts. */
  async function previewShows(inserted: string): Promise<void> {
    await panel().getByText('config.ts', { exact: false }).first().waitFor({ timeout: 60_000 });
    await panel().getByText(inserted, { exact: false }).first().waitFor({ timeout: 10_000 });
  }

  /**
   * Ticks the file's change and presses Apply: VS Code lists a change that needs confirmation unticked, and applies only
   * the ticked ones.
   */
  async function tickAndApply(): Promise<void> {
    const tick = panel().locator('.monaco-list-row [role="checkbox"]').first();
    expect(await tick.getAttribute('aria-checked')).toBe('false');
    await tick.click();
    await panel().locator('.monaco-list-row [role="checkbox"][aria-checked="true"]').first().waitFor({ timeout: 10_000 });
    await panel().getByText('Apply', { exact: true }).first().click();
  }

  it('"Assistant: Ask…" opens the Refactor Preview; Discard keeps the code and is traced as discarded, with no warning', async () => {
    await session.step('open src/config.ts', () => session.open('config.ts', 'export function parseConfig'));
    await session.step('ask, and see the preview', async () => {
      await askToDocumentLoad();
      await previewShows('Sets `this.cached` and calls');
      // Nothing has landed while the preview waits.
      expect(await code().getByText('@returns', { exact: false }).count()).toBe(0);
    });
    await session.step('Discard', async () => {
      await panel().getByText('Discard', { exact: true }).first().click();
      await panel().waitFor({ state: 'hidden', timeout: 20_000 });
      const deadline = Date.now() + 20_000;
      while (!interactions(workspace).some((i) => i.responses[0]?.outcome === 'discarded')) {
        if (Date.now() > deadline) throw new Error('the trace never recorded the discard');
        await session.page.waitForTimeout(200);
      }
      expect(await code().getByText('@returns', { exact: false }).count()).toBe(0);
      // The extension has its answer once the trace has the record; a warning would show within a moment.
      await session.page.waitForTimeout(1_500);
      expect(await session.page.locator('.notifications-toasts').getByText('not applied', { exact: false }).count()).toBe(0);
      expect(fs.readFileSync(path.join(workspace, FILE), 'utf8')).toBe(original);
    });
  }, 180_000);

  it('Apply lands the edit in the editor, unsaved; the file on disk changes when the user saves', async () => {
    await session.step('ask again, and Apply', async () => {
      await askToDocumentLoad();
      await previewShows('Sets `this.cached` and calls');
      await tickAndApply();
      await code().getByText('@returns', { exact: false }).first().waitFor({ timeout: 20_000 });
    });
    await session.step('unsaved until saved', async () => {
      const used = () => interactions(workspace).some((i) => i.responses[0]?.used === true);
      const deadline = Date.now() + 20_000;
      while (!used()) {
        if (Date.now() > deadline) throw new Error('the trace never recorded the applied edit');
        await session.page.waitForTimeout(200);
      }
      // The tab shows unsaved changes, and the disk has none of them.
      await session.page.locator('.tab.active.dirty').getByText('config.ts', { exact: true }).waitFor({ timeout: 10_000 });
      expect(fs.readFileSync(path.join(workspace, FILE), 'utf8')).toBe(original);
      await session.page.keyboard.press('Control+S');
      const deadline2 = Date.now() + 20_000;
      while (!fs.readFileSync(path.join(workspace, FILE), 'utf8').includes('@returns')) {
        if (Date.now() > deadline2) throw new Error('Ctrl+S never saved the file');
        await session.page.waitForTimeout(200);
      }
      expect(fs.readFileSync(path.join(workspace, FILE), 'utf8')).toMatch(/\*\/\n {2}\/\/ @assistant [^\n]*\n {2}async load\(\)/);
    });
  }, 180_000);

  it('a code action goes through the preview too, and its applied edit is not saved for the user', async () => {
    const before = fs.readFileSync(path.join(workspace, FILE), 'utf8');
    await session.step('Document parseConfig from the code-action menu', async () => {
      const line = before.split('\n').findIndex((l) => l.includes('export function parseConfig')) + 1;
      await session.runCodeAction(`${line}:17`, 'Assistant: Document function parseConfig');
      await previewShows('@param text');
      await tickAndApply();
      await code().getByText('@param text', { exact: false }).first().waitFor({ timeout: 20_000 });
    });
    await session.step('unsaved', async () => {
      await session.page.locator('.tab.active.dirty').getByText('config.ts', { exact: true }).waitFor({ timeout: 10_000 });
      // A moment for any save VS Code might do after the edit.
      await session.page.waitForTimeout(1_500);
      expect(fs.readFileSync(path.join(workspace, FILE), 'utf8')).toBe(before);
    });
  }, 180_000);
});
