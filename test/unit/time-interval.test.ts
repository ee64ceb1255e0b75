import { expect } from 'chai';
import { InvalidDatetimeError, isUnbounded, parseDatetime, parseTimeRestriction } from '../../src/domain/time-interval.js';

describe('datetime: instants and intervals (open ends `..` or empty)', () => {
  it('reads an interval open at both ends in every spelling as no restriction', () => {
    for (const open of ['../..', '/..', '../', '/', ' ../.. ']) {
      const t = parseDatetime(open);
      expect([t.start, t.end], open).to.deep.equal([null, null]);
      expect(isUnbounded(t), open).to.equal(true);
      expect(parseTimeRestriction(open), open).to.equal(undefined);
    }
    expect(parseTimeRestriction(undefined)).to.equal(undefined);
    expect(parseTimeRestriction('')).to.equal(undefined);
  });

  it('keeps intervals open at one end, and instants, as restrictions', () => {
    const from = Date.parse('2024-01-31T00:00:00Z');
    for (const text of ['2024-01-31T00:00:00Z/..', '2024-01-31T00:00:00Z/']) expect(parseTimeRestriction(text)).to.include({ start: from, end: null });
    for (const text of ['../2024-01-31T00:00:00Z', '/2024-01-31T00:00:00Z']) expect(parseTimeRestriction(text)).to.include({ start: null, end: from });
    expect(parseTimeRestriction('2024-01-31')).to.include({ start: from, end: from + 86_400_000 - 1 });
  });

  it('refuses an open instant, three parts and a reversed interval', () => {
    for (const bad of ['..', '2024-01-05T00:00:00Z/../..', '2024-01-05T00:00:00Z/2024-01-01T00:00:00Z', 'yesterday']) {
      expect(() => parseDatetime(bad), bad).to.throw(InvalidDatetimeError);
    }
  });
});
