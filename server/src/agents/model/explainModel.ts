// The Explain task for model agents: one prompt with the code and its offline structure, asking for short prose grounded in both.
import type { AgentRequest } from '../agent.js';
import { answerOrWhatWasWritten } from './cutAnswer.js';
import type { ModelTaskStrategy, Prompt } from '../modelTask.js';
import { clip, fillTemplate, standardValues } from '../modelTask.js';
import { codeStructure } from '../../repo/structure/codeStructure.js';
import type { CodeStructure } from '../../repo/structure/codeStructure.js';
import { explainStructure, explanationPlaces } from '../offline/explainAgent.js';
import type { WorkspaceExclusion } from '../../privacy/exclusion.js';

const SYSTEM =
  'You explain code to a developer inside their editor. You are given the code and facts about it that the TypeScript ' +
  'type checker and the workspace established: signature and types, the functions it calls and where they are declared, ' +
  'who calls it, its branches and cyclomatic complexity, what it throws. Treat those facts as true and do not contradict ' +
  'them; do not invent callers, behaviour or requirements that neither the code nor the facts show. ' +
  'Answer in markdown prose, without repeating the code.';

const USER =
  'Explain the {{kind}} `{{symbol}}` in {{fileName}}.\n' +
  'Request from the developer: {{request}}\n\n' +
  '```{{language}}\n{{code}}\n```\n\n' +
  'Facts about it:\n{{structure}}\n\n' +
  'In at most 250 words: start with one sentence on what it does and why a caller uses it; then how it works (the main ' +
  'steps and the branches that matter); then edge cases and errors (what happens on unusual input, what it throws); ' +
  'then who uses it, from the callers above. Mention a name only if it appears in the code or the facts.';

/** Longest structure sent: the facts are a summary, and a very long one would crowd out the code. */
const MAX_STRUCTURE_CHARS = 6_000;

/** The facts without the references in files the workspace keeps from models (their names and lines are their content). */
export function withoutExcludedFiles(facts: CodeStructure, exclusions: WorkspaceExclusion): CodeStructure {
  const refs = facts.references;
  if (!refs) return facts;
  const exclusion = exclusions.view();
  const kept = refs.files.filter((file) => !exclusion.checkRelative(file.file));
  if (kept.length === refs.files.length) return facts;
  const total = kept.reduce((sum, file) => sum + file.count, 0);
  // How many came through compiled declarations is not known per file: the count would not match what is left.
  const { through: _through, ...rest } = refs;
  return { ...facts, references: { ...rest, files: kept, total, calls: Math.min(refs.calls, total) } };
}

function factsOf(request: AgentRequest): CodeStructure {
  return withoutExcludedFiles(codeStructure(request.project, request.document, request.target), request.workspace.exclusion);
}

function explainPrompt(request: AgentRequest, facts: CodeStructure, override: string | undefined): Prompt {
  const structure = clip(explainStructure(facts), MAX_STRUCTURE_CHARS);
  // A selection has no name of its own: the prompt calls it by its lines.
  const selection = request.target.declaration ? {} : { kind: 'selection', symbol: facts.line === facts.endLine ? `line ${facts.line}` : `lines ${facts.line}–${facts.endLine}` };
  const values = { ...standardValues(request), ...selection, structure };
  return { system: SYSTEM, user: fillTemplate(override ?? USER, values) };
}

export const explainModel: ModelTaskStrategy = {
  buildPrompt: (request, override) => explainPrompt(request, factsOf(request), override),

  // One call, as without `run`; the facts also give the places the prose is about, for the client to jump to. An
  // explanation cut off at the token limit keeps what was written before the cut (a small model's first paragraphs).
  async run(request, ask, override, signal) {
    const facts = factsOf(request);
    const text = await answerOrWhatWasWritten(ask(explainPrompt(request, facts, override), signal));
    return { text, places: explanationPlaces(facts, request) };
  },
};
