#!/usr/bin/env node
// Command-line entry of assistant-ls: hands over to the bundled CLI (`npm run build` makes it from server/src).
import '../dist/bundle/assistant-ls.mjs';
