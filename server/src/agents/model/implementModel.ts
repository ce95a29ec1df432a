// The Implement task for model agents: one prompt giving the interface and the offline skeleton, asking for the class with every member written.
import path from 'node:path';
import type { ModelTaskStrategy } from '../modelTask.js';
import { fillTemplate, standardValues } from '../modelTask.js';
import { implementSkeleton } from '../offline/implementAgent.js';

const SYSTEM =
  'You implement TypeScript classes inside a code editor. ' +
  'You answer with the whole new file in a single ```typescript code fence and nothing outside it. ' +
  'The file is type-checked with the project\'s strict settings; errors come back to you to fix.';

const USER =
  'Write the class `{{className}}` in {{newFile}}, which {{relation}} the {{kind}} `{{symbol}}` from {{fileName}}.\n' +
  'Start from this skeleton, written by TypeScript\'s own "implement" fixes: keep its imports, its class name and every ' +
  'signature, and replace each "not implemented" body with working code (add private fields or a constructor when the ' +
  'class needs state). No member may still throw "not implemented".\n\n' +
  '```typescript\n{{skeleton}}\n```\n\n' +
  'Request from the developer: {{request}}\n\n' +
  'The {{kind}} to implement:\n```{{language}}\n{{code}}\n```';

export const implementModel: ModelTaskStrategy = {
  buildPrompt(request, override) {
    const target = request.target.declaration;
    if (!target || !request.document.fsPath) return undefined;
    let skeleton: ReturnType<typeof implementSkeleton>;
    try {
      skeleton = implementSkeleton(request.workspace, request.document, target, request.parameters.className);
    } catch {
      skeleton = undefined;
    }
    if (!skeleton) return undefined;
    const values = {
      ...standardValues(request),
      className: skeleton.className,
      newFile: path.relative(request.project.root, skeleton.filePath).split(path.sep).join('/'),
      relation: skeleton.kind === 'interface' ? 'implements' : 'extends',
      kind: skeleton.kind === 'interface' ? 'interface' : 'abstract class',
      skeleton: skeleton.text.trimEnd(),
    };
    return { system: SYSTEM, user: fillTemplate(override ?? USER, values) };
  },
};
