/**
 * The allocation-free representative point of WKB is the decoder's to the last bit: random
 * geometries of every kind (nested collections, holes, Z/M, EWKB SRIDs, both byte orders,
 * NaN/empty coordinates, degenerate rings and lines), and random damage to their bytes.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { WkbPointReader } from '../../../src/domain/aggregation/wkb-point.js';
import { decodeWkb } from '../../../src/domain/geometry/wkb.js';
import { representativePoint } from '../../../src/domain/geometry/representative-point.js';

type Pos = number[];
type G =
  | { t: 1; p: Pos }
  | { t: 2; ps: Pos[] }
  | { t: 3; rings: Pos[][] }
  | { t: 4; parts: { t: 1; p: Pos }[] }
  | { t: 5; parts: { t: 2; ps: Pos[] }[] }
  | { t: 6; parts: { t: 3; rings: Pos[][] }[] }
  | { t: 7; parts: G[] };

interface Style {
  little: boolean;
  z: boolean;
  m: boolean;
  ewkb: boolean;
}

/** WKB of `g`, every part in `style` (ISO codes, or EWKB flags with an SRID). */
function encode(g: G, s: Style): Uint8Array {
  const out: number[] = [];
  const u32 = (v: number) => {
    const b = new DataView(new ArrayBuffer(4));
    b.setUint32(0, v >>> 0, s.little);
    out.push(...new Uint8Array(b.buffer));
  };
  const f64 = (v: number) => {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, v, s.little);
    out.push(...new Uint8Array(b.buffer));
  };
  const pos = (p: Pos) => {
    f64(p[0]!);
    f64(p[1]!);
    if (s.z) f64(p[2] ?? 1);
    if (s.m) f64(p[3] ?? 2);
  };
  const walk = (x: G) => {
    out.push(s.little ? 1 : 0);
    if (s.ewkb) {
      u32(x.t | (s.z ? 0x80000000 : 0) | (s.m ? 0x40000000 : 0) | 0x20000000);
      u32(4326);
    } else u32(x.t + (s.z && s.m ? 3000 : s.z ? 1000 : s.m ? 2000 : 0));
    if (x.t === 1) pos(x.p);
    else if (x.t === 2) (u32(x.ps.length), x.ps.forEach(pos));
    else if (x.t === 3) (u32(x.rings.length), x.rings.forEach((r) => (u32(r.length), r.forEach(pos))));
    else (u32(x.parts.length), (x.parts as G[]).forEach(walk));
  };
  walk(g);
  return new Uint8Array(out);
}

const coord = fc.oneof(
  { weight: 12, arbitrary: fc.double({ min: -180, max: 180, noNaN: true }) },
  { weight: 4, arbitrary: fc.integer({ min: -3, max: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, -0) },
);
const position = fc.tuple(coord, coord);
const point = position.map((p) => ({ t: 1 as const, p }));
const line = fc.array(position, { maxLength: 6 }).map((ps) => ({ t: 2 as const, ps }));
const ring = fc.oneof(
  fc.array(position, { maxLength: 6 }).map((ps) => (ps.length ? [...ps, ps[0]!] : ps)),
  fc.tuple(position, position, position).map(([a, b, c]) => [a, b, c, a]),
);
const polygon = fc.array(ring, { maxLength: 3 }).map((rings) => ({ t: 3 as const, rings }));
const geometry: fc.Arbitrary<G> = fc.letrec<{ g: G }>((tie) => ({
  g: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    point,
    line,
    polygon,
    fc.array(point, { maxLength: 4 }).map((parts) => ({ t: 4 as const, parts })),
    fc.array(line, { maxLength: 3 }).map((parts) => ({ t: 5 as const, parts })),
    fc.array(polygon, { maxLength: 3 }).map((parts) => ({ t: 6 as const, parts })),
    fc.array(tie('g'), { maxLength: 3 }).map((parts) => ({ t: 7 as const, parts })),
  ),
})).g;
const style = fc.record({ little: fc.boolean(), z: fc.boolean(), m: fc.boolean(), ewkb: fc.boolean() });

function decoded(bytes: Uint8Array): [number, number] | undefined {
  try {
    return representativePoint(decodeWkb(bytes));
  } catch {
    return undefined;
  }
}

/** Outcomes seen, so a generator that stopped producing some kind of case fails the test. */
const seen = new Map<string, number>();
const note = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);

function agrees(reader: WkbPointReader, bytes: Uint8Array): void {
  const want = decoded(bytes);
  note(want ? 'point' : 'none');
  const got = reader.read(bytes) ? [reader.point[0]!, reader.point[1]!] : undefined;
  if (want === undefined || got === undefined) expect(got).to.equal(want);
  else expect(Object.is(got[0], want[0]) && Object.is(got[1], want[1]), `${got} vs ${want}`).to.equal(true);
}

describe('WKB representative point without decoding', () => {
  const reader = new WkbPointReader();

  it('is the decoded geometry\'s representative point, bit for bit, for every kind of geometry', () => {
    fc.assert(
      fc.property(geometry, style, (g, s) => {
        const bytes = encode(g, s);
        const d = decoded(bytes);
        if (d) note(`type ${g.t}${Number.isFinite(d[0]) ? '' : ' (not finite)'}`);
        agrees(reader, bytes);
      }),
      { numRuns: 3000, seed: 1 },
    );
    for (const t of [1, 2, 3, 4, 5, 6, 7]) expect(seen.get(`type ${t}`) ?? 0, `geometries of type ${t} with a finite point`).to.be.above(30);
  });

  it('has no point exactly where the decoder refuses the bytes (truncated, damaged, unknown types, too deep)', () => {
    fc.assert(
      fc.property(geometry, style, fc.nat(), fc.nat(255), fc.boolean(), (g, s, at, byte, cut) => {
        const bytes = encode(g, s);
        const i = at % bytes.length;
        const damaged = cut ? bytes.slice(0, i) : bytes.map((b, k) => (k === i ? byte : b));
        agrees(reader, damaged);
      }),
      { numRuns: 3000, seed: 2 },
    );
    expect(seen.get('none'), 'refused bytes and empty geometries').to.be.above(1000);
    let deep: G = { t: 1, p: [1, 2] };
    for (let d = 0; d < 10; d++) deep = { t: 7, parts: [deep] };
    const tooDeep = encode(deep, { little: true, z: false, m: false, ewkb: false });
    expect(decoded(tooDeep)).to.equal(undefined);
    expect(reader.read(tooDeep)).to.equal(false);
  });

  it('gives the simple cases their obvious points', () => {
    const plain = { little: true, z: false, m: false, ewkb: false };
    const cases: [G, [number, number] | undefined][] = [
      [{ t: 1, p: [3, 4] }, [3, 4]],
      [{ t: 1, p: [NaN, NaN] }, undefined],
      [{ t: 2, ps: [[0, 0], [2, 0]] }, [1, 0]],
      [{ t: 3, rings: [[[0, 0], [4, 0], [4, 2], [0, 2], [0, 0]]] }, [2, 1]],
      [{ t: 4, parts: [{ t: 1, p: [0, 0] }, { t: 1, p: [2, 4] }] }, [1, 2]],
      [{ t: 2, ps: [[5, 5], [5, 5]] }, [5, 5]],
    ];
    for (const [g, want] of cases) {
      const ok = reader.read(encode(g, plain));
      expect(ok ? [...reader.point] : undefined, JSON.stringify(g)).to.deep.equal(want);
    }
  });
});
