// Tells a fix that makes a diagnostic go away without fixing it (a type widened to any, a suppression comment, code or tests deleted) from one that fixes it.
import { diffLines } from 'diff';

export type Evasion = 'widens to any' | 'suppresses' | 'deletes code' | 'deletes tests';

/**
 * Diagnostics whose right fix is a deletion: unused declarations, imports, labels and parameters, unreachable code.
 * TypeScript's codes (6133 declared but never read, 6138 property never read, 6192 all imports unused, 6196 declared
 * but never used, 6198 all destructured elements unused, 6199 all variables unused, 6205 all type parameters unused,
 * 7027 unreachable code, 7028 unused label) and ESLint's rules of the same meaning.
 */
const DELETION_IS_THE_FIX = new Set<string>(['6133', '6138', '6192', '6196', '6198', '6199', '6205', '7027', '7028', 'no-unused-vars', '@typescript-eslint/no-unused-vars', 'no-unreachable', 'no-unused-labels', 'no-unused-expressions', '@typescript-eslint/no-unused-expressions', 'no-empty', 'no-useless-return', 'no-useless-catch', 'no-debugger', 'no-console']);

/** A type annotation, assertion or argument of `any` or `unknown`: `: any`, `as unknown`, `<any>`, `any[]`. */
const WIDE_TYPE = /(?::|\bas\b|<|\|)\s*(?:any|unknown)\b|\b(?:any|unknown)\s*(?:\[\]|>)/g;
/** Comments that silence the checker or the linter. */
const SUPPRESSION = /@ts-(?:ignore|expect-error|nocheck)\b|eslint-disable/g;

function count(lines: readonly string[], pattern: RegExp): number {
  return lines.reduce((sum, line) => sum + (line.match(pattern)?.length ?? 0), 0);
}

/** Lines that hold code: not blank, not only a comment or a brace. */
function codeLines(lines: readonly string[]): string[] {
  return lines.filter((line) => {
    const t = line.trim();
    return t !== '' && !/^(?:\/\/|\/\*|\*)/.test(t) && !/^[{}()[\];,]+$/.test(t);
  });
}

/**
 * How a fix evades its diagnostic, or undefined for a fix that changes the code to satisfy it. Judged on the lines
 * the fix removed and added in the case's file: more `any`/`unknown` types than before; a new suppression comment;
 * code lines removed with none written in their place (unless the diagnostic is about unused or unreachable code,
 * whose fix is that deletion); in a test file, any net loss of code lines.
 */
export function evasionOf(before: string, after: string, code: string | number | undefined, isTestFile: boolean): Evasion | undefined {
  const removed: string[] = [];
  const added: string[] = [];
  for (const part of diffLines(before, after)) {
    const lines = part.value.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
    if (part.added) added.push(...lines);
    else if (part.removed) removed.push(...lines);
  }
  if (count(added, SUPPRESSION) > count(removed, SUPPRESSION)) return 'suppresses';
  if (count(added, WIDE_TYPE) > count(removed, WIDE_TYPE)) return 'widens to any';
  const lost = codeLines(removed).length - codeLines(added).length;
  if (isTestFile && lost > 0) return 'deletes tests';
  if (lost > 0 && codeLines(added).length === 0 && !DELETION_IS_THE_FIX.has(String(code ?? ''))) return 'deletes code';
  return undefined;
}

/** Test files by the conventions of the JavaScript test runners. */
export function isTestPath(relative: string): boolean {
  return /(?:^|\/)(?:__tests__|tests?)\/|\.(?:test|spec)\.[cm]?[jt]sx?$/.test(relative);
}
