/**
 * Calendar periods in UTC (hours, days, months, years) and the alignment of a `datetime` interval
 * to whole periods: aggregates kept per period (a zone pyramid's cells) answer exactly an interval
 * made of whole periods, and nothing finer.
 */
import type { TimeInterval } from './time-interval.js';

export type TimePeriod = 'hour' | 'day' | 'month' | 'year';

/** Earliest and latest instants a JavaScript Date holds (epoch ms): the bounds of an open end. */
export const EARLIEST = -8.64e15;
export const LATEST = 8.64e15;

/** Start (epoch ms) of the period holding instant `t`. */
export function periodStart(t: number, period: TimePeriod): number {
  const d = new Date(t);
  switch (period) {
    case 'hour':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
    case 'day':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'year':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

/** Start of the period after the one starting at `start`. */
export function nextPeriodStart(start: number, period: TimePeriod): number {
  const d = new Date(start);
  switch (period) {
    case 'hour':
      return start + 3_600_000;
    case 'day':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  }
}

/** The periods an interval covers, as starts in [from, to); or why it is not whole periods. */
export type PeriodAlignment = { from: number; to: number } | { reason: string };

const iso = (t: number) => new Date(t).toISOString();

/**
 * `interval` as whole periods: its start at a period's start (or open), its end at a period's
 * last millisecond (or open). A date alone (`2024-05-01`) runs to its day's last millisecond, so
 * it is a whole day, and a whole hour too. Gives the period starts the interval holds, [from, to);
 * otherwise the reason, naming the nearest whole periods.
 */
export function alignToPeriods(interval: TimeInterval, period: TimePeriod): PeriodAlignment {
  const { start, end } = interval;
  if (start !== null && periodStart(start, period) !== start) {
    const before = periodStart(start, period);
    return { reason: `datetime "${interval.text}" starts at ${iso(start)}, inside the ${period} starting ${iso(before)}: start at a ${period}'s start (${iso(before)} or ${iso(nextPeriodStart(before, period))}) or leave it open (..)` };
  }
  if (end !== null) {
    const last = nextPeriodStart(periodStart(end, period), period) - 1;
    if (end !== last) {
      return { reason: `datetime "${interval.text}" ends at ${iso(end)}, inside the ${period} ending ${iso(last)}: end at a ${period}'s last millisecond (like ${iso(last)}; a date alone ends at its day's last millisecond) or leave it open (..)` };
    }
  }
  return { from: start ?? EARLIEST, to: end === null ? LATEST : end + 1 };
}
