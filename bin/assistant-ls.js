#!/usr/bin/env node
// Command-line entry of assistant-ls: hands over to the compiled CLI.
import '../dist/server/src/cli.js';
