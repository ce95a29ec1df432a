// The places an issue's context step names, read from what models write: the JSON asked for (strict or JavaScript-style, fenced or not, cut off), else a diff's files and hunks, else the source files the prose names.
import { objectsIn } from '../agents/lenientJson.js';

/** A place as the model named it, before its path is checked against the workspace. */
export interface NamedLocation {
  file: string;
  symbol?: string;
  intent: string;
}

/** How the places were read, for the step's record. */
export type LocationForm = 'json' | 'diff' | 'paths';

const SOURCE_PATH = /(?:^|[\s`'"([])((?:\.\/)?[\w@.-]+(?:\/[\w@.-]+)*\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs))(?=$|[\s`'"),.:;\]])/gm;
const DIFF_FILE = /^\+\+\+ (?:b\/)?(\S+)/gm;
const HUNK_SYMBOL = /^@@[^@]*@@\s*(?:export\s+)?(?:async\s+)?(?:function\s+|class\s+|(?:public|private|protected|static)\s+)*([A-Za-z_$][\w$]*)/;
/** A function or class declared on a line of a hunk (context or changed), for hunk headers that name none. */
const HUNK_DECLARATION = /^[ +-]\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*|class\s+)([A-Za-z_$][\w$]*)/;

/** The places, or none; the first form that names any wins. */
export function locationsIn(text: string): { locations: NamedLocation[]; form?: LocationForm } {
  const json = fromJson(text);
  if (json.length > 0) return { locations: json, form: 'json' };
  const diff = fromDiff(text);
  if (diff.length > 0) return { locations: diff, form: 'diff' };
  const paths = [...new Set([...text.matchAll(SOURCE_PATH)].map((m) => (m[1] ?? '').replace(/^\.\//, '')))].filter(Boolean);
  return paths.length > 0 ? { locations: paths.map((file) => ({ file, intent: '' })), form: 'paths' } : { locations: [] };
}

function fromJson(text: string): NamedLocation[] {
  for (const { value } of objectsIn(text)) {
    // `{"locations": [...]}` as asked, or one location on its own.
    const items: unknown[] = Array.isArray(value.locations) ? value.locations : typeof value.file === 'string' ? [value] : [];
    const locations = items.flatMap((item): NamedLocation[] => {
      if (typeof item === 'string') return [{ file: item, intent: '' }];
      const entry = item as { file?: unknown; path?: unknown; symbol?: unknown; intent?: unknown };
      const file = typeof entry?.file === 'string' ? entry.file : typeof entry?.path === 'string' ? entry.path : undefined;
      if (!file) return [];
      return [{ file, ...(typeof entry.symbol === 'string' && entry.symbol ? { symbol: entry.symbol } : {}), intent: typeof entry.intent === 'string' ? entry.intent : '' }];
    });
    if (locations.length > 0) return locations;
  }
  return [];
}

/** A unified diff where the places were asked for: each file it changes, with the function its hunks name. */
function fromDiff(text: string): NamedLocation[] {
  const out: NamedLocation[] = [];
  const files = [...text.matchAll(DIFF_FILE)];
  for (const [i, match] of files.entries()) {
    const file = match[1] ?? '';
    if (file === '/dev/null') continue;
    const body = text.slice(match.index ?? 0, files[i + 1]?.index ?? text.length);
    const hunks = body.split(/^(?=@@)/m).slice(1);
    const symbols = [...new Set(hunks.flatMap((hunk) => {
      const lines = hunk.split('\n');
      const named = HUNK_SYMBOL.exec(lines[0] ?? '')?.[1] ?? lines.slice(1).map((line) => HUNK_DECLARATION.exec(line)?.[1]).find(Boolean);
      return named ? [named] : [];
    }))];
    const intent = 'as the model’s diff changes it';
    if (symbols.length === 0) out.push({ file, intent });
    for (const symbol of symbols) out.push({ file, symbol, intent });
  }
  return out;
}
