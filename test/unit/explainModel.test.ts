// Unit tests of the Explain prompt for model agents: the code and the offline structure both reach the model, and overrides can place them.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { explainModel, withoutExcludedFiles } from '../../server/src/agents/model/explainModel.js';
import { codeStructure } from '../../server/src/repo/structure/codeStructure.js';
import { modelTasks } from '../../server/src/agents/modelTasks.js';
import type { AgentRequest } from '../../server/src/agents/agent.js';
import type { WorkspaceProject } from '../../server/src/workspace/workspaceProject.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { explainTask } from '../../server/src/tasks/explainTask.js';
import type { DocumentSnapshot } from '../../server/src/workspace/documentSnapshot.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { copyFixture } from '../support/lspClient.js';

let project: WorkspaceProject;
let ws: Workspace;
let document: DocumentSnapshot;

beforeAll(() => {
  const root = copyFixture('explain');
  ws = new Workspace(root);
  project = ws.projects.workspace;
  const fsPath = path.join(root, 'src/parser.ts');
  document = { uri: pathToUri(fsPath), fsPath, languageId: 'typescript', version: 1, text: fs.readFileSync(fsPath, 'utf8') };
});

function request(start: number, end = start, text = 'explain this'): AgentRequest {
  const [offer] = explainTask.offersAt({ document, start, end, diagnostics: [] });
  if (!offer) throw new Error('nothing offered');
  return { task: 'explain', interactionId: 'i', text, document, target: offer.target, parameters: {}, workspace: ws, project, history: [] };
}

describe('explainModel', () => {
  it('is the strategy model agents use for explain', () => {
    expect(modelTasks()).toContain('explain');
  });

  it('puts the code and the structure the offline agent found in the prompt, and asks for grounded prose', () => {
    const at = document.text.indexOf('parseEntries(text');
    const prompt = explainModel.buildPrompt(request(at, at, 'what does parseEntries do?'), undefined)!;
    expect(prompt.system).toMatch(/do not invent callers/);
    expect(prompt.user).toContain('Explain the function `parseEntries` in src/parser.ts.');
    expect(prompt.user).toContain('Request from the developer: what does parseEntries do?');
    expect(prompt.user).toContain("```typescript\nexport function parseEntries(text: string, strict = false): Entry[] {");
    expect(prompt.user).toContain('- **Callers:** 5 references in 2 files, 4 of them calls:');
    expect(prompt.user).toContain('**cyclomatic complexity 6**');
    expect(prompt.user).toMatch(/edge cases and errors/);
  });

  it('leaves out the callers in files kept from models, and the count of those found through compiled declarations', () => {
    const at = document.text.indexOf('parseEntries(text');
    const facts = codeStructure(project, document, request(at).target);
    const root = copyFixture('explain');
    fs.writeFileSync(path.join(root, '.assistantignore'), 'src/main.ts\n');
    const withCopies = { ...facts, references: { ...facts.references!, through: [{ file: 'parser.d.ts', count: 3 }] } };
    const kept = withoutExcludedFiles(withCopies, new Workspace(root).exclusion);
    expect(kept.references).toMatchObject({ total: 2, files: [{ file: 'src/parser.ts' }] });
    expect(kept.references?.through).toBeUndefined();
  });

  it('calls a selection by its lines', () => {
    const start = document.text.indexOf('const trimmed');
    const end = document.text.indexOf("continue;", start) + 'continue;'.length;
    const prompt = explainModel.buildPrompt(request(start, end), undefined)!;
    expect(prompt.user).toContain('Explain the selection `lines 18–19` in src/parser.ts.');
    expect(prompt.user).toContain('**Declares** `trimmed`; **reads** `line`');
  });

  it("fills a user's template with the standard placeholders and {{structure}}", () => {
    const at = document.text.indexOf('double =');
    const prompt = explainModel.buildPrompt(request(at), 'Explain {{symbol}} ({{kind}}, {{language}}) for a newcomer.\n{{structure}}\n---\n{{code}}')!;
    expect(prompt.user).toBe(
      [
        'Explain double (arrow function, typescript) for a newcomer.',
        '**function `double`** in `src/parser.ts`, line 34 (exported, undocumented).',
        '- **Signature:** `double(n: number): number`',
        '- **Returns** `number`: `n * 2` (line 34).',
        '- **Callers:** 1 reference in 1 file: `src/main.ts` (1): `main` (line 11).',
        '- Calls nothing, has no branches (cyclomatic complexity 1) and throws nothing itself.',
        '---',
        'export const double = (n: number): number => n * 2;',
      ].join('\n'),
    );
  });
});
