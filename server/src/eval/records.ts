// Per-case records of an evaluation and the store that makes runs resumable: one JSON line per finished case, appended as it finishes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The build of the server that runs, as the size and time of the code file given (by default the one this code was
 * loaded from): part of every record's key, so a rebuilt server never reports an earlier build's answers as its own.
 */
export function serverBuild(file = fileURLToPath(import.meta.url)): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${Math.round(stat.mtimeMs)}`;
  } catch {
    return 'unknown';
  }
}

/** One case run by one agent (one sample), scored. Every field is present; unknown values are null. */
export interface EvalRecord {
  /** Identifies the case, the agent's configuration, the sample and the run's settings: equal keys are the same work. */
  key: string;
  scenario: string;
  caseId: string;
  file: string;
  line: number;
  target: string;
  agent: string;
  model: string | null;
  isLLM: boolean;
  /** 0-based; offline agents are deterministic and run once per case. */
  sample: number;
  /** `passed` when every metric is 1, `failed` otherwise, `error` when the run or the agent failed (an exception, a timeout, an agent error). */
  status: 'passed' | 'failed' | 'error';
  /** One value per metric of the scenario, 0 or 1; null for a metric over proposals (syntax) when there was none. */
  metrics: Record<string, number | null>;
  /** Whether the agent proposed an edit at all (accepted by the product's oracle or not). */
  proposed: boolean;
  /** Why a metric is 0 (the first reason), or null. */
  failure: string | null;
  /** Characters of the prompts sent (model agents), summed over attempts. */
  promptChars: number | null;
  /** Characters of the code the agent was asked about. */
  contextChars: number;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Wall time of the run (agents, conversion, the product's oracle). */
  durationMs: number;
  /** Time inside the agent. */
  agentMs: number;
  /** Times the agent was asked (the product retries a model whose proposal its oracle rejects). */
  attempts: number;
  /** Whether the product's own oracle accepted the proposal (null when it had none to judge). */
  oraclePassed: boolean | null;
  /** The agent's answer as converted by the task (a doc comment, a fix description), clipped. */
  answer: string | null;
  details: Record<string, unknown>;
  interactionId: string;
  finishedAt: string;
}

/** Longest answer text kept in a record. */
export const MAX_ANSWER_CHARS = 4000;

/**
 * Records as JSON lines in `<name>.records.jsonl` next to the `--json` file. Lines written by earlier runs are read
 * back so their keys are skipped; a torn last line (an interrupted write) is ignored.
 */
export class RecordStore {
  private readonly byKey = new Map<string, EvalRecord>();

  private constructor(readonly file: string | undefined) {}

  static open(file: string | undefined): RecordStore {
    const store = new RecordStore(file);
    if (!file || !fs.existsSync(file)) return store;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const record = JSON.parse(line) as EvalRecord;
        if (typeof record.key === 'string' && record.metrics) store.byKey.set(record.key, record);
      } catch {
        // An interrupted write leaves half a line: that case simply runs again.
      }
    }
    return store;
  }

  /** The records file of a `--json` output path: `results.json` → `results.records.jsonl`. */
  static fileFor(jsonPath: string): string {
    const parsed = path.parse(jsonPath);
    const base = parsed.ext.toLowerCase() === '.json' ? parsed.name : parsed.base;
    return path.join(parsed.dir, `${base}.records.jsonl`);
  }

  get(key: string): EvalRecord | undefined {
    return this.byKey.get(key);
  }

  /** Keeps the record and appends it to the file at once (a line per record, so a crash loses at most the one being written). */
  add(record: EvalRecord): void {
    this.byKey.set(record.key, record);
    if (this.file) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.appendFileSync(this.file, `${JSON.stringify(record)}\n`);
    }
  }
}

/** Writes a file whole or not at all: a temporary file renamed over the target. */
export function writeFileAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
