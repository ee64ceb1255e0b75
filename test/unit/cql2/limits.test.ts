import { expect } from 'chai';
import { Cql2SyntaxError, parseCql2Json, parseCql2Text } from '../../../src/domain/cql2/index.js';
import { CQL2_LIMITS } from '../../../src/domain/cql2/limits.js';

const D = CQL2_LIMITS.maxDepth;

function refusal(parse: () => unknown): Cql2SyntaxError {
  try {
    parse();
  } catch (e) {
    expect(e, String(e)).to.be.instanceOf(Cql2SyntaxError);
    return e as Cql2SyntaxError;
  }
  throw new Error('expected a Cql2SyntaxError');
}

const list = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('CQL2 bounds (both parsers)', () => {
  describe('nesting depth, refused without exhausting the stack', () => {
    const text: [string, (n: number) => string][] = [
      ['groups', (n) => `${'('.repeat(n)}a > 1${')'.repeat(n)}`],
      ['NOT chains', (n) => `${'NOT '.repeat(n)}a > 1`],
      ['unary minus chains', (n) => `a > ${'- '.repeat(n)}b`],
      ['power chains', (n) => `a${'^1'.repeat(n)} > 0`],
      ['left-associative sums', (n) => `a${' + 1'.repeat(n)} > 0`],
      ['CASEI chains', (n) => `${'CASEI('.repeat(n)}a${')'.repeat(n)} = 'x'`],
      ['function calls', (n) => `${'f('.repeat(n)}a${')'.repeat(n)}`],
      ['array literals', (n) => `A_CONTAINS(x, ${'('.repeat(n)}1${')'.repeat(n)})`],
    ];
    for (const [name, make] of text) {
      it(`CQL2-Text ${name}: 1000 and 10,000 deep are syntax errors naming the bound`, () => {
        for (const n of [1000, 10_000]) {
          const src = make(n);
          // Past the length bound the text is refused before the parser runs.
          const bound = src.length > CQL2_LIMITS.maxLength ? `at most ${CQL2_LIMITS.maxLength} are allowed` : `deeper than ${D} levels`;
          expect(refusal(() => parseCql2Text(src)).message).to.contain(bound);
        }
      });
    }

    it('CQL2-Text within the bound still parses', () => {
      expect(parseCql2Text(`${'('.repeat(D - 4)}a > 1${')'.repeat(D - 4)}`).kind).to.equal('comparison');
      expect(parseCql2Text(`${'NOT '.repeat(D - 4)}a > 1`).kind).to.equal('not');
    });

    it('CQL2-JSON 1000 and 100,000 deep (text and parsed value) are refused naming the bound', () => {
      for (const n of [1000, 100_000]) {
        let j: unknown = { op: '>', args: [{ property: 't' }, 1] };
        for (let i = 0; i < n; i++) j = { op: 'not', args: [j] };
        expect(refusal(() => parseCql2Json(j)).message).to.contain(`deeper than ${D} levels`);
        const text = `${'{"op":"not","args":['.repeat(n)}{"op":">","args":[{"property":"t"},1]}${']}'.repeat(n)}`;
        const bound = text.length > CQL2_LIMITS.maxLength ? `at most ${CQL2_LIMITS.maxLength} are allowed` : `deeper than ${D} levels`;
        expect(refusal(() => parseCql2Json(text)).message).to.contain(bound);
        let arr: unknown = 1;
        for (let i = 0; i < n; i++) arr = [arr];
        expect(refusal(() => parseCql2Json({ op: 'a_contains', args: [{ property: 'x' }, arr] })).message).to.contain(`deeper than ${D} levels`);
        let sum: unknown = { property: 'x' };
        for (let i = 0; i < n; i++) sum = { op: '+', args: [sum, 1] };
        expect(refusal(() => parseCql2Json({ op: '>', args: [sum, 1] })).message).to.contain(`deeper than ${D} levels`);
      }
    });

    it('CQL2-JSON within the bound still parses', () => {
      let j: unknown = { op: '>', args: [{ property: 't' }, 1] };
      for (let i = 0; i < D - 2; i++) j = { op: 'not', args: [j] };
      expect(parseCql2Json(j).kind).to.equal('not');
    });
  });

  it('refuses text longer than the length bound before parsing, in both encodings', () => {
    const long = `${'a = 1 OR '.repeat(CQL2_LIMITS.maxLength / 8)}a = 1`;
    expect(refusal(() => parseCql2Text(long)).message).to.contain(`at most ${CQL2_LIMITS.maxLength}`);
    const json = JSON.stringify({ op: 'in', args: [{ property: 'x' }, list(20_000).map((i) => `value-${i}`)] });
    expect(refusal(() => parseCql2Json(json)).message).to.contain(`at most ${CQL2_LIMITS.maxLength}`);
  });

  it('refuses IN lists and arrays longer than the list bound, and accepts one at the bound', () => {
    const n = CQL2_LIMITS.maxListItems;
    expect(refusal(() => parseCql2Text(`a IN (${list(n + 1).join(',')})`)).message).to.contain(`more than ${n} values`);
    expect(parseCql2Text(`a IN (${list(n).join(',')})`).kind).to.equal('in');
    expect(refusal(() => parseCql2Json({ op: 'in', args: [{ property: 'a' }, list(100_000)] })).message).to.contain(`more than ${n} values`);
    expect(refusal(() => parseCql2Json({ op: 'a_contains', args: [{ property: 'a' }, list(n + 1)] })).message).to.contain(`more than ${n} values`);
    expect(refusal(() => parseCql2Text(`A_CONTAINS(a, (${list(n + 1).join(',')}))`)).message).to.contain(`more than ${n} values`);
  });

  it('refuses trees with too many terms and geometries with too many positions', () => {
    const ors = Array.from({ length: CQL2_LIMITS.maxNodes / 3 + 1 }, (_, i) => ({ op: '=', args: [{ property: 'a' }, i] }));
    expect(refusal(() => parseCql2Json({ op: 'or', args: ors })).message).to.contain(`more than ${CQL2_LIMITS.maxNodes} terms`);
    const ring = [...list(CQL2_LIMITS.maxVertices).map((i) => [i / 100, 0]), [0, 1], [0, 0]];
    expect(refusal(() => parseCql2Json({ op: 's_intersects', args: [{ property: 'g' }, { type: 'Polygon', coordinates: [ring] }] })).message).to.contain(
      `more than ${CQL2_LIMITS.maxVertices} positions`,
    );
  });

  describe('LIKE patterns: length and % wildcards bounded, no lone trailing escape', () => {
    const L = CQL2_LIMITS.maxLikePattern;
    const W = CQL2_LIMITS.maxLikeWildcards;

    it('refuses a pattern longer than the bound in either encoding, also inside CASEI/ACCENTI, and accepts one at the bound', () => {
      const long = 'x'.repeat(L + 1);
      expect(refusal(() => parseCql2Text(`name LIKE '${long}'`)).message).to.contain(`at most ${L} are allowed (the bound)`);
      expect(refusal(() => parseCql2Text(`CASEI(name) LIKE ACCENTI(CASEI('${long}'))`)).message).to.contain(`at most ${L} are allowed (the bound)`);
      expect(refusal(() => parseCql2Json({ op: 'like', args: [{ property: 'name' }, long] })).message).to.contain(`at most ${L} are allowed (the bound)`);
      expect(parseCql2Text(`name LIKE '${'x'.repeat(L)}'`).kind).to.equal('like');
    });

    it(`refuses more than ${W} % wildcards (escaped ones are text), and accepts ${W}`, () => {
      const many = `${'%a'.repeat(W)}%b`;
      expect(refusal(() => parseCql2Text(`name LIKE '${many}'`)).message).to.contain(`${W + 1} % wildcards; at most ${W} are allowed (the bound)`);
      expect(refusal(() => parseCql2Json({ op: 'not', args: [{ op: 'like', args: [{ property: 'name' }, { op: 'casei', args: [many] }] }] })).message).to.contain(`at most ${W} are allowed`);
      expect(parseCql2Text(`name LIKE '${'%a'.repeat(W - 1)}%b'`).kind).to.equal('like');
      expect(parseCql2Text(`name LIKE '${'\\%a'.repeat(W + 5)}%'`).kind).to.equal('like');
    });

    it("refuses the pathological backtracking pattern only when it passes a bound: 12 wildcards are fine", () => {
      expect(parseCql2Text(`'${'a'.repeat(34)}' LIKE '${'%a'.repeat(11)}%b'`).kind).to.equal('like');
    });

    it('refuses a pattern ending in a lone escape (only CQL2-JSON can write one), and accepts an escaped backslash', () => {
      expect(refusal(() => parseCql2Json({ op: 'like', args: [{ property: 'name' }, 'ab\\'] })).message).to.contain('must not end with the escape character');
      expect(parseCql2Json({ op: 'like', args: [{ property: 'name' }, 'ab\\\\'] }).kind).to.equal('like');
    });
  });

  describe('spatial literals: finite CRS84 coordinates, in both encodings', () => {
    const rule = '-180 <= longitude <= 180 and -90 <= latitude <= 90';
    const refused: [string, string][] = [
      ['S_INTERSECTS(geometry, BBOX(0, 0, 1e19, 1e19))', 'longitude of the box'],
      ['S_INTERSECTS(geometry, BBOX(-181, 0, 10, 10))', 'longitude of the box'],
      ['S_INTERSECTS(geometry, BBOX(0, -91, 10, 10))', 'latitude of the box'],
      ['S_INTERSECTS(geometry, BBOX(0, 10, 10, 5))', 'south edge north of its north edge'],
      ['S_INTERSECTS(geometry, BBOX(0, 0, 0, 1e400, 10, 10))', 'not finite'],
      ['S_INTERSECTS(geometry, POINT(1e19 0))', 'longitude 10000000000000000000 is outside'],
      ['S_INTERSECTS(geometry, POINT(0 -90.5))', 'latitude -90.5 is outside'],
      ['S_INTERSECTS(geometry, POINT Z (0 0 1e400))', 'not a finite number'],
      ['S_WITHIN(geometry, POLYGON((0 0, 1e400 0, 1 1, 0 0)))', 'not a finite number'],
      ['S_INTERSECTS(geometry, GEOMETRYCOLLECTION(POINT(0 0), LINESTRING(0 0, 200 0)))', 'longitude 200 is outside'],
      ['S_INTERSECTS(POINT(0 0), MULTIPOINT((1 1), (2 95)))', 'latitude 95 is outside'],
    ];
    for (const [text, problem] of refused) {
      it(`refuses ${text}, naming the rule`, () => {
        const message = refusal(() => parseCql2Text(text)).message;
        expect(message).to.contain(problem);
        expect(message).to.contain(rule);
      });
    }

    it('refuses the same in CQL2-JSON (bbox, coordinates)', () => {
      expect(refusal(() => parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, { bbox: [0, 0, 1e19, 1e19] }] })).message).to.contain(rule);
      expect(refusal(() => parseCql2Json({ op: 's_intersects', args: [{ property: 'geometry' }, { type: 'Point', coordinates: [0, 1e19] }] })).message).to.contain(rule);
    });

    it('accepts the edges of the Earth, heights of any size, and a box across the antimeridian (west > east)', () => {
      for (const text of [
        'S_INTERSECTS(geometry, BBOX(-180, -90, 180, 90))',
        'S_INTERSECTS(geometry, BBOX(170, -10, -170, 10))',
        'S_INTERSECTS(geometry, BBOX(0, 0, -1e6, 10, 10, 1e9))',
        'S_INTERSECTS(geometry, POINT Z (180 -90 -11000))',
      ]) {
        expect(parseCql2Text(text).kind, text).to.equal('spatial');
      }
    });

    it('bounds no other number: a comparison with 1e19 parses', () => {
      expect(parseCql2Text('temperature > 1e19').kind).to.equal('comparison');
    });
  });
});
