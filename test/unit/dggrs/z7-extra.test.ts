/**
 * ISEA7H_Z7 and IVEA7H_Z7 against more answers of DGGAL's dgg (test/fixtures/dggal/z7-extra-vectors.json,
 * asked of a local build): zones of random points at levels 0..19 (a fifth near seams, poles and
 * icosahedron vertices) and the parents, children and neighbours of zones at those levels, beyond the
 * oracle's level 12.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { createIsea7hZ7 } from '../../../src/domain/dggrs/grids/isea-grids.js';
import { createIvea7hZ7 } from '../../../src/domain/dggrs/grids/ivea-grids.js';

interface Vectors {
  points: { grid: string; lat: number; lon: number; level: number; zone: string }[];
  info: { grid: string; zone: string; parents: string[]; children: string[]; neighbors: string[] }[];
}

const vectors = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/dggal/z7-extra-vectors.json'), 'utf8'),
) as Vectors;
const GRIDS = { IVEA7H_Z7: createIvea7hZ7(), ISEA7H_Z7: createIsea7hZ7() } as Record<string, ReturnType<typeof createIvea7hZ7>>;
const sorted = (a: string[]): string[] => [...a].sort();

describe('Z7 grids against more DGGAL answers (fixtures/dggal/z7-extra-vectors.json)', function () {
  this.timeout(60_000);

  it('zone of 600 random points at levels 0..19', () => {
    expect(vectors.points).to.have.length(600);
    const mismatches = vectors.points.filter((p) => GRIDS[p.grid]!.zoneFromPoint(p.lon, p.lat, p.level) !== p.zone);
    expect(mismatches).to.deep.equal([]);
  });

  it('parents (primary first), children (centroid child first) and neighbours of 200 zones at levels 0..19', () => {
    expect(vectors.info).to.have.length(200);
    for (const r of vectors.info) {
      const grid = GRIDS[r.grid]!;
      const what = `${r.grid} ${r.zone}`;
      const parents = grid.parents(r.zone);
      expect(sorted(parents), what).to.deep.equal(sorted(r.parents));
      if (r.parents.length) expect(parents[0], what).to.equal(r.parents[0]);
      const children = grid.children(r.zone);
      expect(sorted(children), what).to.deep.equal(sorted(r.children));
      if (r.children.length) expect(children[0], what).to.equal(r.children[0]);
      expect(sorted(grid.neighbours(r.zone)), what).to.deep.equal(sorted(r.neighbors));
    }
  });
});
