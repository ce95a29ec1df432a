// Unified diffs over the pipelines fixture as a user pastes them: the journeys and the end-to-end tests apply the same ones.

/** The two-file diff: `Cart.isEmpty` added after `lines()` in src/cart.ts, and a line's price times its quantity in src/pricing.ts. */
export const CART_AND_PRICING_PATCH: readonly string[] = [
  '--- a/src/cart.ts',
  '+++ b/src/cart.ts',
  '@@ -14,3 +14,8 @@',
  '   lines(): readonly LineItem[] {',
  '     return this.items;',
  '   }',
  '+',
  '+  /** Whether the cart has no line. */',
  '+  isEmpty(): boolean {',
  '+    return this.items.length === 0;',
  '+  }',
  '--- a/src/pricing.ts',
  '+++ b/src/pricing.ts',
  '@@ -12 +12 @@',
  '-  return item.price;',
  '+  return item.price * item.quantity;',
];
