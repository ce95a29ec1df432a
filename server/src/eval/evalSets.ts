// The evaluation sets: real npm packages that ship their TypeScript sources, pinned by version and integrity, split into a tuning set and a held-out set.
import { IMMER_QUESTIONS } from './questions/immer.js';
import { QUERY_CORE_QUESTIONS } from './questions/queryCore.js';
import type { QuestionSets } from './questions/questionSet.js';
import { RXJS_QUESTIONS } from './questions/rxjs.js';
import { ZOD_QUESTIONS } from './questions/zod.js';

/** One package the harness can evaluate on, as `assistant-ls eval npm:NAME`. */
export interface EvalPackage {
  name: string;
  version: string;
  /** The registry's `dist.integrity` of the tarball: what is downloaded is checked against it. */
  integrity: string;
  /** The TypeScript sources the cases come from (tsconfig `include` patterns, relative to the package). */
  include: string[];
  /**
   * Which set the package belongs to: rules of the offline agents may be looked at and tuned on `tuning`; `held-out`
   * is only measured, never tuned on.
   */
  set: 'tuning' | 'held-out';
  /**
   * The workspace scenario's questions about the package, each with one or two tuning parts and one or two held-out
   * parts of its own (the package's `set` is the doc scenario's): `--question-set` picks one.
   */
  questions?: QuestionSets;
}

/** Tests, fixtures and benchmarks are not the package's code. */
export const EVAL_EXCLUDE = ['**/tests/**', '**/__tests__/**', '**/test/**', '**/*.test.ts', '**/*.test.tsx', '**/*.spec.ts', '**/benchmarks/**', '**/*.d.ts'];

export const EVAL_PACKAGES: readonly EvalPackage[] = [
  { name: 'zod', version: '4.1.12', integrity: 'sha512-JInaHOamG8pt5+Ey8kGmdcAcg3OL9reK8ltczgHTAwNhMys/6ThXHityHxVV2p3fkw/c+MAvBHFVYHFZDmjMCQ==', include: ['src/**/*.ts'], set: 'tuning', questions: ZOD_QUESTIONS },
  { name: '@tanstack/query-core', version: '5.90.2', integrity: 'sha512-k/TcR3YalnzibscALLwxeiLUub6jN5EDLwKDiO7q5f4ICEoptJ+n9+7vcEFy5/x/i6Q+Lb/tXrsKCggf5uQJXQ==', include: ['src/**/*.ts'], set: 'tuning', questions: QUERY_CORE_QUESTIONS },
  { name: 'rxjs', version: '7.8.1', integrity: 'sha512-AA3TVj+0A2iuIoQkWEK/tqFjBq2j+6PO6Y0zJcvzLAFhEFIO3HL0vls9hWLncZbAAbK0mar7oZ4V079I/qPMxg==', include: ['src/**/*.ts'], set: 'held-out', questions: RXJS_QUESTIONS },
  { name: 'immer', version: '10.1.1', integrity: 'sha512-s2MPrmjovJcoMaHtx6K11Ra7oD05NT97w1IC5zpMkT6Atjr7H8LjaDd81iIxUYpMKSRRNMJE703M1Fhr/TctHw==', include: ['src/**/*.ts'], set: 'held-out', questions: IMMER_QUESTIONS },
  { name: '@trpc/server', version: '11.6.0', integrity: 'sha512-skTso0AWbOZck40jwNeYv++AMZXNWLUWdyk+pB5iVaYmEKTuEeMoPrEudR12VafbEU6tZa8HK3QhBfTYYHDCdg==', include: ['src/**/*.ts'], set: 'held-out' },
];

/** The pinned package a `npm:NAME` or `npm:NAME@VERSION` spec names, or why there is none. */
export function pinnedPackage(spec: string, packages: readonly EvalPackage[] = EVAL_PACKAGES): EvalPackage | { error: string } {
  const body = spec.replace(/^npm:/, '');
  const at = body.lastIndexOf('@');
  const [name, version] = at > 0 ? [body.slice(0, at), body.slice(at + 1)] : [body, undefined];
  const known = packages.map((p) => `npm:${p.name}@${p.version} (${p.set})`).join(', ');
  const found = packages.find((p) => p.name === name);
  if (!found) return { error: `${name} is not an evaluation package; the pinned ones are ${known}` };
  if (version !== undefined && version !== found.version) return { error: `${name} is pinned at ${found.version}, not ${version}; the pinned ones are ${known}` };
  return found;
}
