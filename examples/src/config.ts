// Reading and validating the settings of a small HTTP client.
import { readFile } from 'node:fs/promises';

export interface Config {
  host: string;
  port: number;
  timeoutMs: number;
  retries: number;
}

export function parseConfig(text: string, defaults: Partial<Config> = {}): Config {
  const raw = JSON.parse(text) as Partial<Config>;
  const timeoutMs = raw.timeoutMs ?? defaults.timeoutMs ?? 5000;
  if (timeoutMs < 0) {
    throw new RangeError(`timeoutMs must not be negative, got ${timeoutMs}`);
  }
  const port = raw.port ?? defaults.port ?? 80;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new RangeError(`port out of range: ${port}`);
  }
  return { host: raw.host ?? defaults.host ?? 'localhost', port, timeoutMs, retries: raw.retries ?? defaults.retries ?? 3 };
}

export class ConfigStore {
  private cached: Config | undefined;

  constructor(private readonly path: string) {}

  async load(): Promise<Config> {
    if (this.cached) return this.cached;
    const text = await readFile(this.path, 'utf8');
    this.cached = parseConfig(text);
    return this.cached;
  }

  clear(): void {
    this.cached = undefined;
  }
}

export const mergeConfigs = ({ base, override }: { base: Config; override: Partial<Config> }): Config => ({ ...base, ...override });
