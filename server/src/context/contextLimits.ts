// Limits of a request's context: a handful of pointed pieces, not a dump of the workspace.

export const MAX_SYMBOLS = 8;
/** Properties and variables say less than the classes and functions around them. */
export const MAX_MINOR_SYMBOLS = 3;
export const MAX_REFERENCES = 3;
/** References gathered per symbol: a few more than shown, since the context may already show some whole. */
export const MAX_REFERENCE_CANDIDATES = MAX_REFERENCES + 2;
export const MAX_RECENT = 5;
export const MAX_OPEN_DOCUMENTS = 6;
export const MAX_REQUEST_NAMES = 8;
/** Lines shown around a visited position and around a reference. */
export const RECENT_AROUND = 2;
export const REFERENCE_AROUND = 1;
/** A visited range longer than this shows its first lines only. */
export const MAX_RECENT_SPAN = 8;
export const HEAD_LINES = 25;
/** A class longer than this is given as an outline (members with their bodies folded). */
export const OUTLINE_OVER_LINES = 30;
/** Longest piece of each kind before any budget: one long function must not crowd out the rest of a large budget. */
export const MAX_LINES = { enclosing: 120, symbol: 60, open: 40 } as const;
export const MAX_TARGET_IDENTIFIERS = 2_000;
export const MAX_FILE_BYTES = 1_000_000;
/** Below this many characters for its text, a cut piece says nothing useful. */
export const MIN_CUT_CHARS = 48;
