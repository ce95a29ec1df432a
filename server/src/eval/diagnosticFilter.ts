// Which compiler diagnostics become fix cases: the harness leaves out import and configuration problems, which a one-file fix cannot solve.
import { ts } from 'ts-morph';
import { parseDocument } from '../repo/declarations.js';
import type { DiagnosticInfo } from '../tasks/task.js';

/** Module resolution and import/export declarations: the fix is in another file, the package setup or the tsconfig. */
const IMPORT_CODES = new Set([
  1192, // Module has no default export.
  1202, // Import assignment cannot be used when targeting ECMAScript modules.
  1259, // Module can only be default-imported using the 'esModuleInterop' flag.
  1479, // CommonJS file importing an ECMAScript module.
  1484, // A type must be imported with a type-only import under verbatimModuleSyntax.
  1485, // Resolves to a type-only declaration and must be imported with a type-only import.
  2303, // Circular definition of import alias.
  2305, // Module has no exported member.
  2306, // File is not a module.
  2307, // Cannot find module.
  2440, // Import declaration conflicts with local declaration.
  2459, // Module declares a name locally, but it is not exported.
  2460, // Module declares a name locally, but exports it under another name.
  2497, // Module can only be referenced with ECMAScript imports by turning on esModuleInterop.
  2614, // Module has no exported member; did you mean a default import?
  2686, // Refers to a UMD global, but the current file is a module.
  2691, // An import path cannot end with a '.ts' extension.
  2724, // Has no exported member named …; did you mean …?
  2732, // Cannot find module; consider --resolveJsonModule.
  2792, // Cannot find module; did you mean to set moduleResolution?
  2834, // Relative import paths need explicit file extensions.
  2835, // Relative import paths need explicit file extensions; did you mean …?
  2846, // A declaration file cannot be imported without 'import type'.
  7016, // Could not find a declaration file for module.
]);

/** The environment: compiler options, libraries, global type packages, emit helpers. */
const CONFIGURATION_CODES = new Set([
  1056, // Accessors need ES5 or higher.
  1205, // Re-exporting a type under isolatedModules.
  1208, // A global script file under isolatedModules.
  1286, // ESM syntax in a CommonJS module under verbatimModuleSyntax.
  1287, // A top-level export in a CommonJS module under verbatimModuleSyntax.
  1323, // Dynamic imports need another module option.
  1343, // import.meta needs another module option.
  1378, // Top-level await needs another module or target option.
  1432, // Top-level for await needs another module or target option.
  1470, // import.meta in a file built as CommonJS (the package's module format).
  2318, // Cannot find global type.
  2343, // An imported helper is missing from tslib.
  2354, // This syntax requires an imported helper (tslib).
  2468, // Cannot find global value.
  2550, // Property needs a newer lib.
  2580, // Cannot find name; install type definitions for node.
  2581, // Cannot find name; install type definitions for jQuery.
  2582, // Cannot find name; install type definitions for a test runner.
  2583, // Cannot find name; change the lib option.
  2584, // Cannot find name; include 'dom' in lib.
  2585, // Only refers to a type; change the lib option.
  2591, // Cannot find name; add 'node' to types.
  2592, // Cannot find name; add jQuery to types.
  2593, // Cannot find name; add a test runner to types.
  2688, // Cannot find type definition file.
  2705, // Async functions in ES5 need a Promise constructor.
  2712, // Dynamic import in ES5 needs a Promise constructor.
  2737, // BigInt literals need ES2020.
  2802, // Iteration needs downlevelIteration or ES2015.
  2569, // Iteration needs downlevelIteration (older message).
  7026, // JSX element implicitly any: no JSX.IntrinsicElements (missing React types).
  17004, // JSX needs the jsx option.
  18003, // No inputs found in the config file.
  18028, // Private identifiers need ES2015.
]);

/** Diagnostics in the 6000s that are about the code (unused declarations), not the configuration. */
const CODE_6000S = new Set([6133, 6138, 6192, 6196, 6198, 6199, 6205]);

export type Exclusion = 'import' | 'configuration';

/**
 * Why a compiler diagnostic is not a fix case, or undefined when it is one: its code is about imports or the
 * configuration (compiler options are the 5000s and most of the 6000s), or it lies inside an import or
 * export-from declaration, a `require`/`import()` call or an import type.
 */
export function excludedDiagnostic(diagnostic: DiagnosticInfo, fileName: string, text: string): Exclusion | undefined {
  const code = typeof diagnostic.code === 'number' ? diagnostic.code : Number(String(diagnostic.code ?? '').replace(/^TS/i, ''));
  if (IMPORT_CODES.has(code)) return 'import';
  if (CONFIGURATION_CODES.has(code) || (code >= 5000 && code < 6000) || (code >= 6000 && code < 7000 && !CODE_6000S.has(code))) return 'configuration';
  if (insideImport(parseDocument(fileName, text), diagnostic.start)) return 'import';
  return undefined;
}

function insideImport(source: ts.SourceFile, offset: number): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || offset < node.getFullStart() || offset > node.getEnd()) return;
    if (
      ts.isImportDeclaration(node) ||
      ts.isImportEqualsDeclaration(node) ||
      (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) ||
      ts.isImportTypeNode(node) ||
      (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')))
    ) {
      found = true;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
