// The files generated from the settings declaration (VS Code's settings schema, the docs table, Helix's defaults) are what `npm run generate` writes today: a stale one fails, naming the file and the command.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATE_COMMAND, HELIX_CONFIG, PROTOCOL_DOC, VSCODE_MANIFEST, generateSettingsFiles, replaceBetween } from '../../protocol/src/settingsOutputs.js';
import { REPO_ROOT } from '../support/lspClient.js';

const read = (relative: string): string => fs.readFileSync(path.join(REPO_ROOT, relative), 'utf8');

/** The first line where two texts differ, both versions, for a message that shows what is stale. */
function firstDifference(onDisk: string, generated: string): string {
  const a = onDisk.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `line ${at + 1}:\n  on disk:   ${a[at] ?? '(end of file)'}\n  generated: ${b[at] ?? '(end of file)'}`;
}

describe('files generated from protocol/src/settings.ts', () => {
  const generated = generateSettingsFiles(read);

  it('are the VS Code manifest, the protocol reference and the Helix example', () => {
    expect(generated.map((f) => f.path)).toEqual([VSCODE_MANIFEST, PROTOCOL_DOC, HELIX_CONFIG]);
  });

  it.each(generated.map((f) => [f.path, f.text]))('%s is up to date', (file, text) => {
    const onDisk = read(file);
    if (onDisk !== text) expect.fail(`${file} is stale: run \`${GENERATE_COMMAND}\` and commit the result. First difference at ${firstDifference(onDisk, text)}`);
  });

  it('regenerating is stable, and keeps the hand-written parts', () => {
    const again = generateSettingsFiles((relative) => generated.find((f) => f.path === relative)!.text);
    expect(again).toEqual(generated);
    const manifest = JSON.parse(generated[0]!.text) as { contributes: { configuration: { properties: Record<string, unknown> } } };
    expect(Object.keys(manifest.contributes.configuration.properties)).toEqual(expect.arrayContaining(['assistantLs.server.path', 'assistantLs.trace.server']));
    expect(generated[1]!.text).toContain('## Settings');
  });

  it('names the file and the markers when a marker is gone, rather than writing somewhere else', () => {
    expect(() => replaceBetween('no markers here\n', '<!-- a -->', '<!-- b -->', 'table', 'docs/x.md')).toThrow(/docs\/x\.md: the lines "<!-- a -->" and "<!-- b -->"/);
    expect(replaceBetween('x\n<!-- a -->\nold\n<!-- b -->\ny\n', '<!-- a -->', '<!-- b -->', 'new', 'f')).toBe('x\n<!-- a -->\nnew\n<!-- b -->\ny\n');
  });
});
