// Re-exports the shared protocol package so server modules import it by one short path.
export * from '../../protocol/src/index.js';
