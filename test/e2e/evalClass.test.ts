// End-to-end `assistant-ls eval --scenarios class` with the built CLI on a copy of test/fixtures/eval-class-repo: a model agent on the scripted endpoint writes the removed classes (two samples), scored on Pass@k, test rate and compile rate; the removed classes never reach the model and the repository is never written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { startScriptedModel } from '../support/scriptedModel.js';
import type { RecordedRequest, ScriptStep } from '../support/scriptedModel.js';
import type { EvalReport } from '../../server/src/eval/runner.js';
import type { EvalRecord } from '../../server/src/eval/records.js';
import { RECORD_FIELDS, evalCli, treeHash } from '../support/evalSupport.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

function temporaryDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const CART_RIGHT = `import { addMoney, formatMoney, zero } from './money.js';
import type { Money } from './money.js';
import type { Countable, Product } from './catalog.js';
import type { CartLine } from './shopping.js';

/** A customer's products and how many of each. */
export class Cart implements Countable {
  private readonly entries: CartLine[] = [];

  constructor(readonly currency: string) {}

  add(product: Product, quantity = 1): void {
    if (quantity < 1) throw new RangeError('a quantity below one');
    const found = this.entries.find((entry) => entry.product.sku === product.sku);
    if (found) found.quantity += quantity;
    else this.entries.push({ product, quantity });
  }

  count(): number {
    let items = 0;
    for (const entry of this.entries) items += entry.quantity;
    return items;
  }

  total(): Money {
    let sum = zero(this.currency);
    for (const entry of this.entries) sum = addMoney(sum, { cents: entry.product.price.cents * entry.quantity, currency: entry.product.price.currency });
    return sum;
  }

  get summary(): string {
    return \`\${this.count()} items: \${formatMoney(this.total())}\`;
  }
}
`;

/** Accepts any quantity: the test of refusing a quantity below one fails (3 of 4 pass). */
const CART_LENIENT = CART_RIGHT.replace("    if (quantity < 1) throw new RangeError('a quantity below one');\n", '');

const PRICEBOOK_RIGHT = `import { formatMoney, money } from './money.js';
import type { Money } from './money.js';
import type { Product } from './catalog.js';

export class PriceBook {
  private readonly off = new Map<string, number>();

  discount(sku: string, percent: number): void {
    if (percent < 0 || percent > 100) throw new RangeError('a percentage outside 0 to 100');
    this.off.set(sku, percent);
  }

  priceOf(product: Product): Money {
    const cut = this.off.get(product.sku) ?? 0;
    return money(Math.round((product.price.cents * (100 - cut)) / 100), product.price.currency);
  }

  label(product: Product): string {
    return \`\${product.name}: \${formatMoney(this.priceOf(product))}\`;
  }
}
`;

/** Imports a function money.ts does not have: a type error, and label() throws at run time (2 of 3 tests pass). */
const PRICEBOOK_WRONG = PRICEBOOK_RIGHT.replace("import { formatMoney, money } from './money.js';", "import { formatPrice, money } from './money.js';").replace('formatMoney(this.priceOf(product))', 'formatPrice(this.priceOf(product))');

function messages(request: RecordedRequest): Array<{ role: string; content: string | null }> {
  return (request.body as { messages: Array<{ role: string; content: string | null }> }).messages;
}
const system = (request: RecordedRequest): string => String(messages(request).find((m) => m.role === 'system')?.content ?? '');
const user = (request: RecordedRequest): string => String(messages(request).find((m) => m.role === 'user')?.content ?? '');

/**
 * The scripted model of the class pipeline. Attempts: Cart from the detailed description right; Cart from the sketchy
 * one right the first time and without the quantity check the second; PriceBook from the detailed description first
 * with an unknown import, then (after a tool call and a reflection) right; PriceBook from the sketchy one always with
 * the unknown import.
 */
function scriptedClasses(): { respond: (request: RecordedRequest) => ScriptStep } {
  const asked = new Map<string, number>();
  const fenced = (code: string): ScriptStep => ({ kind: 'text', content: `Here is the class.\n\`\`\`ts\n${code}\`\`\`` });
  return {
    respond(request) {
      if (system(request).startsWith('Your class does not type-check yet')) return { kind: 'toolCalls', calls: [{ name: 'get_signature', arguments: { name: 'formatMoney' } }] };
      if (system(request).startsWith('You reflect on a failed attempt')) return { kind: 'text', content: 'money.ts has no formatPrice; the amount is printed by formatMoney(amount: Money): string.' };
      const text = user(request);
      const description = /^Write this class:\n([\s\S]*?)\n\n(?:The class is|Choose)/.exec(text)?.[1] ?? '';
      const name = /Write (?:a|an abstract) class named `(\w+)`/.exec(description)?.[1] ?? '';
      const kind = /^- `/m.test(description) ? 'detailed' : 'sketchy';
      const key = `${name}:${kind}`;
      const n = (asked.get(key) ?? 0) + 1;
      asked.set(key, n);
      const improved = text.includes('Your previous attempt:');
      if (name === 'Cart') return fenced(kind === 'detailed' || n === 1 ? CART_RIGHT : CART_LENIENT);
      if (name === 'PriceBook') return fenced(kind === 'detailed' && improved ? PRICEBOOK_RIGHT : PRICEBOOK_WRONG);
      return { kind: 'text', content: 'I cannot tell which class you mean.' };
    },
  };
}

describe('eval: the class scenario', () => {
  it('runs the class scenario with two samples on the scripted endpoint: Pass@1 and Pass@2, test rate, compile rate, the removed classes never sent, the repository untouched', async () => {
    const model = await startScriptedModel();
    cleanup.push(() => model.close());
    model.setDefault({ kind: 'dynamic', respond: scriptedClasses().respond });
    const repo = linkModules(copyFixture('eval-class-repo'));
    cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
    const before = treeHash(repo);
    const out = temporaryDir('assistant-eval-class-');
    const json = path.join(out, 'class.json');
    const settings = path.join(out, 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ pipelines: { toolRounds: 6, maxSelfFixes: 2, patchAttempts: 3, classRounds: 2 } }));
    const env = { OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.baseURL, ASSISTANT_MODEL: 'scripted-coder' };
    const agent = `scripted-coder@${new URL(model.baseURL).host}`;

    const result = await evalCli([repo, '--scenarios', 'class', '--agents', agent, '--samples', '2', '--jobs', '4', '--settings', settings, '--json', json], env);
    expect(result.code, result.stderr).toBe(0);
    expect(treeHash(repo)).toBe(before);
    expect(result.stderr).not.toContain('settings:');
    expect(result.stderr).toContain(
      'class: 4 cases from 2 classes, each with a detailed and a sketchy description (4 classes in 5 source files; 2 test files run on the original code; left out: 1 class using nothing from other files (Catalog); 1 class without a test file naming it (ReceiptPrinter))',
    );

    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    const [scenario] = report.scenarios;
    expect(scenario).toMatchObject({ id: 'class', cases: 4, agents: [agent], primaryMetric: 'pass' });
    expect(scenario!.metrics.map((m) => m.id)).toEqual(['pass', 'testRate', 'compile']);
    // Per case (2 samples): Cart detailed passes twice; Cart sketchy once (3 of 4 tests the other time); PriceBook
    // detailed twice (after one tool round); PriceBook sketchy never type-checks and passes 2 of 3 tests each time.
    // pass: 5/8; test rate: (2 + 1.75 + 2 + 4/3)/8; compile: 6/8; pass@1 = (1 + 1/2 + 1 + 0)/4; pass@2 = (1 + 1 + 1 + 0)/4.
    const summary = scenario!.summary[0]!;
    expect(summary).toMatchObject({ agent, runs: 8, cases: 4, proposed: 1 });
    expect(summary.metrics.pass).toBeCloseTo(5 / 8, 12);
    expect(summary.metrics.testRate).toBeCloseTo((2 + 1.75 + 2 + 4 / 3) / 8, 12);
    expect(summary.metrics.compile).toBeCloseTo(6 / 8, 12);
    expect(summary.passAtK).toEqual({ '1': expect.closeTo(0.625, 12), '2': expect.closeTo(0.75, 12) });
    expect(result.stdout).toMatch(/agent\s+runs\s+tests pass\s+test rate\s+compile rate\s+pass@1\s+pass@2\s+proposed/);
    expect(result.stdout).toMatch(new RegExp(`${agent.replace(/[.]/g, '\\.')}\\s+8\\s+62\\.5%\\s+0\\.885\\s+75\\.0%\\s+62\\.5%\\s+75\\.0%\\s+100\\.0%`));

    const records = report.records;
    expect(records).toHaveLength(8);
    for (const record of records) {
      for (const field of RECORD_FIELDS) expect(record[field], `${record.caseId}: ${field}`).not.toBeUndefined();
      expect(Object.keys(record.metrics).sort()).toEqual(['compile', 'pass', 'testRate']);
      expect(record).toMatchObject({ scenario: 'class', isLLM: true, proposed: true, attempts: 1, details: { description: record.caseId.endsWith(':detailed') ? 'detailed' : 'sketchy', testFile: record.caseId.includes('Cart') ? 'src/shopping.test.ts' : 'src/pricing.test.ts' } });
      expect(record.contextChars).toBeGreaterThan(0);
      expect(record.promptTokens).toBeGreaterThan(0);
      if (record.status === 'passed') expect(record.failure).toBeNull();
      else expect(record.failure).toMatch(/\w/);
    }
    const of = (caseId: string): EvalRecord[] => records.filter((r) => r.caseId === caseId);
    const metrics = (caseId: string): Array<Record<string, number | null>> => of(caseId).map((r) => r.metrics).sort((a, b) => (b.testRate ?? 0) - (a.testRate ?? 0));
    expect(metrics('class:src/shopping.ts:16:Cart:detailed')).toEqual([{ pass: 1, testRate: 1, compile: 1 }, { pass: 1, testRate: 1, compile: 1 }]);
    expect(metrics('class:src/shopping.ts:16:Cart:sketchy')).toEqual([{ pass: 1, testRate: 1, compile: 1 }, { pass: 0, testRate: 0.75, compile: 1 }]);
    expect(metrics('class:src/PriceBook.ts:7:PriceBook:detailed')).toEqual([{ pass: 1, testRate: 1, compile: 1 }, { pass: 1, testRate: 1, compile: 1 }]);
    expect(metrics('class:src/PriceBook.ts:7:PriceBook:sketchy')).toEqual([{ pass: 0, testRate: 2 / 3, compile: 0 }, { pass: 0, testRate: 2 / 3, compile: 0 }]);

    const cart = of('class:src/shopping.ts:16:Cart:detailed')[0]!;
    expect(cart).toMatchObject({ status: 'passed', oraclePassed: true, details: { createdFile: 'src/Cart.ts', tests: { passed: 4, failed: 0, expected: 4 }, compileErrors: [] } });
    const lenient = of('class:src/shopping.ts:16:Cart:sketchy').find((r) => r.metrics.pass === 0)!;
    expect(lenient.failure).toMatch(/^src\/shopping\.test\.ts: 3 of 4 tests pass \(Cart > refuses quantities below one: /);
    const broken = of('class:src/PriceBook.ts:7:PriceBook:sketchy')[0]!;
    // The pipeline's own check rejected it twice; the last attempt is scored.
    expect(broken).toMatchObject({ status: 'failed', oraclePassed: false, details: { createdFile: 'src/priceBook.ts', tests: { passed: 2, failed: 1, expected: 3 } } });
    expect(broken.failure).toMatch(/^src\/pricing\.test\.ts: 2 of 3 tests pass \(PriceBook > labels a product with its discounted price: .*; src\/PriceBook\.ts does not type-check with the class: src\/PriceBook\.ts:2:10 TS2305 Module '"\.\/money\.js"' has no exported member 'formatPrice'\./);
    expect((broken.details.compileErrors as string[]).length).toBeGreaterThanOrEqual(1);

    // The model calls: one attempt per Cart run; attempt, tools, reflection and attempt per PriceBook run.
    const attempts = model.requests.filter((r) => system(r).startsWith('You write a new TypeScript class'));
    expect(attempts).toHaveLength(2 + 2 + 4 + 4);
    expect(model.requests).toHaveLength(12 + 4 + 4);
    const detailed = attempts.find((r) => user(r).includes('Write a class named `Cart`, implementing `Countable`.'))!;
    expect(user(detailed)).toContain('- `add(product: Product, quantity?: number): void`: Adds a quantity of a product (one by default); a quantity below one is refused with a RangeError.');
    expect(user(detailed)).toContain('The class is Cart, in the new file src/Cart.ts.');
    expect(attempts.some((r) => user(r).includes('The class is PriceBook, in the new file src/priceBook.ts.'))).toBe(true);
    expect(model.requests.some((r) => r.rawBody.includes('formatMoney(amount: Money): string'))).toBe(true);

    // The removed class never reached the model working on it: not its body, its marker comments or the lines only it
    // has, in any step's prompt (retrieved snippets, tool answers). The other class of the repository is there to be seen.
    const originals = ['src/shopping.ts', 'src/PriceBook.ts'].map((file) => fs.readFileSync(path.join(repo, file), 'utf8'));
    const secrets: Record<string, string[]> = {
      Cart: ['cart-marker', 'const existing = this.lines.find((line) => line.product.sku === product.sku);', 'private readonly lines: CartLine[] = [];', originals[0]!.slice(originals[0]!.indexOf('/**\n * The products'))],
      PriceBook: ['pricebook-marker', 'const percent = this.discounts.get(product.sku) ?? 0;', 'private readonly discounts = new Map<string, number>();', originals[1]!.slice(originals[1]!.indexOf('/** Discounts by SKU'))],
    };
    for (const [name, list] of Object.entries(secrets)) for (const secret of list) expect(originals.some((text) => text.includes(secret)), `${name}: ${secret}`).toBe(true);
    const subjectOf = (request: RecordedRequest): string => /class named `(\w+)`/.exec(user(request))?.[1] ?? /\bclass (\w+)/.exec(user(request))?.[1] ?? '';
    expect(new Set(model.requests.map(subjectOf))).toEqual(new Set(['Cart', 'PriceBook']));
    for (const request of model.requests) {
      const sent = messages(request).map((m) => String(m.content ?? '')).join('\n');
      for (const secret of secrets[subjectOf(request)]!) {
        expect(sent, `request ${request.index}`).not.toContain(secret);
        expect(request.rawBody, `request ${request.index}`).not.toContain(secret.slice(0, 60));
      }
    }
    expect(model.requests.some((r) => subjectOf(r) === 'PriceBook' && user(r).includes('cart-marker'))).toBe(true);
    // What the model was shown of the repository is the rest of it (retrieved snippets, tool answers).
    expect(attempts.some((r) => /Related code in the repository:\n\S+:\d+/.test(user(r)))).toBe(true);
  }, 60_000);

  it('says no agent serves the class scenario when only offline agents exist, running no test', async () => {
    const repo = copyFixture('eval-class-repo');
    cleanup.push(() => fs.rmSync(repo, { recursive: true, force: true }));
    const result = await evalCli([repo, '--scenarios', 'class'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('class: no agent serves the class task; skipped');
    expect(result.stderr).not.toContain('class: running');
    expect(result.stdout).toContain('Nothing was run.');
  });
});
