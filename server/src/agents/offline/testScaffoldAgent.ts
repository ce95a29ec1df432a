// The offline Test agent: a compiling test-file scaffold in the project's framework, from the code and its types, with no model.
import path from 'node:path';
import { ts } from 'ts-morph';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest } from '../agent.js';
import type { DeclarationTarget } from '../../repo/declarations.js';
import type { WorkspaceProject } from '../../workspace/workspaceProject.js';
import type { DocumentSnapshot } from '../../workspace/documentSnapshot.js';
import { typeCheckNewFile } from '../../oracle/typeCheck.js';
import { testFileProposal, testPlaceOf } from '../../tasks/testTask.js';
import type { TestPlace } from '../../tasks/testTask.js';
import { buildScaffold } from './testScaffold.js';
import type { Scaffold } from './testScaffold.js';

/** Answers Test requests offline with a scaffold that type-checks; the todos are left for the developer. */
export class OfflineTestScaffoldAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'test-scaffold-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['test'];
  readonly description = "Writes a test-file scaffold in the project's framework: a describe per symbol, a todo per behaviour seen in the code, and smoke calls built from the types.";

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const target = request.target.declaration;
    const place = testPlaceOf(request.workspace, request.document);
    if (!target || !place) return { text: '' };
    const scaffold = writeScaffold(request.project, request.document, target, place, { verify: true, signal });
    signal.throwIfAborted();
    if (!scaffold) return { text: '' };
    // The proposal marks the answer as computed here, not written by a model; the task still builds the one it offers.
    return { text: scaffold.text, proposal: testFileProposal(place.testPath, scaffold.text, undefined).proposal };
  }
}

/**
 * The scaffold for `target`. With `verify`, it is type-checked as the test file it would become; when it fails only
 * with its smoke calls in, it is written again without them (their arguments are built from types and may miss).
 */
export function writeScaffold(project: WorkspaceProject, document: DocumentSnapshot, target: DeclarationTarget, place: TestPlace, options: { verify: boolean; signal?: AbortSignal }): Scaffold | undefined {
  const { source, checker } = parsedWithTypes(project, document);
  const input = { source, checker, target, convention: place.convention, sourcePath: place.sourcePath, testPath: place.testPath };
  const scaffold = buildScaffold({ ...input, smoke: true });
  if (!scaffold || !options.verify || scaffold.smokeTests === 0) return scaffold;
  const errorsOf = (candidate: Scaffold): number => typeCheckNewFile(project, { path: place.testPath, text: testFileProposal(place.testPath, candidate.text, undefined).fileText }).length;
  if (errorsOf(scaffold) === 0) return scaffold;
  options.signal?.throwIfAborted();
  const plain = buildScaffold({ ...input, smoke: false });
  return plain && errorsOf(plain) === 0 ? plain : scaffold;
}

/** The document's syntax tree with the workspace's type checker, or the syntax alone when the project cannot load. */
function parsedWithTypes(project: WorkspaceProject, document: DocumentSnapshot): { source: ts.SourceFile; checker: ts.TypeChecker | undefined } {
  const fsPath = document.fsPath ?? path.join(project.root, '__assistant_untitled__', 'untitled.ts');
  try {
    const sourceFile = project.sourceFile(fsPath, document.text);
    const program = sourceFile.getProject().getProgram().compilerObject;
    const compiled = program.getSourceFile(sourceFile.getFilePath());
    if (compiled) return { source: compiled, checker: program.getTypeChecker() };
    return { source: sourceFile.compilerNode, checker: undefined };
  } catch {
    const kind = /\.[cm]?jsx?$/i.test(fsPath) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    return { source: ts.createSourceFile(fsPath, document.text, ts.ScriptTarget.Latest, true, kind), checker: undefined };
  }
}
