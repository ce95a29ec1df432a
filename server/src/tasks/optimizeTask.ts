// The Optimize task: a function, method or selection rewritten for efficiency, readability, lower complexity or in general; model answers only, replacing just the target, type-checked (and tested when allowed).
import { ts } from 'ts-morph';
import { declarationAt, KIND_LABEL, withSyntaxTree } from '../repo/declarations.js';
import type { DocumentSnapshot } from '../workspace/documentSnapshot.js';
import { declarationTarget } from './documentTask.js';
import { syntaxFileName } from '../workspace/documentSnapshot.js';
import { firstWithin, functionIn, isEmptyBody } from './generateTask.js';
import { replaceTargetWithCode } from './replaceCode.js';
import { checkRewrite } from './rewriteCheck.js';
import type { TaskAnswer, TaskDefinition, TaskOffer, TaskTarget } from './task.js';

export const OPTIMIZE_GOALS = ['general', 'efficiency', 'readability', 'complexity'] as const;
export type OptimizeGoal = (typeof OPTIMIZE_GOALS)[number];

/** Bodies shorter than this many lines are left alone: there is too little to improve. */
const MIN_BODY_LINES = 3;

/** The goal a request names: "faster" is efficiency, "clearer" readability, "simpler" complexity; else general. */
export function goalOf(text: string): OptimizeGoal {
  const t = text.toLowerCase();
  if (/\b(fast(er)?|speed|slow|perf(ormance|ormant)?|efficien(t|cy)|memory|allocat\w*|quadratic|big[- ]?o|cache|caching)\b/.test(t)) return 'efficiency';
  if (/\b(complex(ity)?|nest(ed|ing)?|cyclomatic|simpl(er|ify|ified)|flatten|branch(es|ing)?|early return)\b/.test(t)) return 'complexity';
  if (/\b(read(able|ability)?|clear(er)?|clean(er|up)?|idiomatic|tidy|naming|understand)\b/.test(t)) return 'readability';
  return 'general';
}

function isGoal(value: string | undefined): value is OptimizeGoal {
  return (OPTIMIZE_GOALS as readonly string[]).includes(value ?? '');
}

const GOAL_WORDS: Record<OptimizeGoal, string> = { general: '', efficiency: ' for speed', readability: ' for readability', complexity: ' to reduce complexity' };

/** Whether `text` from `start` to `end` spans at least `lines` lines (counted up to that many, on a request's path). */
function spansLines(text: string, start: number, end: number, lines: number): boolean {
  let newline = start - 1;
  for (let seen = 1; seen < lines; seen++) {
    newline = text.indexOf('\n', newline + 1);
    if (newline < 0 || newline >= end) return false;
  }
  return true;
}

function optimizeOffers(document: DocumentSnapshot, start: number, end: number, goal: OptimizeGoal = 'general'): TaskOffer[] {
  const fileName = syntaxFileName(document);
  const text = document.text;
  const declaration = declarationAt(fileName, text, start, end);
  const selected = start !== end && text.slice(start, end).trim() !== '';
  // A selection that is not just the declaration's own range is what the user wants rewritten.
  if (selected && (!declaration || start > declaration.start || end < declaration.end)) {
    if (text.slice(start, end).split('\n').filter((l) => l.trim() !== '').length < 2) return [];
    const target: TaskTarget = { name: 'the selection', start, end };
    return [{ task: 'optimize', title: `Assistant: Optimize the selection${GOAL_WORDS[goal]}`, kind: 'refactor.rewrite.assistant.optimize', target, parameters: { goal } }];
  }
  if (!declaration || declaration.kind === 'class' || declaration.kind === 'interface') return [];
  const longEnough = withSyntaxTree(fileName, text, (source) => {
    const fn = functionIn(source, declaration.start, declaration.end);
    if (fn) return !isEmptyBody(fn.body, source) && spansLines(text, fn.body.getStart(source), fn.body.getEnd(), MIN_BODY_LINES);
    // An arrow function whose body is one expression (`() =>` and a condition over three lines) is worth rewriting too.
    const body = firstWithin(source, declaration.start, declaration.end, (node) => (ts.isArrowFunction(node) && !ts.isBlock(node.body) ? node.body : undefined));
    return body !== undefined && spansLines(text, body.getStart(source), body.getEnd(), MIN_BODY_LINES);
  });
  if (!longEnough) return [];
  return [{ task: 'optimize', title: `Assistant: Optimize ${KIND_LABEL[declaration.kind]} ${declaration.name}${GOAL_WORDS[goal]}`, kind: 'refactor.rewrite.assistant.optimize', target: declarationTarget(declaration), parameters: { goal } }];
}

export const optimizeTask: TaskDefinition = {
  id: 'optimize',

  offersAt: ({ document, start, end }) => optimizeOffers(document, start, end),

  /** The request's words choose the goal ("make this faster" → efficiency). */
  askTarget(document, start, end, text) {
    const offer = optimizeOffers(document, start, end, goalOf(text))[0];
    return offer ? { target: offer.target, ...(offer.parameters ? { parameters: offer.parameters } : {}) } : undefined;
  },

  invalidParameters: (parameters) => (isGoal(parameters.goal) ? undefined : `parameters.goal must be one of ${OPTIMIZE_GOALS.join(', ')}; got "${parameters.goal ?? ''}".`),

  convertAnswer(answer, run, annotation): TaskAnswer {
    const declared = run.target.declaration;
    return replaceTargetWithCode(answer.text, run, annotation, declared ? { declares: declared.simpleName } : {});
  },

  check: (proposal, run, context, signal) => checkRewrite(proposal, run, context, signal),
};
