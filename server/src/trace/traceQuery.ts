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
function instantOf(interaction: Interaction): number {
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

export function queryInteractions(all: Interaction[], params: TraceParams): TraceResult {
  const since = boundOf('since', params.since);
  const until = boundOf('until', params.until);
  const limit = Math.min(MAX_LIMIT, Math.max(1, countOf('limit', params.limit, DEFAULT_LIMIT)));
  const offset = countOf('offset', params.offset, 0);
  const needle = params.text?.toLowerCase();

  const matches = all.filter((interaction) => {
    if (params.id !== undefined && interaction.id !== params.id) return false;
    if (params.sessionId !== undefined && interaction.sessionId !== params.sessionId) return false;
    if (params.task !== undefined && interaction.task !== params.task) return false;
    if (params.agent !== undefined && !interaction.responses.some((response) => response.agent.name === params.agent)) {
      return false;
    }
    if (since !== undefined || until !== undefined) {
      const instant = Date.parse(interaction.timestamp);
      if (Number.isNaN(instant)) return false;
      if (since !== undefined && instant < since) return false;
      if (until !== undefined && instant >= until) return false;
    }
    if (params.used !== undefined && interaction.responses.some((response) => response.used) !== params.used) {
      return false;
    }
    if (needle !== undefined && needle !== '') {
      const found =
        interaction.text.toLowerCase().includes(needle) ||
        interaction.responses.some((response) => response.text.toLowerCase().includes(needle));
      if (!found) return false;
    }
    return true;
  });

  matches.sort(compareNewestFirst);
  const result: TraceResult = { interactions: matches.slice(offset, offset + limit), total: matches.length };
  if (offset + limit < matches.length) result.nextOffset = offset + limit;
  return result;
}
