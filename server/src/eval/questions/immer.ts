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
  // Written after held-out-2 was measured, in its newcomer manner (everyday words, typos), to tune the next ranking round on.
  tuning3: [
    { query: 'copy the state but change one nested field', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.produce' }, { file: 'src/core/proxy.ts', symbol: 'markChanged' }, { file: 'src/core/proxy.ts', symbol: 'objectTraps' }], keywords: ['produce'] },
    { query: 'can i change the draft and also return a new object from the recipe?', expected: [{ file: 'src/core/finalize.ts', symbol: 'processResult' }, { file: 'src/utils/errors.ts', symbol: 'errors' }], keywords: ['processResult'] },
    { query: 'push to an arry inside produce, how is that tracked', expected: [{ file: 'src/core/proxy.ts', symbol: 'arrayTraps' }, { file: 'src/core/proxy.ts', symbol: 'objectTraps' }], keywords: ['arrayTraps'] },
    { query: 'what happens when I call produce inside another producer', expected: [{ file: 'src/core/scope.ts', symbol: 'enterScope' }, { file: 'src/core/scope.ts', symbol: 'ImmerScope' }, { file: 'src/core/scope.ts', symbol: 'leaveScope' }, { file: 'src/core/finalize.ts', symbol: 'maybeFreeze' }], keywords: ['scope'] },
    { query: 'ts says my state is readonly and wont let me assign it to the draft, how do i cast it', expected: [{ file: 'src/immer.ts', symbol: 'castDraft' }, { file: 'src/immer.ts', symbol: 'castImmutable' }, { file: 'src/types/types-external.ts', symbol: 'Draft' }], keywords: ['castDraft'] },
    { query: 'does it wrap my whole big nested state in proxies up front? worried about perf', expected: [{ file: 'src/core/proxy.ts', symbol: 'objectTraps' }, { file: 'src/core/immerClass.ts', symbol: 'createProxy' }], keywords: ['createProxy'] },
    { query: 'what fields does a patch object have', expected: [{ file: 'src/types/types-external.ts', symbol: 'Patch' }, { file: 'src/types/types-external.ts', symbol: 'PatchListener' }], keywords: ['Patch'] },
    { query: 'what happens if I pass a number instead of an object to produce', expected: [{ file: 'src/core/immerClass.ts', symbol: 'Immer.produce' }], keywords: ['draftable'] },
    { query: "if my recipe doesn't change anything do i get the exact same object back", expected: [{ file: 'src/core/finalize.ts', symbol: 'finalize' }, { file: 'src/core/proxy.ts', symbol: 'objectTraps' }], keywords: ['modified'] },
    { query: 'do patches work for Map and Set too', expected: [{ file: 'src/plugins/patches.ts', symbol: 'generatePatches_' }, { file: 'src/plugins/patches.ts', symbol: 'generateSetPatches' }, { file: 'src/plugins/patches.ts', symbol: 'generatePatchesFromAssigned' }], keywords: ['Set'] },
    { query: 'after produce returns, calling .set on my Map throws an error', expected: [{ file: 'src/utils/common.ts', symbol: 'dontMutateFrozenCollections' }, { file: 'src/utils/common.ts', symbol: 'freeze' }], keywords: ['frozen'] },
    { query: 'is it safe to apply patches that came from the client? prototype pollution', expected: [{ file: 'src/plugins/patches.ts', symbol: 'applyPatches_' }], keywords: ['__proto__'] },
  ],
};
