// What never reaches a model, on real files: ignore rules at any depth, secret paths, workspace values, the model client's redaction, the agent's refusal, the trace.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceExclusion, describeExclusion, isSecretPath } from '../../server/src/privacy/exclusion.js';
import { dotenvValues, protectedValues, relativeSpecifiers } from '../../server/src/privacy/workspaceSecrets.js';
import { forgetRememberedSecrets } from '../../server/src/privacy/secrets.js';
import { ModelClient } from '../../server/src/agents/modelClient.js';
import { OpenAIAgent } from '../../server/src/agents/openaiAgent.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import { listDeclarations } from '../../server/src/repo/declarations.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { pathToUri, resolvePath } from '../../server/src/workspace/documentSnapshot.js';
import { TraceStore } from '../../server/src/trace/traceStore.js';
import type { Interaction } from '../../server/src/protocol.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import { copyFixture } from '../support/lspClient.js';
import { explainModel } from '../../server/src/agents/model/explainModel.js';
import { renameModel } from '../../server/src/agents/model/renameModel.js';
import type { Prompt } from '../../server/src/agents/modelTask.js';
import { explainTask } from '../../server/src/tasks/explainTask.js';
import { renameTask } from '../../server/src/tasks/renameTask.js';
import type { ScriptedModel } from '../support/scriptedModel.js';
import { readSegment, segmentFiles } from '../support/traceFiles.js';

/** A request's workspace and the project of its root tsconfig. */
function inWorkspace(root: string): { workspace: Workspace; project: WorkspaceProject } {
  const workspace = new Workspace(root);
  return { workspace, project: workspace.projects.workspace };
}

const directories: string[] = [];
function workspace(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-privacy-'));
  directories.push(root);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
  await model?.close();
  model = undefined;
  forgetRememberedSecrets();
});

describe('ignore rules', () => {
  it('read .gitignore, .assistantignore and .git/info/exclude at the root and below, deeper files winning, as git does', () => {
    const root = workspace({
      '.gitignore': 'private/\n*.local.ts\n',
      '.assistantignore': 'src/internal/\n',
      '.git/info/exclude': 'scratch.ts\n',
      'packages/api/.gitignore': '/generated/\n!keep.local.ts\n',
      'src/a.ts': '',
    });
    const exclusion = new WorkspaceExclusion(root);
    const check = (relative: string) => exclusion.check(path.join(root, relative));
    expect(check('src/a.ts')).toBeUndefined();
    expect(check('private/keys.ts')).toMatchObject({ why: 'ignored', source: '.gitignore', pattern: 'private/' });
    expect(check('src/internal/vendor.ts')).toMatchObject({ why: 'ignored', source: '.assistantignore', pattern: 'src/internal/' });
    expect(check('scratch.ts')).toMatchObject({ why: 'ignored', source: '.git/info/exclude' });
    expect(check('packages/api/generated/client.ts')).toMatchObject({ why: 'ignored', source: 'packages/api/.gitignore' });
    // Anchored to its own folder, not the root's.
    expect(check('generated/client.ts')).toBeUndefined();
    expect(check('packages/api/x.local.ts')).toMatchObject({ why: 'ignored' });
    expect(check('packages/api/keep.local.ts')).toBeUndefined();
    expect(check('.env.production')).toMatchObject({ why: 'secret' });
    expect(describeExclusion(check('private/keys.ts')!)).toBe('private/keys.ts is matched by .gitignore (private/), so it is never sent to a model');
  });

  it('see a changed ignore file at once', () => {
    const root = workspace({ 'src/a.ts': '' });
    const exclusion = new WorkspaceExclusion(root);
    expect(exclusion.check(path.join(root, 'src/a.ts'))).toBeUndefined();
    fs.writeFileSync(path.join(root, '.assistantignore'), 'src/a.ts\n');
    expect(exclusion.check(path.join(root, 'src/a.ts'))).toMatchObject({ why: 'ignored', source: '.assistantignore' });
  });

  it('place a path in the workspace, and resolve it, as path.resolve and path.relative would, for odd paths too', () => {
    const expected = (root: string, fsPath: string): string | undefined => {
      const relative = path.relative(path.resolve(root), path.resolve(fsPath));
      return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
    };
    const ws = workspace({ 'src/a.ts': '' });
    const tails = ['a.ts', 'src/a.ts', '.hidden/x.ts', '..foo', '..foo/a.ts', '...', 'src/../a.ts', 'src/./a.ts', 'src//a.ts', 'src/', 'src/.', 'src/..', '..', '.', '', 'a..b/c.ts', 'src/.../d.ts', 'é/日本.ts'];
    for (const root of [ws, `${ws}/`, `${ws}/sub/..`, '/']) {
      const exclusion = new WorkspaceExclusion(root);
      const view = exclusion.view();
      for (const tail of tails) {
        for (const fsPath of [`${path.resolve(root)}/${tail}`, `${path.resolve(root)}${tail}`, `${root}/${tail}`, tail, `/elsewhere/${tail}`]) {
          expect(exclusion.relative(fsPath), `${root} + ${fsPath}`).toBe(expected(root, fsPath));
          expect(resolvePath(fsPath), fsPath).toBe(path.resolve(fsPath));
          // Twice through a view: the second answer is the view's own memory of the first.
          expect(view.relative(fsPath), `${root} + ${fsPath} (view)`).toBe(expected(root, fsPath));
          expect(view.relative(fsPath), `${root} + ${fsPath} (view, again)`).toBe(expected(root, fsPath));
        }
      }
    }
  });

  it('recognise secret files by name', () => {
    for (const file of ['.env', '.env.local.ts', 'config/.env.production', 'src/secrets.ts', 'id_rsa', 'certs/server.pem', '.npmrc', 'prod.tfvars', 'service-account-prod.json', 'home/.aws/config']) expect(isSecretPath(file), file).toBe(true);
    for (const file of ['src/env.ts', 'src/config.ts', 'src/secretary.ts', 'docs/keyboard.md']) expect(isSecretPath(file), file).toBe(false);
  });

  it('keeps code named for what it handles (password-reset.ts), and stores named as such out', () => {
    for (const file of ['src/auth/password-reset.ts', 'tools/secret_scanner.py', 'src/credentials-provider.js', 'src/reset-password.tsx']) expect(isSecretPath(file), file).toBe(false);
    for (const file of ['src/secrets.ts', 'src/secret.ts', 'config/secrets.prod.ts', 'src/credentials.js', 'db-password.txt', 'app.secrets.json', 'secrets.yaml', 'password_store.json', 'secret-secrets.ts']) expect(isSecretPath(file), file).toBe(true);
  });
});

describe('workspace values kept from models', () => {
  it('takes the secret-looking values of .env files, not NODE_ENV or PORT', () => {
    const values = dotenvValues('NODE_ENV=development\nPORT=3000\nAPI_TOKEN="CANARY_ENV_5f1c9e retry backoff"\nexport DB_PASSWORD=hunter22 # local\nSESSION=Zx81kQ2mL0pR7wT4\n');
    expect([...values.keys()].sort()).toEqual(['CANARY_ENV_5f1c9e', 'CANARY_ENV_5f1c9e retry backoff', 'Zx81kQ2mL0pR7wT4', 'hunter22'].sort());
  });

  it('finds the relative specifiers a document imports, requires or imports dynamically, and nothing else', () => {
    const text = [
      "import { a } from './a.js';",
      "export * from '../b';",
      'const c = await import("./c/index.js");',
      "const d = require( './d.json' );",
      "import {\n  e,\n} from\n\n    './e';",
      "import f from \"./f'",
      "const path = './not-an-import.ts';",
      "const empty = require('./');",
      "const three = require('.../g');",
      "const broken = require('./h",
      "');",
      "import type { I } from '@scope/i';",
      "import j from 'j/./k';",
      `const far = require(${' '.repeat(250)}'./far-away');`,
    ].join('\n');
    expect(relativeSpecifiers(text)).toEqual(['./a.js', '../b', './c/index.js', './d.json', './e', './f']);
    // The same as a pattern over the whole text finds, where the white space before a quote is not 200 characters long.
    const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"'\n]+)["']/g;
    const source = fs.readFileSync(path.join(__dirname, '..', '..', 'server', 'src', 'context', 'requestContext.ts'), 'utf8');
    expect(relativeSpecifiers(source)).toEqual([...source.matchAll(pattern)].map((match) => match[1]));
    expect(relativeSpecifiers(source).length).toBeGreaterThan(10);
  });

  it('adds the literals of ignored files the document imports, but not of files that may be sent', () => {
    const root = workspace({
      '.gitignore': 'private/\n',
      '.env': 'STRIPE_KEY=sk_live_abcdefghijklmnop1234\n',
      'private/salt.ts': "export const SALT = 'CANARY_GITIGNORE_8c2e47';\n",
      'src/public.ts': "export const GREETING = 'hello there, world';\n",
      'src/main.ts': "import { SALT } from '../private/salt.js';\nimport { GREETING } from './public.js';\n",
    });
    const main = path.join(root, 'src/main.ts');
    const folder = new Workspace(root);
    const values = protectedValues(folder, { fsPath: main, text: fs.readFileSync(main, 'utf8') });
    expect(values.get('CANARY_GITIGNORE_8c2e47')).toBe('ignored-file');
    expect(values.get('sk_live_abcdefghijklmnop1234')).toBe('dotenv');
    expect(values.has('hello there, world')).toBe(false);

    // The user types: a text of its own, the same imports (resolved from memory), and a new import of a file that
    // did not exist a moment ago.
    const typed = `${fs.readFileSync(main, 'utf8')}// typing\n`;
    expect(protectedValues(folder, { fsPath: main, text: typed }).get('CANARY_GITIGNORE_8c2e47')).toBe('ignored-file');
    const withPepper = `${typed}import { PEPPER } from '../private/pepper.js';\n`;
    expect(protectedValues(folder, { fsPath: main, text: withPepper }).has('CANARY_PEPPER_3b9d51')).toBe(false);
    fs.writeFileSync(path.join(root, 'private/pepper.ts'), "export const PEPPER = 'CANARY_PEPPER_3b9d51';\n");
    const again = protectedValues(folder, { fsPath: main, text: `${withPepper}\n` });
    expect(again.get('CANARY_PEPPER_3b9d51')).toBe('ignored-file');
    expect(again.get('CANARY_GITIGNORE_8c2e47')).toBe('ignored-file');
  });
  it('hides a .env value written over one of the same length with its modification time put back, and keeps workspaces apart', async () => {
    const root = workspace({ '.env': 'API_TOKEN=alpha-1111-2222-3333\n' });
    const env = path.join(root, '.env');
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(env, past, past);
    // Settled, so that what was read of it may be kept.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const folder = new Workspace(root);
    expect(protectedValues(folder).has('alpha-1111-2222-3333')).toBe(true);
    expect(protectedValues(folder).has('alpha-1111-2222-3333')).toBe(true);
    // The same size and modification time, as a coarse clock or a tool that keeps times leaves it: only the
    // status-change time moves. A value kept by the old stamp would be sent to a model unredacted.
    const { atime, mtime } = fs.statSync(env);
    fs.writeFileSync(env, 'API_TOKEN=bravo-4444-5555-6666\n');
    fs.utimesSync(env, atime, mtime);
    expect(protectedValues(folder).has('bravo-4444-5555-6666')).toBe(true);
    expect(protectedValues(folder).has('alpha-1111-2222-3333')).toBe(false);
    // A second workspace on another folder in the same process reads its own .env, not the first one's.
    const other = workspace({ '.env': 'API_TOKEN=charlie-7777-8888-99\n' });
    expect([...protectedValues(new Workspace(other)).keys()]).toEqual(['charlie-7777-8888-99']);
  });
});

describe('the model client, where messages leave the process', () => {
  beforeEach(async () => {
    model = await startScriptedModel();
  });

  it('sends no secret and no known value, and puts the values back into the answer', async () => {
    const scripted = model as ScriptedModel;
    scripted.enqueue({ kind: 'text', content: 'Keep `[redacted:stripe-key]` and [redacted:dotenv] as they are.' });
    const client = new ModelClient({ apiKey: 'k', baseURL: scripted.baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true });
    const stripe = 'sk_live_51Hx9kLmNoPqRsTuVwXyZ0123456789abcdef';
    const completion = await client.complete(
      [
        { role: 'system', content: 'You fix code.' },
        { role: 'user', content: `const stripe = "${stripe}";\nconst db = "postgres://app:Pa55-w0rd-x@db:5432/x";` },
        { role: 'assistant', content: `Here: ${stripe}` },
        { role: 'user', content: 'That was rejected:\nAssertionError: expected CANARY_ENV_5f1c9e to be "x"' },
      ],
      new AbortController().signal,
      { knownSecrets: new Map([['CANARY_ENV_5f1c9e', 'dotenv']]) },
    );
    const sent = scripted.requests[0]!.rawBody;
    for (const raw of [stripe, 'Pa55-w0rd-x', 'CANARY_ENV_5f1c9e']) expect(sent).not.toContain(raw);
    expect(sent).toContain('[redacted:stripe-key]');
    expect(sent).toContain('postgres://app:[redacted:url-password]@db:5432/x');
    expect(completion.text).toBe(`Keep \`${stripe}\` and CANARY_ENV_5f1c9e as they are.`);
    expect(completion.redacted).toBe(3);
  });
});

/** A request for the Document task on the first declaration of a file. */
function documentRequest(root: string, relative: string): AgentRequest {
  const fsPath = path.join(root, relative);
  const text = fs.readFileSync(fsPath, 'utf8');
  const declaration = listDeclarations(fsPath, text)[0]!;
  return {
    task: 'document',
    interactionId: 'i1',
    text: 'document this',
    document: { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text },
    target: { name: declaration.name, start: declaration.start, end: declaration.end, declaration },
    parameters: {},
    ...inWorkspace(root),
    history: [],
  };
}

describe('the model agent', () => {
  beforeEach(async () => {
    model = await startScriptedModel();
  });

  it('refuses to send a document the workspace keeps from models, saying why', async () => {
    const scripted = model as ScriptedModel;
    scripted.setDefault({ kind: 'text', content: '/** Documented. */' });
    const root = workspace({ '.assistantignore': 'src/internal/\n', 'src/internal/vendor.ts': "export function vendorKey(): string {\n  return 'CANARY_ASSISTANTIGNORE_3d9a1f';\n}\n", 'src/ok.ts': 'export function ok(): number {\n  return 1;\n}\n' });
    const agent = new OpenAIAgent({ name: 'scripted', endpoint: { apiKey: 'k', baseURL: scripted.baseURL, model: 'm', timeoutMs: 5000, idleTimeoutMs: 2000, maxRetries: 0, stream: true } });
    const refused = await agent.run(documentRequest(root, 'src/internal/vendor.ts'), new AbortController().signal);
    expect(refused).toEqual({ text: '', reason: 'not sent to m: src/internal/vendor.ts is matched by .assistantignore (src/internal/), so it is never sent to a model' });
    expect(scripted.requests).toHaveLength(0);
    const answered = await agent.run(documentRequest(root, 'src/ok.ts'), new AbortController().signal);
    expect(answered.text).toBe('/** Documented. */');
    expect(scripted.requests).toHaveLength(1);
  });
});

/** A document of a copied fixture, as the editor would hand it over. */
function fixtureDocument(root: string, relative: string) {
  const fsPath = path.join(root, relative);
  return { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
}

describe('repository tools quoting other files into prompts', () => {
  it('leave the references in excluded files out of what Explain tells a model', () => {
    const root = copyFixture('explain');
    directories.push(root);
    const document = fixtureDocument(root, 'src/parser.ts');
    const at = document.text.indexOf('parseEntries(text');
    const target = explainTask.offersAt({ document, start: at, end: at, diagnostics: [] })[0]!.target;
    const prompt = (): string => explainModel.buildPrompt({ task: 'explain', interactionId: 'i', text: 'explain', document, target, parameters: {}, ...inWorkspace(root), history: [] }, undefined)!.user;
    expect(prompt()).toContain('`src/main.ts`');
    fs.writeFileSync(path.join(root, '.assistantignore'), 'src/main.ts\n');
    const without = prompt();
    expect(without).not.toContain('src/main.ts');
    expect(without).toContain('- **Callers:**');
  });

  it('leave the uses in excluded files out of the rename prompts, and still rename them', async () => {
    const root = copyFixture('rename');
    directories.push(root);
    fs.writeFileSync(path.join(root, '.gitignore'), 'src/stats.ts\n');
    const document = fixtureDocument(root, 'src/clamp.ts');
    const at = document.text.indexOf('clampAll(values');
    const target = renameTask.offersAt({ document, start: at, end: at, diagnostics: [] })[0]!.target;
    const prompts: Prompt[] = [];
    const answer = await renameModel.run!(
      { task: 'rename', interactionId: 'i', text: 'rename clampAll', document, target, parameters: {}, ...inWorkspace(root), history: [] },
      (prompt) => {
        prompts.push(prompt);
        return Promise.resolve({ text: 'clampValues', finishReason: 'stop' });
      },
      undefined,
      new AbortController().signal,
    );
    expect(prompts).toHaveLength(2);
    for (const prompt of prompts) expect(prompt.user).not.toContain('src/stats.ts');
    // What the user's code needs is not what a model may read: the rename still reaches the ignored file.
    expect(answer.proposal?.documents.map((d) => path.basename(d.uri)).sort()).toContain('stats.ts');
  });
});

describe('the trace', () => {
  it('stores free text and edits redacted and no fragment of an excluded file, and gives this session its edits back whole', async () => {
    const root = workspace({ '.gitignore': 'private/\n' });
    const directory = path.join(root, '.assistant', 'trace');
    const store = await TraceStore.open({ directory, session: { id: 's1', startedAt: '2024-05-01T09:00:00.000Z', user: 'ada', role: 'developer', workspace: root, pid: 1 }, segmentSize: 10 });
    const token = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789';
    const edit = { changes: { 'file:///x.ts': [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: `const token = "${token}";\n` }] } };
    const interaction = (id: string, fullPath: string): Interaction => ({
      id,
      sessionId: 's1',
      timestamp: '2024-05-01T10:00:00.000Z',
      role: 'developer',
      user: 'ada',
      source: 'text',
      text: `fix the call that passes ${token}`,
      task: 'fix',
      context: { resource: { uri: pathToUri(fullPath), fileName: path.basename(fullPath), fullPath, relativePath: path.relative(root, fullPath), project: 'p' }, fragment: { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: `const password = "Hunter-22-x"; // CANARY_GITIGNORE_8c2e47` } },
      responses: [{ id: 'r1', agent: { name: 'm', technology: 'llm', isLLM: true }, status: 'ok', text: `Replace ${token}`, edit, used: false, startedAt: '2024-05-01T10:00:00.000Z', durationMs: 1, verdict: { passed: false, summary: 'failed', details: [`expected ${token}`] } }],
    });
    await store.add(interaction('i1', path.join(root, 'src/a.ts')));
    await store.add(interaction('i2', path.join(root, 'private/keys.ts')));
    await store.amendResponse('i1', 'r1', { feedback: `do not print ${token}` });
    // The session that wrote the edit gets it back as it was, for a revert; the trace itself keeps the placeholder.
    expect(store.getWithSecrets('i1')!.responses[0]!.edit).toEqual(edit);
    expect(JSON.stringify(store.get('i1')!.responses[0]!.edit)).not.toContain(token);
    await store.close();
    const files = segmentFiles(directory);
    expect(files).toHaveLength(1);
    const written = fs.readFileSync(files[0]!, 'utf8');
    const stored = readSegment(files[0]!);
    const [first, second] = stored.interactions;
    expect(first!.text).toBe('fix the call that passes [redacted:github-token]');
    expect(first!.context.fragment!.text).toBe('const password = "[redacted:password]"; // CANARY_GITIGNORE_8c2e47');
    expect(first!.responses[0]!.text).toBe('Replace [redacted:github-token]');
    expect(first!.responses[0]!.verdict!.details).toEqual(['expected [redacted:github-token]']);
    expect(JSON.stringify(first!.responses[0]!.edit)).toContain('const token = \\"[redacted:github-token]\\";');
    expect(second!.context.fragment!.text).toBe('[not recorded: private/keys.ts is matched by .gitignore (private/)]');
    expect(written).not.toContain('Hunter-22-x');
    expect(written).not.toContain(`do not print ${token}`);
    expect(written).not.toContain(token);
  });
});
