// The one door from the extension to `protocol/src`: every method, command and setting the extension names comes through here.
export * from '../../../../protocol/src/index.js';
