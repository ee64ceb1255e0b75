import { expect } from 'chai';
import { Cql2SyntaxError, parseCql2Json, parseCql2Text } from '../../../src/domain/cql2/index.js';

/** [filter, expected position, a fragment of the message] */
const INVALID_TEXT: [string, number, string][] = [
  ['', 0, 'expected an expression'],
  ['   ', 3, 'end of input'],
  ['floors >', 8, 'expected an expression'],
  ['floors > 5 AND', 14, 'end of input'],
  ['(floors > 5', 11, "expected ')'"],
  ['floors > 5)', 10, 'expected end of input'],
  ["name = 'abc", 7, 'unterminated string'],
  ['"name = \'x\'', 0, 'unterminated quoted identifier'],
  ['floors >> 5', 8, 'expected an expression'],
  ['floors ! 5', 7, "unexpected character '!'"],
  ['name LIKE 5', 10, 'expected a pattern'],
  ['floors BETWEEN 1 5', 17, 'expected AND'],
  ['floors IN ()', 11, 'expected an expression'],
  ['floors IN (1, 2', 15, "expected ')'"],
  ['floors IS NUL', 10, 'expected NULL'],
  ['S_INTERSECTS(geom POINT(1 2))', 18, "expected ','"],
  ['S_INTERSECTS(geom, POINT(1))', 26, 'expected a number'],
  ['S_INTERSECTS(geom, POLYGON((0 0, 1 0, 1 1)))', 27, 'at least 4 points'],
  ['S_INTERSECTS(geom, POLYGON((0 0, 1 0, 1 1, 0 2)))', 27, 'must end where it starts'],
  ['S_INTERSECTS(geom, BBOX(1, 2, 3))', 19, 'BBOX needs 4 or 6 numbers'],
  ['S_INTERSECTS(geom, POINT Z (1 2))', 28, '3 coordinates'],
  ['S_INTERSECTS(geom, 5)', 19, 'expected a geometry'],
  ["T_AFTER(t, DATE('2020-13-01'))", 16, 'invalid date'],
  ["T_AFTER(t, TIMESTAMP('2020-01-01 10:00:00'))", 21, 'invalid timestamp'],
  ["T_AFTER(t, INTERVAL('2020-01-01', 'soon'))", 34, 'invalid interval bound'],
  ['T_AFTER(t, 5)', 11, 'expected a temporal expression'],
  ["A_CONTAINS(tags, 'a')", 17, 'expected an array'],
  ['floors', 0, 'expected a predicate'],
  ['  5', 2, 'expected a predicate'],
  ["'abc'", 0, 'expected a predicate'],
  ['floors > 5 OR 3', 14, 'expected a predicate'],
  ['NOT floors', 4, 'expected a predicate'],
  ["floors + 'a' > 1", 9, "numeric operand for '+'"],
  ['floors > 5; DROP TABLE x', 10, "unexpected character ';'"],
  ["name = 'a' /* c */", 12, 'expected an expression'],
  ['AND = 1', 0, "unexpected keyword 'AND'"],
  ['1e > 2', 1, 'malformed exponent'],
  ['floors > 5 floors < 3', 11, 'expected end of input'],
  ['date > 1', 0, "unexpected keyword 'date'"],
  ["CASEI(5) = 'a'", 6, 'character expression'],
  ['GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 2), POINT(1 2)))', 19, 'nested'],
  ['name = "unterminated', 7, 'unterminated quoted identifier'],
  ['5abc = 1', 1, 'after number'],
  ["x = 'a' AND (y = 1 OR)", 21, 'expected an expression'],
  ['x = 1 AND\n  y ==  2', 15, 'expected an expression'],
];

/** [filter, expected path, a fragment of the message] */
const INVALID_JSON: [unknown, string | number, string][] = [
  ['{"op":"=","args":[', 18, 'malformed JSON'],
  ['{"op" "="}', 6, 'malformed JSON'],
  [{}, '', 'expected an operation'],
  [[], '', 'expected a predicate'],
  [5, '', 'expected a predicate'],
  [{ property: 'a' }, '', 'expected a predicate'],
  [{ op: '=', args: [{ property: 'a' }] }, '/args', 'takes 2 arguments'],
  [{ op: '=', args: { property: 'a' } }, '/args', 'to be an array'],
  [{ op: 'AND', args: [true, true] }, '/op', 'did you mean "and"'],
  [{ op: 5, args: [] }, '/op', 'non-empty string'],
  [{ op: 'and', args: [true] }, '/args', 'at least 2'],
  [{ op: 'and', args: [true, 5] }, '/args/1', 'expected a predicate'],
  [{ op: 'not', args: [{ property: 'a' }] }, '/args/0', 'expected a predicate'],
  [{ op: 'like', args: [{ property: 'a' }, 5] }, '/args/1', 'expected a pattern'],
  [{ op: 'in', args: [{ property: 'a' }, 5] }, '/args/1', 'array of values'],
  [{ op: 'in', args: [{ property: 'a' }, []] }, '/args/1', 'at least one value'],
  [{ op: 'between', args: [{ property: 'a' }, 1] }, '/args', 'takes 3 arguments'],
  [{ op: '+', args: [{ property: 'a' }, 'x'] }, '/args/1', 'numeric expression'],
  [{ op: 'a_contains', args: [{ property: 'a' }, 'x'] }, '/args/1', 'expected an array'],
  [{ op: 's_intersects', args: [{ property: 'g' }, { type: 'Point', coordinates: [1] }] }, '/args/1/coordinates', 'position'],
  [
    { op: 's_intersects', args: [{ property: 'g' }, { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0.5]]] }] },
    '/args/1/coordinates/0',
    'must end where it starts',
  ],
  [{ op: 's_intersects', args: [{ property: 'g' }, { type: 'Circle', coordinates: [1, 2] }] }, '/args/1/type', 'unknown geometry type'],
  [{ op: 's_intersects', args: [{ property: 'g' }, { bbox: [1, 2, 3] }] }, '/args/1/bbox', '4 or 6 numbers'],
  [{ op: 's_intersects', args: [{ property: 'g' }, 'POINT(1 2)'] }, '/args/1', 'expected a geometry'],
  [{ op: 't_after', args: [{ property: 't' }, { date: '2020-02-30' }] }, '/args/1/date', 'expected a date'],
  [{ op: 't_after', args: [{ property: 't' }, { timestamp: '2020-02-01T00:00:00' }] }, '/args/1/timestamp', 'expected a timestamp'],
  [{ op: 't_after', args: [{ property: 't' }, { interval: ['2020-01-01'] }] }, '/args/1/interval', 'two bounds'],
  [{ op: 't_after', args: [{ property: 't' }, { interval: ['2020-01-01', 'later'] }] }, '/args/1/interval/1', 'invalid interval bound'],
  [{ op: '=', args: [{ property: '' }, 1] }, '/args/0/property', 'non-empty property name'],
  [{ op: '=', args: [{ property: 5 }, 1] }, '/args/0/property', 'non-empty property name'],
  [{ op: '=', args: [{ property: 'a' }, null] }, '/args/1', 'null is not'],
  [{ op: '=', args: [{ property: 'a' }, { foo: 1 }] }, '/args/1', 'expected an operation'],
  [{ op: 'or', args: [{ op: '=', args: [{ property: 'a' }, 1] }, { op: 'like', args: [{ property: 'b' }, { op: 'casei', args: [3] }] }] }, '/args/1/args/1/args/0', 'character expression'],
];

describe('CQL2 parsers reject invalid filters', () => {
  it('has a corpus of at least 30 invalid filters in each encoding', () => {
    expect(INVALID_TEXT.length).to.be.at.least(30);
    expect(INVALID_JSON.length).to.be.at.least(30);
  });

  for (const [text, position, fragment] of INVALID_TEXT) {
    it(`text ${JSON.stringify(text)} fails at ${position}`, () => {
      const err = catchError(() => parseCql2Text(text));
      expect(err).to.be.instanceOf(Cql2SyntaxError);
      expect((err as Cql2SyntaxError).position).to.equal(position);
      expect((err as Cql2SyntaxError).message).to.contain(fragment);
      expect((err as Cql2SyntaxError).message).to.contain(`at position ${position}`);
    });
  }

  for (const [json, position, fragment] of INVALID_JSON) {
    it(`JSON ${JSON.stringify(json)} fails at ${JSON.stringify(position)}`, () => {
      const err = catchError(() => parseCql2Json(json));
      expect(err).to.be.instanceOf(Cql2SyntaxError);
      expect((err as Cql2SyntaxError).position).to.equal(position);
      expect((err as Cql2SyntaxError).message).to.contain(fragment);
    });
  }
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}
