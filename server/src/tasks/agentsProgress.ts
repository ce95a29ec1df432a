// The progress of one task's agents as the user reads it: "1 of 2 agents done · gpt-4o-mini: 12 s", updated while they run.
import type { ProgressSink } from '../editorPort.js';

/** How often the running agents' seconds are told again while nothing else happens. */
export const PROGRESS_TICK_MS = 1000;

interface AgentState {
  startedAt: number;
  /** What the agent does now, when it says more than "working": a pipeline step, a second attempt, the oracle. */
  activity?: string;
  /** How many characters of its answer the agent's model has written in what it does now. */
  written?: number;
  done: boolean;
}

/**
 * Counts over every agent of the task, not per call: an agent is done once its last attempt has been checked, so
 * retries and pipeline steps keep it among the running ones, each with the seconds since it started. The sink
 * throttles what reaches the editor; the tick only keeps the seconds moving while an agent is silent.
 *
 * No percentage: nothing tells how much of an answer is left (a chat request has no token limit, and a local
 * model's is a ceiling answers rarely reach), and the share of agents done would stand still for the whole of the
 * slowest one's answer, the offline agents being done at once. What moves is said instead: the seconds, and the
 * characters a streaming model has written. A lone agent's line is just its own, without a count of one.
 */
export class AgentsProgress {
  private readonly agents = new Map<string, AgentState>();
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;

  constructor(
    names: readonly string[],
    private readonly sink: ProgressSink,
    private readonly now: () => number = () => performance.now(),
  ) {
    const startedAt = this.now();
    for (const name of names) this.agents.set(name, { startedAt, done: false });
  }

  /** Reports the start, then again every tick until `stop`. */
  start(): void {
    this.report();
    this.timer = setInterval(() => this.report(), PROGRESS_TICK_MS);
    // A tick never keeps the process alive: the task it reports on does.
    this.timer.unref();
  }

  /** The agent says what it is doing; undefined goes back to the plain count of seconds. */
  activity(name: string, activity: string | undefined): void {
    const state = this.agents.get(name);
    if (!state || state.done || state.activity === activity) return;
    state.activity = activity;
    state.written = undefined;
    this.report();
  }

  /** The agent's model has written this many characters of its answer (while it streams). */
  written(name: string, characters: number): void {
    const state = this.agents.get(name);
    if (!state || state.done || state.written === characters) return;
    state.written = characters;
    this.report();
  }

  done(name: string): void {
    const state = this.agents.get(name);
    if (!state || state.done) return;
    state.done = true;
    this.report();
    if ([...this.agents.values()].every((s) => s.done)) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * "1 of 2 agents done · gpt-4o-mini: 12 s", with what a running agent does and has written when it says; a lone
   * agent's is "gpt-4o-mini: 840 characters written, 12 s", then "gpt-4o-mini done".
   */
  message(): string {
    const states = [...this.agents.entries()];
    const now = this.now();
    const running = states.filter(([, s]) => !s.done).map(([name, s]) => `${name}: ${s.activity ? `${s.activity}, ` : ''}${s.written ? `${s.written} characters written, ` : ''}${Math.floor((now - s.startedAt) / 1000)} s`);
    if (states.length === 1) return running[0] ?? `${states[0]![0]} done`;
    const done = states.length - running.length;
    return [`${done} of ${states.length} agents done`, ...running].join(' · ');
  }

  /** Tells the sink, unless nothing it would show changed since the last time. */
  private report(): void {
    const message = this.message();
    if (message === this.last) return;
    this.last = message;
    this.sink.report(message);
  }
}
