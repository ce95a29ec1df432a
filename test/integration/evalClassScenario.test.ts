// Unit tests for the class scenario on the eval-class-repo fixture: which classes become cases and their descriptions, the class removed for the agent's tools and type checker, and scoring a class put back in memory.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, linkModules } from '../support/lspClient.js';
import { fileNameFor } from '../../server/src/pipeline/classPipeline.js';
import { classScenario, removalCopy } from '../../server/src/eval/classScenario.js';
import type { ClassCase } from '../../server/src/eval/classScenario.js';
import { firstSentence, reinsertClass } from '../../server/src/eval/classCases.js';
import { ScratchCopy } from '../../server/src/eval/scratch.js';
import type { CaseRun, ScoreContext } from '../../server/src/eval/scenario.js';
import type { TaskEnvironment } from '../../server/src/tasks/runTask.js';
import { Workspace } from '../../server/src/workspace/workspace.js';
import { RepositoryTools } from '../../server/src/repo/repositoryTools.js';
import { typeCheckNewFile } from '../../server/src/oracle/typeCheck.js';
import { pathToUri } from '../../server/src/workspace/documentSnapshot.js';
import { treeHash } from '../support/evalSupport.js';

const CART_IMPORTS = `import { addMoney, formatMoney, zero } from './money.js';
import type { Money } from './money.js';
import type { Countable, Product } from './catalog.js';
import type { CartLine } from './shopping.js';
`;

const PRICEBOOK_IMPORTS = `import { formatMoney, money } from './money.js';
import type { Money } from './money.js';
import type { Product } from './catalog.js';
`;

describe('class cases', () => {
  let repo: string;
  let scratch: ScratchCopy;
  let cases: ClassCase[];
  let notes: string[];
  let scoring: ScoreContext;
  let before: string;
  const signal = new AbortController().signal;

  beforeAll(async () => {
    repo = linkModules(copyFixture('eval-class-repo'));
    scratch = ScratchCopy.create(repo);
    before = treeHash(scratch.root);
    // Building and scoring read only the workspace and the oracle's test time limit from the environment.
    const env = { root: scratch.root, workspace: new Workspace(scratch.root), oracle: { runTests: false, testTimeoutMs: 60_000 } } as unknown as TaskEnvironment;
    notes = [];
    cases = await classScenario.buildCases({ scratch, env, eslint: undefined, note: (m) => notes.push(m) }, signal);
    scoring = { scratch, env, eslint: undefined };
  }, 60_000);

  afterAll(() => {
    scratch?.dispose();
    if (repo) fs.rmSync(repo, { recursive: true, force: true });
  });

  const caseOf = (id: string): ClassCase => cases.find((c) => c.id === id) as ClassCase;

  it('takes the tested classes that use other files, two descriptions each, and says what it left out', () => {
    expect(cases.map((c) => c.id)).toEqual(['class:src/PriceBook.ts:7:PriceBook:detailed', 'class:src/PriceBook.ts:7:PriceBook:sketchy', 'class:src/shopping.ts:16:Cart:detailed', 'class:src/shopping.ts:16:Cart:sketchy']);
    expect(notes).toContain('class: running 2 test files on the original code, to keep the classes whose tests pass');
    expect(notes).toContain(
      'class: 4 cases from 2 classes, each with a detailed and a sketchy description (4 classes in 5 source files; 2 test files run on the original code; left out: 1 class using nothing from other files (Catalog); 1 class without a test file naming it (ReceiptPrinter))',
    );
    const cart = caseOf('class:src/shopping.ts:16:Cart:detailed');
    expect(cart).toMatchObject({ kind: 'detailed', className: 'Cart', target: 'class Cart (detailed)', file: 'src/shopping.ts', testFile: path.join(scratch.root, 'src', 'shopping.test.ts'), framework: 'vitest', testCount: 4, deleteFile: false });
    // Covered only by a test file importing it.
    expect(caseOf('class:src/PriceBook.ts:7:PriceBook:sketchy')).toMatchObject({ testFile: path.join(scratch.root, 'src', 'pricing.test.ts'), testCount: 3 });
    expect(classScenario.contextChars(cart)).toBe(cart.description.length);
    // The two descriptions of one class differ, and so do their content hashes.
    expect(caseOf('class:src/shopping.ts:16:Cart:sketchy').contentHash).not.toBe(cart.contentHash);
    expect(treeHash(scratch.root)).toBe(before);
  });

  it('describes a class in detail (header, doc comment, every public member with its signature and doc summary) and sketchily (names only)', () => {
    expect(caseOf('class:src/shopping.ts:16:Cart:detailed').description).toBe(
      [
        'Write a class named `Cart`, implementing `Countable`. It is exported.',
        'The products a customer is buying, with their quantities. Adding a product that is already in the cart adds to its line.',
        '',
        'Its public members:',
        '- `constructor(currency: string)`: Makes an empty cart that sums prices in one currency.',
        '- `readonly currency: string`',
        '- `add(product: Product, quantity?: number): void`: Adds a quantity of a product (one by default); a quantity below one is refused with a RangeError.',
        '- `count(): number`: How many items the cart holds over all its lines.',
        '- `total(): Money`: The price of everything in the cart.',
        '- `get summary(): string`: The count and the total as text, e.g. "3 items: EUR 7.50".',
      ].join('\n'),
    );
    expect(caseOf('class:src/shopping.ts:16:Cart:sketchy').description).toBe(
      ['Write a class named `Cart`. It is exported. The products a customer is buying, with their quantities.', 'Its public members: constructor, currency, add, count, total, summary.'].join('\n'),
    );
    expect(caseOf('class:src/PriceBook.ts:7:PriceBook:sketchy').description).toBe(
      ['Write a class named `PriceBook`. It is exported. Discounts by SKU, and the prices of products after them.', 'Its public members: discount, priceOf, label.'].join('\n'),
    );
    // No private member, no body.
    for (const c of cases) {
      expect(c.description).not.toMatch(/private|CartLine\[\]|new Map|marker|reduce|Math\.round|throw/);
    }
    expect(firstSentence('As text, e.g. "3 items". Then more.')).toBe('As text, e.g. "3 items".');
    expect(firstSentence('Version 2.5 of it. More.')).toBe('Version 2.5 of it.');
  });

  it('removes the class with the imports only it used, or the whole file when the class task would write that very file', () => {
    const cart = caseOf('class:src/shopping.ts:16:Cart:detailed');
    expect(cart.removal.removedImports).toEqual(['Countable', 'Money', 'addMoney', 'formatMoney', 'zero']);
    expect(cart.removal.text).toBe(
      "// A shopping cart of catalog products; shopping.test.ts covers it.\nimport type { Product } from './catalog.js';\n\n/** One line of a cart: a product and how many of it. */\nexport interface CartLine {\n  product: Product;\n  quantity: number;\n}\n",
    );
    expect(cart.originalClass.startsWith('/**\n * The products a customer is buying')).toBe(true);
    expect(cart.originalText).toContain(cart.originalClass);
    const book = caseOf('class:src/PriceBook.ts:7:PriceBook:detailed');
    expect(book.deleteFile).toBe(true);
    expect(book.removal.text).toBe('// Discounted prices of catalog products; pricing.test.ts covers it.\n');
  });

  it('leaves the class out of the agent’s copy: tools, index and type checker do not find it, the scratch copy keeps it', async () => {
    const cart = caseOf('class:src/shopping.ts:16:Cart:sketchy');
    const copy = removalCopy(cart);
    try {
      expect(path.dirname(path.dirname(copy.root))).toBe(scratch.folder);
      expect(fs.readFileSync(copy.pathOf('src/shopping.ts'), 'utf8')).toBe(cart.removal.text);
      const workspace = new Workspace(copy.root);
      const tools = new RepositoryTools(workspace);
      await tools.ready(signal);
      expect(tools.searchClass('Cart')).toMatch(/^No class or interface named Cart\./);
      expect(await tools.call('get_class_info', { name: 'Cart' }, signal)).not.toContain('merge into the existing line');
      expect(await tools.call('search_code', { code: 'cart-marker' }, signal)).not.toContain('shopping.ts');
      expect(await tools.call('get_method_body', { name: 'total', class: 'Cart' }, signal)).not.toContain('addMoney(sum');
      expect(await tools.relevantCode('cart products quantity merge existing line total summary', 15, signal)).not.toMatch(/cart-marker|class Cart\b/);
      const errors = typeCheckNewFile(workspace.projects.workspace, { path: copy.pathOf('src/use.ts'), text: "import { Cart } from './shopping.js';\nexport const cart = new Cart('EUR');\n" });
      expect(errors.map((e) => e.code)).toContain(2305);
    } finally {
      copy.dispose();
    }
    expect(fs.existsSync(copy.root)).toBe(false);

    const book = caseOf('class:src/PriceBook.ts:7:PriceBook:sketchy');
    const bookCopy = removalCopy(book);
    try {
      expect(fs.existsSync(bookCopy.pathOf('src/PriceBook.ts'))).toBe(false);
      const tools = new RepositoryTools(new Workspace(bookCopy.root));
      await tools.ready(signal);
      expect(tools.searchClass('PriceBook')).toMatch(/^No class or interface named PriceBook\./);
      expect(await tools.call('search_code', { code: 'pricebook-marker' }, signal)).not.toContain('PriceBook.ts');
    } finally {
      bookCopy.dispose();
    }
    expect(fs.readFileSync(cart.fsPath, 'utf8')).toBe(cart.originalText);
    expect(treeHash(scratch.root)).toBe(before);
  }, 30_000);

  /** A run whose proposal creates `file` with `text` in the scratch copy. */
  const created = (file: string, text: string): CaseRun => ({ interactionId: 'i', response: undefined, proposal: { documents: [], creates: [{ uri: pathToUri(scratch.pathOf(file)), text }] }, oraclePassed: true, durationMs: 1 });

  it('scores a class put back in memory: the original passes everything, a wrong method fails the tests it breaks, a type error fails compile only', async () => {
    const cart = caseOf('class:src/shopping.ts:16:Cart:detailed');
    const original = `${CART_IMPORTS}\n${cart.originalClass}\n`;
    const right = await classScenario.score(scoring, cart, created('src/Cart.ts', original), signal);
    expect(right.metrics).toEqual({ pass: 1, testRate: 1, compile: 1 });
    expect(right.failure).toBeUndefined();
    expect(right.details).toMatchObject({
      description: 'detailed',
      testFile: 'src/shopping.test.ts',
      createdFile: 'src/Cart.ts',
      tests: { passed: 4, failed: 0, skipped: 0, expected: 4 },
      compileErrors: [],
      failures: [],
      // The imports the class needs come back; the import of the class's own file does not.
      addedImports: ["import { addMoney, formatMoney, zero } from './money.js';", "import type { Money } from './money.js';", "import type { Countable } from './catalog.js';"],
    });

    // add() no longer refuses a quantity of 0: one of the four tests fails.
    const lenient = original.replace('if (quantity < 1) throw new RangeError(`cannot add ${quantity} of ${product.sku}`);\n', '');
    expect(lenient).not.toBe(original);
    const wrong = await classScenario.score(scoring, cart, created('src/Cart.ts', lenient), signal);
    expect(wrong.metrics).toEqual({ pass: 0, testRate: 0.75, compile: 1 });
    expect(wrong.failure).toMatch(/^src\/shopping\.test\.ts: 3 of 4 tests pass \(Cart > refuses quantities below one: /);
    expect(wrong.details).toMatchObject({ tests: { passed: 3, failed: 1, expected: 4 }, failures: [expect.stringMatching(/^Cart > refuses quantities below one: /)] });

    // A type error that changes nothing at run time: the tests still pass, the file does not compile.
    const mistyped = original.replace('return this.lines.reduce((sum, line) => sum + line.quantity, 0);', 'const label: number = this.currency;\n    void label;\n    return this.lines.reduce((sum, line) => sum + line.quantity, 0);');
    expect(mistyped).not.toBe(original);
    const untyped = await classScenario.score(scoring, cart, created('src/Cart.ts', mistyped), signal);
    expect(untyped.metrics).toEqual({ pass: 1, testRate: 1, compile: 0 });
    expect(untyped.failure).toMatch(/^src\/shopping\.ts does not type-check with the class: src\/shopping\.ts:\d+:\d+ TS2322 Type 'string' is not assignable to type 'number'\./);
    expect((untyped.details?.compileErrors as string[]).length).toBe(1);

    // A class missing its export: it type-checks in its file, but every test fails.
    const hidden = await classScenario.score(scoring, cart, created('src/Cart.ts', original.replace('export class Cart', 'class Cart')), signal);
    expect(hidden.metrics.testRate).toBe(0);
    expect(hidden.metrics.pass).toBe(0);

    const none = await classScenario.score(scoring, cart, { interactionId: 'i', response: undefined, proposal: undefined, oraclePassed: undefined, failure: 'no answer: empty', durationMs: 1 }, signal);
    expect(none).toMatchObject({ metrics: { pass: 0, testRate: 0, compile: 0 }, failure: 'no answer: empty' });
    const other = await classScenario.score(scoring, cart, created('src/Basket.ts', 'export class Basket {}\n'), signal);
    expect(other).toMatchObject({ metrics: { pass: 0, testRate: 0, compile: 0 }, failure: 'the created file declares Basket, not Cart' });
    expect(treeHash(scratch.root)).toBe(before);
  }, 60_000);

  it('puts a class back into a file the agent’s copy deleted, from a new file in another folder', async () => {
    const book = caseOf('class:src/PriceBook.ts:7:PriceBook:sketchy');
    const original = `${PRICEBOOK_IMPORTS}\n${book.originalClass}\n`;
    const right = await classScenario.score(scoring, book, created('src/priceBook.ts', original), signal);
    expect(right.metrics).toEqual({ pass: 1, testRate: 1, compile: 1 });
    // Written in another folder, its relative imports are rebased onto the class's file; a helper it declares comes along.
    const elsewhere = `import { formatMoney, money } from '../money.js';\nimport type { Money } from '../money.js';\nimport type { Product } from '../catalog.js';\n\nconst HUNDRED = 100;\n\n${book.originalClass.replace('(100 - percent)) / 100)', '(HUNDRED - percent)) / HUNDRED)')}\n`;
    const merged = reinsertClass({ file: book.file, removal: book.removal }, { file: 'src/books/PriceBook.ts', text: elsewhere }, 'PriceBook');
    expect(merged?.helpers).toEqual(['HUNDRED']);
    expect(merged?.text.startsWith("// Discounted prices of catalog products; pricing.test.ts covers it.\nimport { formatMoney, money } from './money.js';\nimport type { Money } from './money.js';\nimport type { Product } from './catalog.js';\n\nconst HUNDRED = 100;\n\n/** Discounts by SKU")).toBe(true);
    const moved = await classScenario.score(scoring, book, created('src/books/PriceBook.ts', elsewhere), signal);
    expect(moved.metrics).toEqual({ pass: 1, testRate: 1, compile: 1 });
    expect(moved.details).toMatchObject({ createdFile: 'src/books/PriceBook.ts', helpers: ['HUNDRED'] });
    expect(treeHash(scratch.root)).toBe(before);
  }, 60_000);

  it('keeps a class whose file holds other code under the name the class task would give its new file (the task picks a free name)', async () => {
    // cart.ts instead of shopping.ts: the class task's habit name Cart.ts is taken (in another case), so it writes Cart2.ts.
    const other = linkModules(copyFixture('eval-class-repo'));
    try {
      fs.renameSync(path.join(other, 'src', 'shopping.ts'), path.join(other, 'src', 'cart.ts'));
      fs.renameSync(path.join(other, 'src', 'shopping.test.ts'), path.join(other, 'src', 'cart.test.ts'));
      for (const file of ['src/cart.test.ts', 'src/receipt.ts']) fs.writeFileSync(path.join(other, file), fs.readFileSync(path.join(other, file), 'utf8').replace("'./shopping.js'", "'./cart.js'"));
      const otherScratch = ScratchCopy.create(other);
      try {
        const otherNotes: string[] = [];
        const env = { root: otherScratch.root, workspace: new Workspace(otherScratch.root), oracle: { runTests: false, testTimeoutMs: 60_000 } } as unknown as TaskEnvironment;
        const built = await classScenario.buildCases({ scratch: otherScratch, env, eslint: undefined, note: (m) => otherNotes.push(m) }, signal);
        expect(built.map((c) => c.className).sort()).toEqual(['Cart', 'Cart', 'PriceBook', 'PriceBook']);
        expect(otherNotes.at(-1)).not.toContain('(Cart)');
        expect(fileNameFor('Cart', path.join(otherScratch.root, 'src'))).toBe('Cart2.ts');
      } finally {
        otherScratch.dispose();
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  }, 30_000);

  it('puts the class back exactly where it was, the rest of the file unchanged but for the imports it needs', () => {
    const cart = caseOf('class:src/shopping.ts:16:Cart:sketchy');
    const merged = reinsertClass({ file: cart.file, removal: cart.removal }, { file: 'src/Cart.ts', text: `${CART_IMPORTS}\n${cart.originalClass}\n` }, 'Cart');
    const expected = cart.originalText.replace(
      "import { addMoney, formatMoney, zero } from './money.js';\nimport type { Money } from './money.js';\nimport type { Countable, Product } from './catalog.js';\n",
      "import type { Product } from './catalog.js';\nimport { addMoney, formatMoney, zero } from './money.js';\nimport type { Money } from './money.js';\nimport type { Countable } from './catalog.js';\n",
    );
    expect(expected).not.toBe(cart.originalText);
    expect(merged).toEqual({ text: expected, addedImports: ["import { addMoney, formatMoney, zero } from './money.js';", "import type { Money } from './money.js';", "import type { Countable } from './catalog.js';"], helpers: [] });
  });
});
