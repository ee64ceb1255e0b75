/**
 * Calendar periods in UTC and the alignment of a `datetime` interval to whole periods
 * (src/domain/time-periods.ts): what a pyramid's per-period cells can answer exactly.
 */
import { expect } from 'chai';
import { alignToPeriods, EARLIEST, LATEST, nextPeriodStart, periodStart, type TimePeriod } from '../../src/domain/time-periods.js';
import { parseDatetime } from '../../src/domain/time-interval.js';

const t = (iso: string) => Date.parse(iso);

describe('time periods (UTC)', () => {
  it('finds the start of the period holding an instant, and the next start (month ends, leap years)', () => {
    const at = t('2024-02-29T13:45:12.345Z');
    const want: Record<TimePeriod, [string, string]> = {
      hour: ['2024-02-29T13:00:00.000Z', '2024-02-29T14:00:00.000Z'],
      day: ['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
      month: ['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
      year: ['2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
    };
    for (const [period, [start, next]] of Object.entries(want) as [TimePeriod, [string, string]][]) {
      expect(new Date(periodStart(at, period)).toISOString(), period).to.equal(start);
      expect(new Date(nextPeriodStart(t(start), period)).toISOString(), period).to.equal(next);
      expect(periodStart(t(start), period), `${period}: a start is its own start`).to.equal(t(start));
    }
    expect(new Date(nextPeriodStart(t('2023-12-01T00:00:00Z'), 'month')).toISOString()).to.equal('2024-01-01T00:00:00.000Z');
    expect(new Date(periodStart(t('1969-12-31T23:30:00Z'), 'day')).toISOString(), 'before the epoch').to.equal('1969-12-31T00:00:00.000Z');
  });

  it('gives the period starts [from, to) of an interval of whole periods; open ends are open', () => {
    expect(alignToPeriods(parseDatetime('2024-01-03/2024-01-09'), 'day')).to.deep.equal({ from: t('2024-01-03T00:00:00Z'), to: t('2024-01-10T00:00:00Z') });
    expect(alignToPeriods(parseDatetime('2024-01-03'), 'day'), 'a date alone is its whole day').to.deep.equal({ from: t('2024-01-03T00:00:00Z'), to: t('2024-01-04T00:00:00Z') });
    expect(alignToPeriods(parseDatetime('2024-01-03'), 'hour'), 'and 24 whole hours').to.deep.equal({ from: t('2024-01-03T00:00:00Z'), to: t('2024-01-04T00:00:00Z') });
    expect(alignToPeriods(parseDatetime('2024-01-01/2024-03-31'), 'month')).to.deep.equal({ from: t('2024-01-01T00:00:00Z'), to: t('2024-04-01T00:00:00Z') });
    expect(alignToPeriods(parseDatetime('2024-01-01T00:00:00Z/..'), 'year')).to.deep.equal({ from: t('2024-01-01T00:00:00Z'), to: LATEST });
    expect(alignToPeriods(parseDatetime('../2024-05-01T09:59:59.999Z'), 'hour')).to.deep.equal({ from: EARLIEST, to: t('2024-05-01T10:00:00Z') });
  });

  it('says why an interval is not whole periods, naming the period and the nearest starts and ends', () => {
    const start = alignToPeriods(parseDatetime('2024-01-03T05:00:00Z/..'), 'day');
    expect(start).to.have.property('reason').that.contains('day').and.contains('2024-01-03T00:00:00.000Z').and.contains('2024-01-04T00:00:00.000Z');
    const end = alignToPeriods(parseDatetime('../2024-01-10T12:00:00Z'), 'day');
    expect(end).to.have.property('reason').that.contains('2024-01-10T23:59:59.999Z');
    expect(alignToPeriods(parseDatetime('2024-01-03T00:00:00Z'), 'day'), 'an instant is no whole day').to.have.property('reason');
    expect(alignToPeriods(parseDatetime('2024-01-01/2024-02-15'), 'month')).to.have.property('reason').that.contains('month');
  });
});
