/**
 * The `datetime` parameter: an RFC 3339 instant, or an interval `start/end` whose open ends are
 * `..` (or empty). Bounds are epoch milliseconds; null means open. An interval open at both ends
 * (`../..`, `/..`, `../`, `/`) is valid and restricts nothing: `parseTimeRestriction` reads it as
 * no restriction at all.
 */
export interface TimeInterval {
  start: number | null;
  end: number | null;
  /** The text as given, for links. */
  text: string;
}

export class InvalidDatetimeError extends Error {
  constructor(readonly text: string, reason: string) {
    super(`datetime "${text}": ${reason}`);
    this.name = 'InvalidDatetimeError';
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))?$/;

function parseInstant(s: string, whole: string): number {
  const m = RFC3339.exec(s);
  if (!m) throw new InvalidDatetimeError(whole, `"${s}" is not an RFC 3339 date or date-time (like 2024-05-01T12:00:00Z)`);
  const [, y, mo, d, h] = m;
  const ms = Date.parse(h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : s.replace(' ', 'T'));
  const month = Number(mo), day = Number(d);
  if (!Number.isFinite(ms) || month < 1 || month > 12 || day < 1 || day > 31 || new Date(Date.UTC(Number(y), month - 1, day)).getUTCDate() !== day) {
    throw new InvalidDatetimeError(whole, `"${s}" is not a valid calendar date-time`);
  }
  return ms;
}

export function parseDatetime(text: string): TimeInterval {
  const t = text.trim();
  const parts = t.split('/');
  if (parts.length === 1) {
    if (t === '..' || t === '') throw new InvalidDatetimeError(text, 'an instant cannot be open');
    const at = parseInstant(t, text);
    // A date alone covers its whole day.
    const end = /^\d{4}-\d{2}-\d{2}$/.test(t) ? at + 86_400_000 - 1 : at;
    return { start: at, end, text: t };
  }
  if (parts.length !== 2) throw new InvalidDatetimeError(text, 'use an instant or start/end');
  const open = (s: string) => s === '..' || s === '';
  const [a, b] = parts as [string, string];
  const start = open(a) ? null : parseInstant(a, text);
  let end = open(b) ? null : parseInstant(b, text);
  if (end !== null && /^\d{4}-\d{2}-\d{2}$/.test(b)) end += 86_400_000 - 1;
  if (start !== null && end !== null && start > end) throw new InvalidDatetimeError(text, 'start is after end');
  return { start, end, text: t };
}

export function intervalsOverlap(a: TimeInterval, start: number | null, end: number | null): boolean {
  const aStart = a.start ?? -Infinity, aEnd = a.end ?? Infinity;
  return (start ?? -Infinity) <= aEnd && (end ?? Infinity) >= aStart;
}

/** An interval open at both ends: every time (and no time) is in it. */
export function isUnbounded(t: TimeInterval): boolean {
  return t.start === null && t.end === null;
}

/**
 * `datetime` as a restriction: undefined when absent, empty or open at both ends (OGC API
 * `../..` and its spellings mean "any time", so rows without a time are kept too).
 */
export function parseTimeRestriction(text: string | undefined): TimeInterval | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const t = parseDatetime(text);
  return isUnbounded(t) ? undefined : t;
}
