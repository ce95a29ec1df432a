// `.assistant/` and git, end to end with real git: ignored by default after a task, the trace committed only when a team opts in.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CodeAction } from 'vscode-languageserver-protocol';
import type { ShowInteractionResult, TaskCommandResult } from '../../protocol/src/index.js';
import { TestEditor, copyFixture } from '../support/lspClient.js';
import { segmentFiles } from '../support/traceFiles.js';

const editors: TestEditor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.dispose()));
});

const hasGit = spawnSync('git', ['--version']).status === 0;

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.test', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A copy of the basic fixture as a fresh git repository with everything committed. */
function repository(): string {
  const root = copyFixture('basic');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  return root;
}

/** Documents parseConfig, then opens the report of its interaction (`.assistant/interactions/`), and shuts down. */
async function documentAndReport(root: string, assistant: Record<string, unknown> = {}): Promise<void> {
  const { editor } = await TestEditor.start({ root, initializationOptions: { assistant } });
  editors.push(editor);
  const doc = await editor.open('src/config.ts');
  const position = editor.position(doc.uri, 'parseConfig(text');
  const actions = await editor.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: doc.uri }, range: { start: position, end: position }, context: { diagnostics: [], only: ['refactor.rewrite.assistant.document'] } });
  const result = await editor.request<TaskCommandResult>('workspace/executeCommand', { command: actions[0]!.command!.command, arguments: actions[0]!.command!.arguments });
  expect(result.applied).toBe(true);
  const shown = await editor.request<ShowInteractionResult>('workspace/executeCommand', { command: 'assistant.showInteraction', arguments: [{ textDocument: { uri: doc.uri }, position: editor.position(doc.uri, 'JSON.parse') }] });
  expect(shown.reportUri).toMatch(/\/\.assistant\/interactions\/[^/]+\.md$/);
  expect(await editor.shutdownAndExit()).toBe(0);
}

describe.skipIf(!hasGit)('.assistant/ and git', () => {
  it('stays out of `git status` after a task, its report and a restart, with a .gitignore that ignores everything in it', async () => {
    const root = repository();
    await documentAndReport(root);
    await documentAndReport(root);
    // The trace and the report are there, and git sees none of it.
    expect(segmentFiles(path.join(root, '.assistant', 'trace')).length).toBe(2);
    expect(fs.readdirSync(path.join(root, '.assistant', 'interactions'))).toHaveLength(2);
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(root, 'check-ignore', '.assistant/.gitignore').trim()).toBe('.assistant/.gitignore');
  });

  it('lets git see the trace and its .gitignore, not the reports, with trace.commit true', async () => {
    const root = repository();
    await documentAndReport(root, { trace: { commit: true } });
    const untracked = git(root, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort();
    const [segment] = segmentFiles(path.join(root, '.assistant', 'trace'));
    expect(untracked).toEqual(['?? .assistant/.gitignore', `?? ${path.relative(root, segment!).split(path.sep).join('/')}`]);
  });

  it('keeps a .gitignore the user wrote in .assistant/', async () => {
    const root = repository();
    fs.mkdirSync(path.join(root, '.assistant'));
    fs.writeFileSync(path.join(root, '.assistant', '.gitignore'), 'interactions/\n');
    await documentAndReport(root);
    expect(fs.readFileSync(path.join(root, '.assistant', '.gitignore'), 'utf8')).toBe('interactions/\n');
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toMatch(/^\?\? \.assistant\/trace\//m);
  });
});
