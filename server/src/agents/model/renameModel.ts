// The Rename task for model agents: names suggested by two prompts (with the current name, and with it hidden), each checked and offered as its own rename.
import type { AgentAnswer, AgentRequest } from '../agent.js';
import type { AskModel, ModelTaskStrategy, Prompt } from '../modelTask.js';
import { clip, fillTemplate, standardValues, withoutAnnotations } from '../modelTask.js';
import { normaliseNewName, prepareRename, renameAnchor } from '../../repo/renameSymbol.js';
import type { PreparedRename } from '../../repo/renameSymbol.js';

/** What stands for the name in the prompt that hides it. */
export const MASK = '__NAME__';
/** Names asked of each prompt. */
const PER_PROMPT = 3;

const SYSTEM =
  'You are an expert TypeScript and JavaScript developer who names code so that it reads well. You suggest identifiers. ' +
  `Answer with at most ${PER_PROMPT} names, one per line, best first: only the identifiers, with no numbering, no explanation and no code.`;

const USER_NAMED =
  'Suggest a better name for the {{kind}} `{{symbol}}` in {{fileName}}. The name should say what it is or does, and follow {{convention}}.\n' +
  'Request from the developer: {{request}}\n\n' +
  'Declaration:\n```{{language}}\n{{code}}\n```\n\n' +
  'Where it is used:\n{{usages}}';

// The CARET study asked for names both ways: without the current name the model is not anchored to it.
const USER_MASKED =
  `The name of a {{kind}} in {{fileName}} has been replaced by \`${MASK}\` everywhere below. ` +
  'Suggest a name for it that says what it is or does, and follows {{convention}}.\n\n' +
  'Declaration:\n```{{language}}\n{{code}}\n```\n\n' +
  'Where it is used:\n{{usages}}';

const NAME = /^#?[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$\u200c\u200d]*/u;

/** A pattern matching `name` as a whole identifier (not inside a longer one). */
function wholeName(name: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}$_])${name.replace(/[$]/g, '\\$')}(?![\\p{L}\\p{N}$_])`, 'gu');
}

/** The identifiers of a model's answer, one per line, with list markers, quotes and explanations dropped. */
export function parseSuggestedNames(text: string, max = PER_PROMPT): string[] {
  const names: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw
      .trim()
      .replace(/^(?:[-*•+]|\d+[.)])\s*/, '')
      .replace(/^[`'"*]+/, '');
    if (line === '' || line.startsWith('```')) continue;
    const name = NAME.exec(line)?.[0];
    if (name && name !== MASK && !names.includes(name)) names.push(name);
    if (names.length >= max) break;
  }
  return names;
}

function conventionText(prepared: PreparedRename): string {
  const styles = prepared.conventions();
  return styles && styles.length > 0 ? `the ${styles.join(' or ')} convention of the code` : 'the conventions of the code';
}

/** The two prompts: one showing the current name, one with every occurrence of it replaced by the mask. */
export function renamePrompts(request: AgentRequest, prepared: PreparedRename, override: string | undefined): { named: Prompt; masked: Prompt } {
  const standard = standardValues(request);
  // Files the workspace keeps from models lend neither their code nor their uses to the prompt.
  const exclusion = request.workspace.exclusion.view();
  const sendable = (fileName: string): boolean => exclusion.check(fileName) === undefined;
  const declarationFile = prepared.declarationFile();
  const declaration = declarationFile === undefined || sendable(declarationFile) ? prepared.declarationCode() : '';
  const values = {
    ...standard,
    symbol: prepared.oldName,
    kind: prepared.kindLabel,
    code: clip(withoutAnnotations(declaration) || (standard.code ?? ''), 8_000),
    usages: prepared.usages(6, sendable).join('\n') || '(no other uses)',
    convention: conventionText(prepared),
  };
  const mask = (text: string): string => text.replace(wholeName(prepared.oldName), MASK);
  const maskedValues = { ...values, symbol: MASK, request: '', code: mask(values.code), usages: mask(values.usages), fileName: mask(standard.fileName ?? '') };
  return {
    named: { system: SYSTEM, user: fillTemplate(override ?? USER_NAMED, values) },
    // Masked once more as a whole, so an override template cannot bring the name back in.
    // The workspace context would name the symbol again: the masked prompt goes without it.
    masked: { system: SYSTEM, user: mask(fillTemplate(override ?? USER_MASKED, maskedValues)), withContext: false },
  };
}

/** Both lists interleaved, best of each first, without repeats. */
function interleave(first: string[], second: string[]): { name: string; from: 'named' | 'masked' | 'both' }[] {
  const merged: { name: string; from: 'named' | 'masked' | 'both' }[] = [];
  for (let i = 0; i < Math.max(first.length, second.length); i++) {
    for (const [list, from] of [[first, 'named'], [second, 'masked']] as const) {
      const name = list[i];
      if (name === undefined) continue;
      const seen = merged.find((m) => m.name === name);
      if (seen) seen.from = seen.from === from ? from : 'both';
      else merged.push({ name, from });
    }
  }
  return merged;
}

const ORIGIN: Record<'named' | 'masked' | 'both', string> = {
  named: 'Suggested from the code with its current name.',
  masked: 'Suggested from the code with the current name hidden.',
  both: 'Suggested both with the current name and with it hidden.',
};

export const renameModel: ModelTaskStrategy = {
  buildPrompt: (request, override) => ({ system: SYSTEM, user: fillTemplate(override ?? USER_NAMED, { ...standardValues(request), usages: '', convention: 'the conventions of the code' }) }),

  async run(request, ask: AskModel, override, signal): Promise<AgentAnswer> {
    // A given name is the offline agent's job; suggesting others would only add choices the user did not ask for.
    if (request.parameters.newName?.trim()) return { text: '' };
    const anchor = renameAnchor(request.target);
    const prepared = prepareRename(request.project, request.document, anchor.start, signal);
    if (!prepared.ok) return { text: `cannot suggest names: ${prepared.reason}` };
    const rename = prepared.value;
    const prompts = renamePrompts(request, rename, override);
    // One after the other, so the second prompt is the one without the name, whatever the endpoint's concurrency.
    const named = parseSuggestedNames((await ask(prompts.named, signal)).text);
    signal.throwIfAborted();
    const masked = parseSuggestedNames((await ask(prompts.masked, signal)).text);
    signal.throwIfAborted();

    const answers: AgentAnswer[] = [];
    const problems: string[] = [];
    for (const { name, from } of interleave(named, masked)) {
      const newName = normaliseNewName(name, rename.oldName);
      if (newName === rename.oldName) continue;
      const problem = rename.validate(newName);
      if (problem) {
        problems.push(problem);
        continue;
      }
      answers.push({ text: `Rename ${rename.oldName} to ${newName}\n${ORIGIN[from]}`, proposal: rename.proposal(newName) });
    }
    const [first, ...alternatives] = answers;
    if (!first) {
      const why = problems.length > 0 ? problems.join('; ') : 'the model suggested no names';
      // Said without the current name: this text goes back to both prompts as feedback when the agent is asked again.
      return { text: `none of the suggested names can be used: ${why}`.replace(wholeName(rename.oldName), 'the current name') };
    }
    return { ...first, ...(alternatives.length > 0 ? { alternatives } : {}) };
  },
};
