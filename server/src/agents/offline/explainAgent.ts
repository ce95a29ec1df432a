// The offline Explain agent: the structure of a declaration or selection as markdown (types, calls, callers, branches), with no model.
import path from 'node:path';
import type { AgentDescriptor, TaskId } from '../../protocol.js';
import type { Agent, AgentAnswer, AgentRequest, AnswerPlace } from '../agent.js';
import { pathToUri } from '../../workspace/documentSnapshot.js';
import { codeStructure } from '../../repo/structure/codeStructure.js';
import { code, NO_VALUE } from '../../repo/structure/structureText.js';
import { KIND_LABEL } from '../../repo/declarations.js';
import type { CallSummary, CodeStructure, ReferenceSummary } from '../../repo/structure/codeStructure.js';

/** Items a list shows before "and N more": enough to read, few enough to scan. */
const SHOWN = { calls: 12, files: 8, users: 5, lines: 6, sites: 8, members: 15, statements: 8, names: 12, throws: 6, returns: 3 } as const;

/** Answers Explain requests offline: deterministic, instant apart from the reference search, and always available. */
export class OfflineExplainAgent implements Agent {
  readonly descriptor: AgentDescriptor = { name: 'explain-offline', technology: 'rule', isLLM: false };
  readonly tasks: readonly TaskId[] = ['explain'];
  readonly description = 'Describes the structure of a declaration or selection without a model: signature and types, what it returns and calls, who calls it, branches and complexity, what it throws, its documentation.';

  async run(request: AgentRequest, signal: AbortSignal): Promise<AgentAnswer> {
    signal.throwIfAborted();
    const structure = codeStructure(request.project, request.document, request.target, signal);
    return { text: explainStructure(structure), places: explanationPlaces(structure, request) };
  }
}

/**
 * The places an explanation names, for the client to jump to: the code explained, then where it is used (each
 * reference, the cursor on the name), then the workspace declarations it calls.
 */
export function explanationPlaces(s: CodeStructure, request: Pick<AgentRequest, 'document' | 'project'>): AnswerPlace[] {
  const uriOf = (file: string): string => (file === s.file ? request.document.uri : pathToUri(path.resolve(request.project.root, file)));
  const explained = s.kind === 'selection' ? { label: 'the selection (explained)' } : { label: `${KIND_LABEL[s.kind]} ${s.name} (explained)`, name: s.name };
  const places: AnswerPlace[] = [{ uri: request.document.uri, line: s.line, ...explained }];
  for (const file of s.references?.files ?? []) {
    for (const user of file.users) {
      const label = user.name !== undefined ? `used by ${user.name}` : 'used at the top level';
      for (const line of user.lines) places.push({ uri: uriOf(file.file), line, label, name: s.name });
    }
  }
  for (const call of s.calls) {
    if (call.declaredAt) places.push({ uri: uriOf(call.declaredAt.file), line: call.declaredAt.line, label: `calls ${call.name}`, name: call.name });
  }
  return places;
}

/** The structure as a short markdown text: a headline, then one bullet per fact, long lists nested and capped. */
export function explainStructure(s: CodeStructure): string {
  const lines = [headline(s)];
  const bullet = (text: string, nested: string[] = []): void => {
    lines.push(`- ${text}`, ...nested.map((item) => `  - ${item}`));
  };
  if (s.signature) bullet(`**Signature:** ${code(s.signature)}`);
  if (s.documentation) {
    const tags = s.documentation.tags.length ? ` (tags: ${s.documentation.tags.join(', ')})` : '';
    bullet(`**Documentation:** ${s.documentation.summary || '(no summary)'}${tags}`);
    if (s.documentation.deprecated !== undefined) bullet(`**Deprecated:** ${s.documentation.deprecated || 'yes'}`);
  }
  if (s.members) {
    const shown = s.members.slice(0, SHOWN.members).map((m) => `${code(m.signature)} (line ${m.line}${m.modifiers.length ? `, ${m.modifiers.join(' ')}` : ''}${m.complexity && m.complexity > 1 ? `, complexity ${m.complexity}` : ''})`);
    bullet(`**Members** (${s.members.length}):`, withMore(shown, s.members.length));
  }
  if (s.statements && s.statements.length > 1) {
    const shown = s.statements.slice(0, SHOWN.statements).map((st) => `line ${st.line}: ${code(st.text)}`);
    bullet(`**Statements** (${s.statements.length}):`, withMore(shown, s.statements.length));
  }
  const names = namesLine(s);
  if (names) bullet(names);
  const returns = returnsLine(s);
  if (returns) bullet(returns);
  if (s.subject === 'declaration') {
    const callers = callersLines(s);
    bullet(callers.text, callers.nested);
  }
  if (s.kind !== 'interface') {
    // What the code does not do fits on one line; what it does gets a bullet each.
    const absent: string[] = [];
    if (s.calls.length === 0) absent.push('calls nothing');
    else bullet(...callsLines(s.calls, s.callSites));
    const branches = branchesLines(s);
    if (branches) bullet(branches.text, branches.nested);
    else absent.push('has no branches (cyclomatic complexity 1)');
    if (s.throws.length === 0) absent.push(s.subject === 'selection' ? 'throws nothing' : 'throws nothing itself');
    else bullet(...throwsLines(s));
    if (absent.length) bullet(`${capitalize(joinWords(absent))}.`);
  }
  if (!s.typed) bullet('_Read from the syntax alone: the TypeScript project gave no type information._');
  return lines.join('\n');
}

function headline(s: CodeStructure): string {
  const where = `${code(s.file)}, ${s.line === s.endLine ? `line ${s.line}` : `lines ${s.line}–${s.endLine}`}`;
  if (s.subject === 'selection') {
    const inside = s.enclosing ? `, inside ${code(s.enclosing)}` : '';
    const count = s.statements?.length ?? 0;
    const what = s.expressionType !== undefined ? `an expression of type ${code(s.expressionType)}` : count === 0 ? 'no complete code' : `${count} ${count === 1 ? 'statement or expression' : 'statements'}`;
    return `**The selection** in ${where}${inside}: ${what}.`;
  }
  const notes = [...s.modifiers];
  if (!s.documentation) notes.push('undocumented');
  if (s.awaits > 0) notes.push(`${s.awaits} ${plural(s.awaits, '`await`')}`);
  return `**${s.kind === 'selection' ? 'selection' : KIND_LABEL[s.kind]} ${code(s.name)}** in ${where}${notes.length ? ` (${notes.join(', ')})` : ''}.`;
}

function namesLine(s: CodeStructure): string | undefined {
  if (s.subject !== 'selection') return undefined;
  const list = (names: string[] | undefined): string => {
    const all = names ?? [];
    const shown = all.slice(0, SHOWN.names).map(code);
    return all.length > SHOWN.names ? `${shown.join(', ')} and ${all.length - SHOWN.names} more` : shown.join(', ');
  };
  const facts: [string, string[] | undefined][] = [
    ['declares', s.declares],
    ['reads', s.reads],
    ['writes', s.writes],
  ];
  const parts = facts.filter(([, names]) => names?.length).map(([verb, names], i) => `**${i === 0 ? capitalize(verb) : verb}** ${list(names)}`);
  if (parts.length === 0) return 'Uses no variables from outside the selection.';
  return `${parts.join('; ')}${s.writes?.length ? '' : '; writes nothing outside it'}.`;
}

function returnsLine(s: CodeStructure): string | undefined {
  const returns = s.returns;
  if (!returns) return undefined;
  // A bare `return;` gives nothing: said in words, not quoted as code.
  const points = returns.points.slice(0, SHOWN.returns).map((p) => (p.text === NO_VALUE ? `nothing (line ${p.line})` : `${code(p.text)} (line ${p.line})`));
  const more = returns.points.length > SHOWN.returns ? ` and ${returns.points.length - SHOWN.returns} more` : '';
  if (s.subject === 'selection') return `**Returns** from ${s.enclosing ? code(s.enclosing) : 'the enclosing function'}: ${points.join(', ')}${more}.`;
  if (returns.points.length === 0) return returns.type === 'void' || returns.type === undefined ? '**Returns** nothing.' : `**Returns** ${code(returns.type)}.`;
  if (returns.type === 'void' && returns.points.every((p) => p.text === NO_VALUE)) {
    const lines = returns.points.map((p) => p.line);
    return `**Returns** nothing; returns early at line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}${more}.`;
  }
  return `**Returns**${returns.type ? ` ${code(returns.type)}` : ''}: ${points.join(', ')}${more}.`;
}

function callsLines(calls: CallSummary[], sites: number): [string, string[]] {
  const items = calls.map(callItem);
  if (calls.length <= 2) return [`**Calls** ${items.join('; ')}.`, []];
  return [`**Calls** ${calls.length} functions (${sites} call ${plural(sites, 'site')}):`, withMore(items.slice(0, SHOWN.calls), calls.length)];
}

function callItem(call: CallSummary): string {
  const name = code(call.construct ? `new ${call.name}` : call.name);
  const times = call.count > 1 ? ` (${call.count}×)` : '';
  if (call.declaredAt) {
    const where = code(`${call.declaredAt.file}:${call.declaredAt.line}`);
    return `${name} → ${call.holder ? `a ${call.holder} declared at ${where}, known only at run time` : where}${times}`;
  }
  if (call.external) return `${name}: external (${call.external})${times}`;
  return `${name}: not resolved${times}`;
}

function callersLines(s: CodeStructure): { text: string; nested: string[] } {
  const typeLike = s.kind === 'class' || s.kind === 'interface';
  const label = typeLike ? '**Used by**' : '**Callers:**';
  const refs = s.references;
  if (!refs) return { text: `${label} unknown (${s.referencesUnavailable ?? 'the references could not be searched'}).`, nested: [] };
  const scope = refs.scope.truncated ? ` (searched the ${refs.scope.files} files the workspace lists; it has more)` : '';
  const others = refs.searched?.othersTruncated ? ` (searched the first ${refs.searched.others} files outside ${refs.searched.config ? code(refs.searched.config) : 'the project'} that name ${code(refs.searched.name)}; there are more)` : '';
  // A search finds the uses the compiler resolves to this declaration in the files searched: no more, so "none found".
  if (refs.total === 0) return { text: `${label} none found${searchedText(refs)}${scope}${others}.`, nested: [] };
  const files = refs.files.map((f) => `${code(f.file)} (${f.count}): ${usersOf(f)}`);
  const calls = typeLike || refs.calls === refs.total ? '' : `, ${refs.calls} of them ${plural(refs.calls, 'call')}`;
  const through = (refs.through ?? []).map((copy) => `${copy.count} through its compiled declarations ${code(copy.file)}`);
  const head = `${label} ${refs.total} ${plural(refs.total, 'reference')} in ${refs.files.length} ${plural(refs.files.length, 'file')}${calls}${through.length ? ` (${joinWords(through)})` : ''}${scope}${others}`;
  if (refs.files.length === 1 && (refs.files[0]?.users.length ?? 0) <= 2) return { text: `${head}: ${files[0]}.`, nested: [] };
  return { text: `${head}:`, nested: withMore(files.slice(0, SHOWN.files), refs.files.length) };
}

/** ` in the 287 files \`tsconfig.json\` includes and the 3 other workspace files that name \`parse\``: what a search covered. */
function searchedText(refs: ReferenceSummary): string {
  const searched = refs.searched;
  if (!searched) return '';
  const main = searched.config ? `the ${searched.files} ${plural(searched.files, 'file')} ${code(searched.config)} includes` : `the ${searched.files} source ${plural(searched.files, 'file')} of the workspace`;
  const others = searched.others > 0 ? ` and the ${searched.others} other workspace ${searched.others === 1 ? 'file that names' : 'files that name'} ${code(searched.name)}` : '';
  return ` in ${main}${others}`;
}

function usersOf(file: ReferenceSummary['files'][number]): string {
  const shown = file.users.slice(0, SHOWN.users).map((user) => {
    const lines = user.lines.slice(0, SHOWN.lines).join(', ') + (user.lines.length > SHOWN.lines ? ', …' : '');
    return `${user.name !== undefined ? code(user.name) : 'the top level'} (${plural(user.lines.length, 'line')} ${lines}${user.asValue ? '; also as a value' : ''})`;
  });
  return file.users.length > SHOWN.users ? `${shown.join(', ')} and ${file.users.length - SHOWN.users} more` : shown.join(', ');
}

const BRANCH_WORDS: Record<string, [string, string]> = {
  if: ['`if`', '`if`s'],
  case: ['`case`', '`case`s'],
  '?:': ['ternary', 'ternaries'],
  loop: ['loop', 'loops'],
  catch: ['`catch`', '`catch`es'],
};

function branchesLines(s: CodeStructure): { text: string; nested: string[] } | undefined {
  const entries = Object.entries(s.branches.counts).filter(([, n]) => (n ?? 0) > 0) as [string, number][];
  if (entries.length === 0) return undefined;
  const counts = joinWords(entries.map(([label, n]) => `${n} ${BRANCH_WORDS[label]?.[n === 1 ? 0 : 1] ?? code(label)}`));
  const sites = withMore(s.branches.sites.slice(0, SHOWN.sites).map((site) => `line ${site.line}: ${code(site.text)}`), s.branches.sites.length);
  if (s.kind === 'class') {
    const complex = [...(s.members ?? [])].filter((m) => m.complexity !== undefined).sort((x, y) => (y.complexity ?? 0) - (x.complexity ?? 0))[0];
    const most = complex ? `; the most complex member is ${code(complex.name)} (cyclomatic complexity ${complex.complexity})` : '';
    return { text: `**Branches** across its members: ${counts}${most}.`, nested: sites };
  }
  return { text: `**Branches:** ${counts}; **cyclomatic complexity ${s.branches.complexity}**.`, nested: sites };
}

function throwsLines(s: CodeStructure): [string, string[]] {
  const items = s.throws.map((t) => `${t.type ? code(t.type) : 'a value'}${t.when ? ` ${t.when}` : ''} (line ${t.line})`);
  const async = s.modifiers.includes('async') ? ', as a rejected promise since it is async' : '';
  if (items.length === 1) return [`**Throws** ${items[0]}${async}.`, []];
  return [`**Throws** in ${items.length} places${async}:`, withMore(items.slice(0, SHOWN.throws), items.length)];
}

function withMore(items: string[], total: number): string[] {
  return total > items.length ? [...items, `and ${total - items.length} more`] : items;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

function joinWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
