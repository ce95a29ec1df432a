// Answers `assistant/trace` queries over in-memory interactions, kept pure so it can be tested without files.
import type { Interaction, TraceParams, TraceResult } from '../protocol.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 date or date-time to epoch milliseconds. Stricter than `Date.parse`, which accepts
 * free-form dates and silently rolls `2024-02-30` over to March.
 */
export function parseIsoInstant(value: string): number | undefined {
  const match = ISO_8601.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map((part) => (part === undefined ? undefined : Number(part)));
  if (year === undefined || month === undefined || day === undefined) return undefined;
  if (month < 1 || month > 12) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return undefined;
  if (hour !== undefined && hour > 23) return undefined;
  if (minute !== undefined && minute > 59) return undefined;
  if (second !== undefined && second > 59) return undefined;
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? undefined : instant;
}

/** Timestamps that do not parse sort as the oldest, so a bad record cannot hide newer ones. */
export function instantOf(interaction: Interaction): number {
  const instant = Date.parse(interaction.timestamp);
  return Number.isNaN(instant) ? Number.NEGATIVE_INFINITY : instant;
}

/** Newest first; the id breaks ties so pages are stable across calls. */
export function compareNewestFirst(a: Interaction, b: Interaction): number {
  const byTime = instantOf(b) - instantOf(a);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export function sortNewestFirst(interactions: Interaction[]): Interaction[] {
  return [...interactions].sort(compareNewestFirst);
}

function boundOf(name: 'since' | 'until', value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const instant = typeof value === 'string' ? parseIsoInstant(value) : undefined;
  if (instant === undefined) {
    throw new TypeError(`trace query: '${name}' must be an ISO 8601 date or date-time, got ${JSON.stringify(value)}`);
  }
  return instant;
}

function countOf(name: 'limit' | 'offset', value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`trace query: '${name}' must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A query's parameters, checked and normalised once. */
export interface TraceFilter {
  id?: string;
  sessionId?: string;
  task?: string;
  agent?: string;
  /** Epoch milliseconds, inclusive. */
  since?: number;
  /** Epoch milliseconds, exclusive. */
  until?: number;
  used?: boolean;
  /** Lower-cased; absent when empty. */
  needle?: string;
  limit: number;
  offset: number;
}

/** Checks the parameters of a query; throws a TypeError naming the first malformed one. */
export function parseTraceParams(params: TraceParams): TraceFilter {
  const since = boundOf('since', params.since);
  const until = boundOf('until', params.until);
  const limit = Math.min(MAX_LIMIT, Math.max(1, countOf('limit', params.limit, DEFAULT_LIMIT)));
  const offset = countOf('offset', params.offset, 0);
  const needle = params.text?.toLowerCase();
  const filter: TraceFilter = { limit, offset };
  if (params.id !== undefined) filter.id = params.id;
  if (params.sessionId !== undefined) filter.sessionId = params.sessionId;
  if (params.task !== undefined) filter.task = params.task;
  if (params.agent !== undefined) filter.agent = params.agent;
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  if (params.used !== undefined) filter.used = params.used;
  if (needle !== undefined && needle !== '') filter.needle = needle;
  return filter;
}

/** Which of a filter's conditions an index has already applied. */
export interface AppliedConditions {
  id?: boolean;
  sessionId?: boolean;
  task?: boolean;
  agent?: boolean;
  time?: boolean;
}

/** Whether an interaction passes the filter's conditions, leaving out those already applied. */
export function matchesFilter(interaction: Interaction, filter: TraceFilter, applied: AppliedConditions = {}): boolean {
  if (!applied.id && filter.id !== undefined && interaction.id !== filter.id) return false;
  if (!applied.sessionId && filter.sessionId !== undefined && interaction.sessionId !== filter.sessionId) return false;
  if (!applied.task && filter.task !== undefined && interaction.task !== filter.task) return false;
  if (!applied.agent && filter.agent !== undefined && !interaction.responses.some((response) => response.agent.name === filter.agent)) {
    return false;
  }
  if (!applied.time && (filter.since !== undefined || filter.until !== undefined)) {
    const instant = Date.parse(interaction.timestamp);
    if (Number.isNaN(instant)) return false;
    if (filter.since !== undefined && instant < filter.since) return false;
    if (filter.until !== undefined && instant >= filter.until) return false;
  }
  if (filter.used !== undefined && interaction.responses.some((response) => response.used) !== filter.used) {
    return false;
  }
  if (filter.needle !== undefined) {
    const needle = filter.needle;
    const found =
      interaction.text.toLowerCase().includes(needle) ||
      interaction.responses.some((response) => response.text.toLowerCase().includes(needle));
    if (!found) return false;
  }
  return true;
}

/** The reference query: filters and sorts a plain list (the store answers the same from its indexes). */
export function queryInteractions(all: Interaction[], params: TraceParams): TraceResult {
  const filter = parseTraceParams(params);
  const matches = all.filter((interaction) => matchesFilter(interaction, filter));
  matches.sort(compareNewestFirst);
  const result: TraceResult = { interactions: matches.slice(filter.offset, filter.offset + filter.limit), total: matches.length };
  if (filter.offset + filter.limit < matches.length) result.nextOffset = filter.offset + filter.limit;
  return result;
}
