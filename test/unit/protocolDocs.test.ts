// Guards the protocol reference: every declared method, command and setting must be documented in docs/protocol.md.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_COMMANDS, CUSTOM_METHODS, SETTINGS, settingEntries } from '../../protocol/src/index.js';
import { REPO_ROOT } from '../support/lspClient.js';

const reference = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'protocol.md'), 'utf8');

describe('docs/protocol.md', () => {
  it.each(CUSTOM_METHODS)('has a section for %s', (method) => {
    expect(reference).toContain(`### \`${method}\``);
  });

  it.each(ALL_COMMANDS)('has a section for command %s', (command) => {
    expect(reference).toContain(`### \`${command}\``);
  });

  it.each(settingEntries(SETTINGS).map((entry) => entry.path))('documents setting %s', (key) => {
    expect(reference).toMatch(new RegExp(`\\| \`${key}\` \\|`));
  });
});
