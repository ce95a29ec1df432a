// The Test task for model agents: one prompt asking for a whole test file in the project's framework, in one code fence.
import { statSync } from 'node:fs';
import path from 'node:path';
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, importsEnd, standardValues, withoutAnnotations } from '../modelTask.js';
import { frameworkImports } from '../../repo/testFramework.js';
import { testPlaceOf } from '../../tasks/testTask.js';
import { writeScaffold } from '../offline/testScaffoldAgent.js';

const SYSTEM =
  'You write unit tests for TypeScript and JavaScript projects, inside a code editor. ' +
  'You answer with one complete test file in a single code fence and nothing outside it. ' +
  'Your tests are type-checked with the project\'s strict settings and run; failures come back to you to fix.';

const USER =
  'Write the test file {{testFile}} for the {{kind}} `{{symbol}}` in {{fileName}}, using {{framework}}.\n' +
  'Begin with exactly these imports, adding only what the tests need beyond them:\n{{imports}}\n' +
  'Test every behaviour the code shows with concrete inputs and the exact results it gives; the behaviours found so far:\n{{behaviours}}\n' +
  'No todo or skipped tests. Do not mock the code under test. Keep each test independent.{{existing}}\n' +
  'Request from the developer: {{request}}\n\n' +
  'The code under test:\n```{{language}}\n{{code}}\n```\n\n' +
  "Its module's imports:\n```{{language}}\n{{source}}\n```";

export const testModel: ModelTaskStrategy = {
  buildPrompt(request, override) {
    const place = testPlaceOf(request.workspace, request.document);
    const target = request.target.declaration;
    if (!place || !target) return undefined;
    // The scaffold gives the imports and the behaviours in the project's terms; it is not verified here (no waiting).
    let behaviours: string[] = [];
    let imports = frameworkImports(place.convention, { expect: true, assert: true });
    try {
      const scaffold = writeScaffold(request.project, request.document, target, place, { verify: false });
      if (scaffold) {
        behaviours = scaffold.behaviours;
        imports = [...imports, scaffold.importLine];
      }
    } catch {
      // The prompt still works without them.
    }
    const values = {
      ...standardValues(request),
      testFile: path.relative(request.project.root, place.testPath).split(path.sep).join('/'),
      framework: `${place.convention.framework} (${place.convention.evidence})`,
      imports: imports.join('\n'),
      behaviours: behaviours.length > 0 ? behaviours.map((b) => `- ${b}`).join('\n') : '- (none found: read the code)',
      existing: testFileExists(place.testPath) ? '\nThe test file exists already: your describe block will be appended to it, and your imports merged with its own.' : '',
      // Not the whole module: the declarations the code uses come with the request's context, wherever they live.
      source: withoutAnnotations(request.document.text.slice(0, importsEnd(request.document))).trim() || '(no imports)',
    };
    return { system: SYSTEM, user: fillTemplate(override ?? USER, values) };
  },
  shows: (document) => [{ start: 0, end: importsEnd(document) }],
};

function testFileExists(testPath: string): boolean {
  try {
    return statSync(testPath).isFile();
  } catch {
    return false;
  }
}
