import { expect } from 'chai';
import { parseCql2Json, parseCql2Text, properties } from '../../../src/domain/cql2/index.js';
import { examplePairs } from './examples.js';

const { pairs, alternatives } = examplePairs();

describe('CQL2 parsers on the OGC examples', () => {
  it('finds all 109 pairs and 11 alternative spellings', () => {
    expect(pairs).to.have.length(109);
    expect(alternatives).to.have.length(11);
  });

  for (const { name, text, json } of pairs) {
    it(`${name}: text and JSON parse to the same tree`, () => {
      expect(parseCql2Text(text)).to.deep.equal(parseCql2Json(json));
    });
  }

  for (const { name, text, json } of alternatives) {
    it(`${name}: alternative spelling parses to its partner's tree`, () => {
      expect(parseCql2Text(text)).to.deep.equal(parseCql2Json(json));
    });
  }
});

describe('CQL2-Text details', () => {
  it('reads keywords case-insensitively and quoted identifiers verbatim', () => {
    expect(parseCql2Text(`"AND" = 1 and NOT "x y" is null`)).to.deep.equal({
      kind: 'and',
      args: [
        { kind: 'comparison', op: '=', left: { kind: 'property', name: 'AND' }, right: { kind: 'number', value: 1 } },
        { kind: 'not', arg: { kind: 'isNull', value: { kind: 'property', name: 'x y' } } },
      ],
    });
  });

  it("unescapes '' and \\' in strings and keeps other backslashes", () => {
    const e = parseCql2Text(`a = 'it''s' OR a = 'it\\'s' OR a LIKE '100\\%'`);
    expect(e).to.deep.equal({
      kind: 'or',
      args: [
        { kind: 'comparison', op: '=', left: { kind: 'property', name: 'a' }, right: { kind: 'string', value: "it's" } },
        { kind: 'comparison', op: '=', left: { kind: 'property', name: 'a' }, right: { kind: 'string', value: "it's" } },
        { kind: 'like', value: { kind: 'property', name: 'a' }, pattern: { kind: 'string', value: '100\\%' } },
      ],
    });
  });

  it('reads WKT with Z, MULTIPOINT without inner parentheses, and an antimeridian BBOX', () => {
    expect(parseCql2Text('S_INTERSECTS(g, MULTIPOINT Z (1 2 3, 4 5 6))')).to.deep.equal({
      kind: 'spatial',
      op: 's_intersects',
      left: { kind: 'property', name: 'g' },
      right: { kind: 'geometry', geometry: { type: 'MultiPoint', coordinates: [[1, 2, 3], [4, 5, 6]] } },
    });
    expect(parseCql2Text('S_WITHIN(g, BBOX(170, -10, -170, 10))')).to.deep.include({ right: { kind: 'bbox', bbox: [170, -10, -170, 10] } });
  });

  it('gives arithmetic the usual precedence and reads numbers in all BNF forms', () => {
    const e = parseCql2Text('a = 1 + 2 * 3 ^ 2 - .5e1 div 2');
    expect(e).to.deep.equal(
      parseCql2Json({
        op: '=',
        args: [
          { property: 'a' },
          { op: '-', args: [{ op: '+', args: [1, { op: '*', args: [2, { op: '^', args: [3, 2] }] }] }, { op: 'div', args: [5, 2] }] },
        ],
      }),
    );
  });

  it('lists referenced properties once each', () => {
    const e = parseCql2Text(`a = 1 AND (b LIKE 'x' OR a > c) AND T_DURING(INTERVAL(s, e), INTERVAL('..', '2020-01-01'))`);
    expect(properties(e)).to.deep.equal(['a', 'b', 'c', 's', 'e']);
  });
});
