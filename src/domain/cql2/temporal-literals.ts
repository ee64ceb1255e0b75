/**
 * Checks and normalises the date and timestamp strings both encodings carry, so that the
 * same instant written differently yields the same tree (`...:00.000000Z` and `...:00Z`).
 */

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

/** The date unchanged when valid, otherwise undefined. */
export function normalizeDate(s: string): string | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  return validDay(Number(m[1]), Number(m[2]), Number(m[3])) ? s : undefined;
}

/** The canonical timestamp when valid (fraction without trailing zeros), otherwise undefined. */
export function normalizeTimestamp(s: string): string | undefined {
  const m = TIMESTAMP_RE.exec(s);
  if (!m) return undefined;
  if (!validDay(Number(m[1]), Number(m[2]), Number(m[3]))) return undefined;
  // 60 seconds allowed for leap seconds, as RFC 3339 does.
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return undefined;
  const fraction = (m[7] ?? '').replace(/0+$/, '');
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${fraction ? '.' + fraction : ''}Z`;
}
