// Writes a deterministic (seeded) synthetic TypeScript project of a given size, with one large file, for the benchmarks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NOUNS = ['order', 'invoice', 'customer', 'product', 'shipment', 'account', 'ledger', 'session', 'report', 'schedule', 'ticket', 'payment', 'inventory', 'warehouse', 'supplier', 'contract', 'policy', 'claim', 'vehicle', 'route', 'booking', 'review', 'coupon', 'budget', 'asset', 'device', 'sensor', 'project', 'milestone', 'employee'];
const ADJECTIVES = ['pending', 'archived', 'primary', 'shared', 'remote', 'local', 'draft', 'scheduled', 'priority', 'legacy', 'external', 'internal'];
const AREAS = ['billing', 'catalog', 'crm', 'logistics', 'reporting', 'accounts', 'scheduling', 'support', 'assets', 'people'];
const FIELDS = [
  ['priority', 'number', '1'],
  ['owner', 'string', "'system'"],
  ['region', 'string', "'eu'"],
  ['archived', 'boolean', 'false'],
  ['version', 'number', '0'],
  ['notes', 'string[]', '[]'],
  ['currency', 'string', "'EUR'"],
  ['retries', 'number', '0'],
];

/** A small, fast, seedable PRNG (mulberry32), so the same seed always writes the same project. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The TypeScript of one entity: record types, a service class, free functions; `deps` are entities imported from other modules. */
function entity(rnd, name, deps) {
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const chance = (p) => rnd() < p;
  const label = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const extra = FIELDS.filter(() => chance(0.4));
  const lines = [];
  const doc = (text) => {
    if (chance(0.45)) lines.push(`/** ${text} */`);
  };
  doc(`One ${label} as the service stores it.`);
  lines.push(`export interface ${name}Record {`, '  id: string;', '  name: string;', `  status: ${name}Status;`, '  amount: number;', '  tags: string[];', '  updatedAt: Date;', '  parentId?: string;');
  for (const [field, type] of extra) lines.push(`  ${field}: ${type};`);
  lines.push('}', '');
  lines.push(`export type ${name}Status = 'draft' | 'active' | 'suspended' | 'closed';`, '');
  doc(`Filters for listing ${label} records.`);
  lines.push(`export interface ${name}Query {`, `  status?: ${name}Status;`, '  tag?: string;', '  minAmount?: number;', '  limit?: number;', '}', '');

  doc(`Keeps ${label} records in memory and answers queries over them.`);
  lines.push(`export class ${name}Service {`, `  private readonly records = new Map<string, ${name}Record>();`, '  private revision = 0;', '');
  if (deps.length > 0) {
    lines.push('  constructor(');
    deps.forEach((dep, i) => lines.push(`    private readonly ${dep.charAt(0).toLowerCase()}${dep.slice(1)}${i}: ${dep}Service,`));
    lines.push('  ) {}', '');
  }
  lines.push(
    `  add(record: ${name}Record): void {`,
    '    if (this.records.has(record.id)) {',
    `      throw new Error(\`${name} \${record.id} already exists\`);`,
    '    }',
    '    this.records.set(record.id, { ...record, tags: [...record.tags] });',
    '    this.revision += 1;',
    '  }',
    '',
    `  get(id: string): ${name}Record | undefined {`,
    '    return this.records.get(id);',
    '  }',
    '',
    `  find(query: ${name}Query): ${name}Record[] {`,
    `    const result: ${name}Record[] = [];`,
    '    for (const record of this.records.values()) {',
    '      if (query.status !== undefined && record.status !== query.status) continue;',
    '      if (query.tag !== undefined && !record.tags.includes(query.tag)) continue;',
    '      if (query.minAmount !== undefined && record.amount < query.minAmount) continue;',
    '      result.push(record);',
    '      if (query.limit !== undefined && result.length >= query.limit) break;',
    '    }',
    '    return result;',
    '  }',
    '',
  );
  if (chance(0.8)) {
    lines.push(
      `  update(id: string, change: Partial<Omit<${name}Record, 'id'>>): ${name}Record {`,
      '    const current = this.records.get(id);',
      '    if (!current) {',
      `      throw new Error(\`${name} \${id} not found\`);`,
      '    }',
      `    const next: ${name}Record = { ...current, ...change, updatedAt: new Date() };`,
      '    this.records.set(id, next);',
      '    this.revision += 1;',
      '    return next;',
      '  }',
      '',
    );
  }
  lines.push('  remove(id: string): boolean {', '    const removed = this.records.delete(id);', '    if (removed) this.revision += 1;', '    return removed;', '  }', '');
  if (chance(0.7)) {
    lines.push('  total(status?: ' + name + 'Status): number {', '    let sum = 0;', '    for (const record of this.records.values()) {', '      if (status === undefined || record.status === status) {', '        sum += record.amount;', '      }', '    }', '    return sum;', '  }', '');
  }
  if (chance(0.6)) {
    const threshold = 10 + Math.floor(rnd() * 90);
    lines.push(
      `  promote(limit = ${threshold}): number {`,
      '    let changed = 0;',
      '    for (const [id, record] of this.records) {',
      "      if (record.status === 'draft' && record.amount >= limit) {",
      "        this.records.set(id, { ...record, status: 'active', updatedAt: new Date() });",
      '        changed += 1;',
      "      } else if (record.status === 'active' && record.amount < 0) {",
      "        this.records.set(id, { ...record, status: 'suspended', updatedAt: new Date() });",
      '        changed += 1;',
      '      }',
      '    }',
      '    this.revision += changed;',
      '    return changed;',
      '  }',
      '',
    );
  }
  if (deps.length > 0) {
    lines.push('  relatedCount(tag: string): number {', '    let count = this.find({ tag }).length;');
    deps.forEach((dep, i) => lines.push(`    count += this.${dep.charAt(0).toLowerCase()}${dep.slice(1)}${i}.find({ tag }).length;`));
    lines.push('    return count;', '  }', '');
  }
  lines.push('  get size(): number {', '    return this.records.size;', '  }', '', '  get version(): number {', '    return this.revision;', '  }', '}', '');

  doc(`A one-line summary of ${label} records by status, with the total amount.`);
  lines.push(
    `export function summarize${name}(records: readonly ${name}Record[], currency = '${pick(['EUR', 'USD', 'GBP', 'CHF'])}'): string {`,
    `  const byStatus = new Map<${name}Status, number>();`,
    '  for (const record of records) {',
    '    byStatus.set(record.status, (byStatus.get(record.status) ?? 0) + 1);',
    '  }',
    '  const parts: string[] = [];',
    '  for (const [status, count] of byStatus) {',
    '    parts.push(`${status}: ${count}`);',
    '  }',
    '  const amount = records.reduce((sum, r) => sum + r.amount, 0);',
    `  return \`\${records.length} ${label} (\${parts.join(', ')}), \${amount.toFixed(2)} \${currency}\`;`,
    '}',
    '',
  );
  lines.push(`export const is${name}Open = (record: ${name}Record): boolean => record.status === 'draft' || record.status === 'active';`, '');
  if (chance(0.75)) {
    doc(`Scores a ${label} record from its amount, status and tags.`);
    lines.push(
      `export function score${name}(record: ${name}Record, weights: Record<string, number>): number {`,
      `  let score = record.amount * (weights['amount'] ?? ${(1 + rnd()).toFixed(2)});`,
      '  switch (record.status) {',
      "    case 'active':",
      `      score += ${Math.floor(rnd() * 20)};`,
      '      break;',
      "    case 'suspended':",
      `      score -= ${Math.floor(rnd() * 10)};`,
      '      break;',
      "    case 'closed':",
      '      return 0;',
      '    default:',
      '      break;',
      '  }',
      '  for (const tag of record.tags) {',
      '    score += weights[tag] ?? 0;',
      '  }',
      '  return Math.round(score * 100) / 100;',
      '}',
      '',
    );
  }
  if (chance(0.5)) {
    lines.push(
      `export async function load${name}Batch(ids: string[], fetchOne: (id: string) => Promise<${name}Record | undefined>): Promise<${name}Record[]> {`,
      `  const found: ${name}Record[] = [];`,
      '  for (const id of ids) {',
      '    try {',
      '      const record = await fetchOne(id);',
      '      if (record) found.push(record);',
      '    } catch (error) {',
      `      throw new Error(\`could not load ${label} \${id}: \${String(error)}\`);`,
      '    }',
      '  }',
      '  return found;',
      '}',
      '',
    );
  }
  if (chance(0.4)) {
    lines.push(
      `export function group${name}By<K extends keyof ${name}Record>(records: readonly ${name}Record[], key: K): Map<${name}Record[K], ${name}Record[]> {`,
      `  const groups = new Map<${name}Record[K], ${name}Record[]>();`,
      '  for (const record of records) {',
      '    const value = record[key];',
      '    const list = groups.get(value) ?? [];',
      '    list.push(record);',
      '    groups.set(value, list);',
      '  }',
      '  return groups;',
      '}',
      '',
    );
  }
  if (chance(0.35)) {
    lines.push(
      `export enum ${name}Event {`,
      '  Created = \'created\',',
      '  Updated = \'updated\',',
      '  Removed = \'removed\',',
      '}',
      '',
      `export function describe${name}Event(event: ${name}Event, id: string): string {`,
      '  switch (event) {',
      `    case ${name}Event.Created:`,
      `      return \`${label} \${id} was created\`;`,
      `    case ${name}Event.Updated:`,
      `      return \`${label} \${id} was updated\`;`,
      `    case ${name}Event.Removed:`,
      `      return \`${label} \${id} was removed\`;`,
      '  }',
      '}',
      '',
    );
  }
  return lines;
}

/**
 * Writes the project into `dir` (created when missing): `tsconfig.json`, `package.json` and `src/<area>/*.ts`
 * modules importing earlier ones, until about `lines` lines in all, one of them `bigFile` of about `bigFileLines`.
 */
export function generateProject(dir, { lines = 100_000, bigFileLines = 5_000, seed = 42 } = {}) {
  const rnd = random(seed);
  const names = new Set();
  const uniqueName = (k) => {
    for (let attempt = 0; ; attempt++) {
      const noun = NOUNS[Math.floor(rnd() * NOUNS.length)];
      const adjective = attempt > 3 || rnd() < 0.5 ? ADJECTIVES[Math.floor(rnd() * ADJECTIVES.length)] : '';
      const name = `${cap(adjective)}${cap(noun)}${k}`;
      if (!names.has(name)) {
        names.add(name);
        return name;
      }
    }
  };
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'synthetic-bench-project', private: true, type: 'module' }, null, 2) + '\n');
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022'], strict: true, skipLibCheck: true, noEmit: true, types: [] }, include: ['src'] }, null, 2) + '\n',
  );
  /** Modules written so far, each with its path (from src/) and primary entity. */
  const modules = [];
  let total = 0;
  const writeModule = (relative, targetLines, isBig) => {
    const k = modules.length;
    const header = [`// ${isBig ? 'The catalogue of every entity kind the synthetic project knows' : `Services and helpers for the ${relative.split('/')[0]} area`} (generated for benchmarks).`];
    const imports = [];
    const body = [];
    const deps = [];
    const used = new Set();
    const importFor = () => {
      if (modules.length === 0 || rnd() < 0.25) return [];
      const dep = modules[Math.floor(rnd() * modules.length)];
      if (used.has(dep.entity)) return [dep.entity];
      used.add(dep.entity);
      let from = path.posix.relative(path.posix.dirname(relative), dep.path).replace(/\.ts$/, '.js');
      if (!from.startsWith('.')) from = `./${from}`;
      imports.push(`import type { ${dep.entity}Service } from '${from}';`);
      return [dep.entity];
    };
    let entityName;
    let lineCount = 0;
    while (lineCount < targetLines) {
      const name = uniqueName(k);
      entityName ??= name;
      const entityDeps = [...new Set([...importFor(), ...(rnd() < 0.4 ? importFor() : [])])];
      deps.push(...entityDeps);
      const lines = entity(rnd, name, entityDeps);
      body.push(...lines);
      lineCount += lines.length;
    }
    const text = [...header, ...imports, '', ...body].join('\n');
    fs.mkdirSync(path.join(dir, 'src', path.dirname(relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', relative), text);
    modules.push({ path: relative, entity: entityName });
    total += text.split('\n').length;
    return text.split('\n').length;
  };
  const bigFile = 'core/catalog.ts';
  const bigAt = Math.max(1, Math.floor((lines - bigFileLines) / 2));
  let bigWritten = false;
  while (total < lines) {
    if (!bigWritten && (total >= bigAt || lines - total <= bigFileLines)) {
      writeModule(bigFile, bigFileLines - 80, true);
      bigWritten = true;
      continue;
    }
    const area = AREAS[Math.floor(rnd() * AREAS.length)];
    const remaining = lines - total - (bigWritten ? 0 : bigFileLines);
    writeModule(`${area}/${NOUNS[modules.length % NOUNS.length]}${modules.length}.ts`, Math.max(40, Math.min(remaining, 200 + Math.floor(rnd() * 400))), false);
  }
  if (!bigWritten) writeModule(bigFile, bigFileLines - 80, true);
  return { root: dir, files: modules.length, lines: total, bigFile: path.join('src', bigFile) };
}

/** A fresh temporary directory holding a generated project. */
export function generateTemporaryProject(options) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assistant-ls-bench-synthetic-'));
  return generateProject(dir, options);
}

// `node bench/synthetic.mjs <dir> [lines] [bigFileLines]` writes a project for a look by hand.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, lines, big] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node bench/synthetic.mjs <dir> [lines=100000] [bigFileLines=5000]');
    process.exit(2);
  }
  const result = generateProject(path.resolve(dir), { lines: Number(lines ?? 100_000), bigFileLines: Number(big ?? 5_000) });
  console.log(JSON.stringify(result));
}
