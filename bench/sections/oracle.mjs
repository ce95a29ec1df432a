// Benchmark section (own process): the in-memory type-check oracle (oracle/typeCheck.ts) on an edit of a large file.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, positionsOf, sectionMain, timeRuns } from '../support.mjs';

const dist = (relative) => import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'server', 'src', relative)).href);
const { WorkspaceProjects } = await dist('workspace/workspaceProject.js');
const { typeCheckProposal, noNewDiagnosticsRule } = await dist('oracle/typeCheck.js');

/** Offsets just inside the bodies of functions and methods: where an edit adds a statement. */
function bodyOffsets(text) {
  const out = [];
  for (const match of text.matchAll(/^(?:export )?(?:async )?function [^\n]*\{\n|^ {2}[a-z]\w*\([^\n]*\)[^\n;]*\{\n/gm)) out.push(match.index + match[0].length);
  return out.length ? out : [0];
}

sectionMain(async ({ root, bigFile, coldRuns, warmRuns }) => {
  const text = fs.readFileSync(bigFile, 'utf8');
  const uri = pathToFileURL(bigFile).href;
  const offsets = bodyOffsets(text);
  // Each check edits a different place with a different statement, so nothing is answered from a cache.
  const proposal = (i) => {
    const at = offsets[(i * 17) % offsets.length];
    return { documents: [{ uri, version: 1, baseText: text, edits: [{ start: at, end: at, newText: `    const benchProbe${i} = ${i} as number;\n` }] }], creates: [] };
  };
  const signal = new globalThis.AbortController().signal;
  let run = 0;
  const verdicts = { passed: 0, failed: 0 };
  const check = async (project) => {
    const verdict = await typeCheckProposal(project, proposal(run++), signal, noNewDiagnosticsRule);
    verdicts[verdict.passed ? 'passed' : 'failed'] += 1;
    return verdict;
  };
  // Cold: a new workspace project, so the program, the file and what it imports are loaded again. The project is the
  // one of the config that governs the file (a monorepo package's own tsconfig), as the server's tasks take it.
  const projectOf = () => new WorkspaceProjects(root).forFile(bigFile);
  const cold = await timeRuns(coldRuns, () => check(projectOf()));
  const project = projectOf();
  await check(project);
  const warm = await timeRuns(warmRuns, () => check(project));
  return { file: path.relative(root, bigFile), config: project.configFile ? path.relative(root, project.configFile) : null, fileLines: text.split('\n').length, functions: positionsOf(text, /function /g).length, cold: cold.stats, warm: warm.stats, verdicts, lastVerdict: warm.last?.summary ?? cold.last?.summary };
});
