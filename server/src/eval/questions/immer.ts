// Workspace questions about immer 10.1.1, phrased as users type them, each answer checked by reading the package's sources.
import type { QuestionSets } from './questionSet.js';

/** The held-out questions were written with the tuning ones and never looked at while changing the ranking. */
export const IMMER_QUESTIONS: QuestionSets = {
  tuning: [
    { query: 'how does produce create a draft', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.produce' }, { file: 'src/core/immerClass.ts', symbol: 'createProxy' }], keywords: ['produce'] },
    { query: 'where are patches generated?', expected: [{ file: 'src/plugins/patches.ts', symbol: 'generatePatches_' }, { file: 'src/plugins/patches.ts', symbol: 'enablePatches' }], keywords: ['patches'] },
    { query: 'how is a draft finalized into the result', expected: [{ file: 'src/core/finalize.ts', symbol: 'processResult' }, { file: 'src/core/finalize.ts', symbol: 'finalize' }], keywords: ['finalize'] },
    { query: 'deep freeze the produced state', expected: [{ file: 'src/utils/common.ts', symbol: 'freeze' }, { file: 'src/core/finalize.ts', symbol: 'maybeFreeze' }], keywords: ['freeze'] },
    { query: 'how are Maps and Sets drafted', expected: [{ file: 'src/plugins/mapset.ts', symbol: 'enableMapSet' }, { file: 'src/plugins/mapset.ts', symbol: 'DraftMap' }, { file: 'src/plugins/mapset.ts', symbol: 'DraftSet' }], keywords: ['Map'] },
    { query: 'get the current state of a draft', expected: [{ file: 'src/core/current.ts', symbol: 'current' }, { file: 'src/core/current.ts', symbol: 'currentImpl' }], keywords: ['current'] },
  ],
  heldOut: [
    { query: 'apply a list of patches to a state', expected: [{ file: 'src/plugins/patches.ts', symbol: 'applyPatches_' }, { file: 'src/core/immerClass.ts', symbol: 'Immer.applyPatches' }], keywords: ['applyPatches'] },
    { query: 'how does the proxy trap property writes', expected: [{ file: 'src/core/proxy.ts', symbol: 'objectTraps' }], keywords: ['set'] },
    { query: 'where is the proxy for a plain object created', expected: [{ file: 'src/core/proxy.ts', symbol: 'createProxyProxy' }, { file: 'src/core/immerClass.ts', symbol: 'createProxy' }], keywords: ['createProxy'] },
    { query: 'check whether a value is a draft', expected: [{ file: 'src/utils/common.ts', symbol: 'isDraft' }], keywords: ['isDraft'] },
    { query: 'which error messages can immer throw', expected: [{ file: 'src/utils/errors.ts', symbol: 'errors' }, { file: 'src/utils/errors.ts', symbol: 'die' }], keywords: ['errors'] },
    { query: 'how does original return the base state of a draft', expected: [{ file: 'src/utils/common.ts', symbol: 'original' }], keywords: ['original'] },
  ],
  // Written later, from the sources alone, by an engineer who never saw how the product ranks them: measured only.
  heldOut2: [
    { query: 'stop immer from freezing my objects', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.setAutoFreeze' }, { file: 'src/immer.ts', symbol: 'setAutoFreeze' }, { file: 'src/core/finalize.ts', symbol: 'maybeFreeze' }], keywords: ['setAutoFreeze'] },
    { query: 'let instances of my own class be changed inside produce', expected: [{ file: 'src/utils/env.ts', symbol: 'DRAFTABLE' }, { file: 'src/utils/common.ts', symbol: 'isDraftable' }], keywords: ['immerable'] },
    { query: 'return nothing from a recipe to set the state to undefined', expected: [{ file: 'src/utils/env.ts', symbol: 'NOTHING' }, { file: 'src/core/finalize.ts', symbol: 'processResult' }, { file: 'src/core/immerClass.ts', symbol: 'Immer.produce' }], keywords: ['nothing'] },
    { query: 'get the next state together with its patches', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.produceWithPatches' }, { file: 'src/immer.ts', symbol: 'produceWithPatches' }], keywords: ['produceWithPatches'] },
    { query: 'keep a draft open across async calls and finish it later', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.createDraft' }, { file: 'src/core/immerClass.ts', symbol: 'Immer.finishDraft' }, { file: 'src/immer.ts', symbol: 'createDraft' }, { file: 'src/immer.ts', symbol: 'finishDraft' }], keywords: ['createDraft'] },
    { query: 'how does a curried producer work', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.produce' }, { file: 'src/immer.ts', symbol: 'produce' }], keywords: ['curried'] },
    { query: 'why is my draft revoked after produce returns', expected: [{ file: 'src/core/scope.ts', symbol: 'revokeScope' }, { file: 'src/core/scope.ts', symbol: 'revokeDraft' }], keywords: ['revoke'] },
    { query: 'where does immer copy an object the first time it is changed', expected: [{ file: 'src/core/proxy.ts', symbol: 'prepareCopy' }, { file: 'src/utils/common.ts', symbol: 'shallowCopy' }], keywords: ['copy'] },
    { query: 'also copy getters and non-enumerable properties', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.setUseStrictShallowCopy' }, { file: 'src/immer.ts', symbol: 'setUseStrictShallowCopy' }, { file: 'src/utils/common.ts', symbol: 'shallowCopy' }], keywords: ['useStrictShallowCopy'] },
    { query: 'how are optional plugins registered and looked up', expected: [{ file: 'src/utils/plugins.ts', symbol: 'loadPlugin' }, { file: 'src/utils/plugins.ts', symbol: 'getPlugin' }], keywords: ['plugin'] },
  ],
};
