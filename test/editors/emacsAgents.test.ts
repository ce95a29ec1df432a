// M-x assistant-ls-agents in Emacs in a terminal: the agents the server runs, the tasks each serves and the settings that disabled one, as the user sees them.
import { afterEach, describe, expect, it } from 'vitest';
import { copyFixture } from '../support/lspClient.js';
import { endTerminals, requireEmacs, terminalEmacs, terminalInit } from './harness/emacs.js';

afterEach(() => {
  endTerminals();
});

describe('clients/emacs/assistant-ls.el: the agents', () => {
  it('M-x assistant-ls-agents names the agents in the echo area and lists each with its tasks, and the setting that disabled one, in *assistant-ls agents*', async (ctx) => {
    requireEmacs(ctx, { tmux: true });
    const root = copyFixture('basic');
    // A model agent on an endpoint nobody calls here (listing asks no model), and a local one whose file is missing;
    // most offline agents left out, so that every line fits the terminal's 120 columns.
    const agents = `[(:name "gpt-4o-mini" :baseURL "http://127.0.0.1:9/v1" :apiKey "sk-test" :model "gpt-4o-mini" :tasks ["document" "explain"]) (:name "local" :modelPath "/no-such-model.gguf")]`;
    const disabled = ['question-offline', 'rename-offline', 'fix-offline', 'test-scaffold-offline', 'implement-offline'];
    const configuration = `(:useEnvironment :json-false :disabledAgents [${disabled.map((name) => `"${name}"`).join(' ')}] :agents ${agents} :completion (:enabled :json-false))`;
    const term = await terminalEmacs({ root, init: terminalInit(root, configuration), file: 'src/config.ts' });
    // The missing model file is said at start, once, in the echo area (a notice: nothing waits for an answer; Eglot
    // names the server's type, and the line wraps at the terminal's 120 columns).
    const start = await term.screenShowing('the settings warning', 'assistant-ls: 1 setting problem: assistant.agents[1].modelPath: no file at /no-such-mo');
    expect(start.split('setting problem:').length - 1).toBe(1);
    term.keys('M-x');
    term.type('assistant-ls-agents');
    term.keys('Enter');
    const screen = await term.screenShowing('the agents', /\*assistant-ls agents\*[\s\S]*assistant-ls: agents: /);
    const lines = screen.split('\n').map((line) => line.trimEnd());
    const head = 'agents: doc-offline, explain-offline, gpt-4o-mini; 1 setting problem';
    // The echo area: the names, and that a setting disabled one.
    expect(lines.filter(Boolean).at(-1)).toBe(`assistant-ls: ${head}`);
    // The code keeps its window; the list is in a window of its own below it: the same line, then each agent with
    // the tasks it serves, then the setting that disabled one.
    const code = lines.findIndex((line) => line.includes(' config.ts '));
    const list = lines.findIndex((line) => line.includes(' *assistant-ls agents* '));
    expect(code).toBeGreaterThan(0);
    expect(list).toBeGreaterThan(code);
    expect(lines.slice(code + 1, list)).toEqual([
      head,
      '',
      'doc-offline (rule): document',
      'explain-offline (rule): explain',
      'gpt-4o-mini (llm gpt-4o-mini): document, explain',
      'problem: assistant.agents[1].modelPath: no file at /no-such-model.gguf; the agent is left out',
      ...lines.slice(code + 7, list).map(() => ''),
    ]);
  }, 100_000);
});
