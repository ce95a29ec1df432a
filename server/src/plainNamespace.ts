// TypeScript's compiler API as an object of plain values, so that each `ts.isIdentifier` in a tree walk is one property read instead of a chain of getters.
/**
 * ts-morph hands out TypeScript's namespace as an object whose every member is a getter (TypeScript's own bundle
 * defines its exports so, ts-morph's interop copies them, and a bundle's import of a CommonJS module adds one more):
 * a walk over a syntax tree calls them by the thousand, and V8 inlines none of them, the namespace holding too many
 * members for a fast object. Functions, and the enums, classes and namespaces (capitalised), are read once here; the
 * other members (`sys`, `version`, ...) stay live getters, since TypeScript may assign them again after it loaded.
 */
export function plainNamespace<T extends object>(namespace: T): T {
  const plain: Record<string, unknown> = {};
  const source = namespace as Record<string, unknown>;
  for (const key of Object.keys(namespace)) {
    const value = source[key];
    if (typeof value === 'function' || /^[A-Z]/.test(key)) plain[key] = value;
    else Object.defineProperty(plain, key, { get: () => source[key], enumerable: true });
  }
  return plain as T;
}
