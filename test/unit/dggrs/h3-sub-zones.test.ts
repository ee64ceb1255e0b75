import { expect } from 'chai';
import * as h3 from 'h3-js';
import { H3Dggrs } from '../../../src/adapters/grids/h3-dggrs.js';
import { mulberry32 } from '../../../scripts/lib/prng.js';

/**
 * H3 sub-zones are the geometric ones OGC API - DGGS means: the cells of the target resolution whose
 * centres lie in the parent's polygon. Checked against an independent spherical test (winding of the
 * parent's great-circle edges around each centre) over every cell of the target resolution near the
 * parent (a gridDisk at that resolution, not h3's hierarchy). Centres on the parent's edge (ties, many
 * from depth 2 on) may go either way, but to exactly one of the cells that share the edge.
 */

const DEG = Math.PI / 180;
type V = [number, number, number];
const vec = (lat: number, lon: number): V => [Math.cos(lat * DEG) * Math.cos(lon * DEG), Math.cos(lat * DEG) * Math.sin(lon * DEG), Math.sin(lat * DEG)];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: V) => Math.hypot(a[0], a[1], a[2]);
const angle = (a: V, b: V) => Math.atan2(norm(cross(a, b)), dot(a, b));

/** The parent's polygon on the sphere: corners in h3's (counter-clockwise) order, great-circle edges. */
function polygon(cell: string): V[] {
  return h3.cellToBoundary(cell).map(([lat, lon]) => vec(lat, lon));
}

/** Total turning of the directions from p to the corners: 2 pi inside, 0 outside. */
function winding(p: V, corners: V[]): number {
  let sum = 0;
  for (let i = 0; i < corners.length; i++) {
    const a = cross(p, corners[i]!), b = cross(p, corners[(i + 1) % corners.length]!);
    sum += Math.atan2(dot(p, cross(a, b)), dot(a, b));
  }
  return sum;
}

/** Angular distance from p to the polygon's edges (great-circle arcs). */
function edgeDistance(p: V, corners: V[]): number {
  let best = Infinity;
  for (let i = 0; i < corners.length; i++) {
    const a = corners[i]!, b = corners[(i + 1) % corners.length]!;
    const n = cross(a, b);
    const nl = norm(n);
    const foot: V = [p[0] - (n[0] * dot(p, n)) / nl ** 2, p[1] - (n[1] * dot(p, n)) / nl ** 2, p[2] - (n[2] * dot(p, n)) / nl ** 2];
    // The foot of the perpendicular lies on the arc when it is on the inner side of both ends.
    const onArc = dot(cross(a, foot), n) >= 0 && dot(cross(foot, b), n) >= 0;
    best = Math.min(best, onArc ? Math.asin(Math.min(1, Math.abs(dot(p, n)) / nl)) : Math.min(angle(p, a), angle(p, b)));
  }
  return best;
}

const centre = (cell: string): V => {
  const [lat, lon] = h3.cellToLatLng(cell);
  return vec(lat, lon);
};

/** Every cell of `res` whose centre lies within `radius` of `p`, from a disk at that resolution grown until a whole ring lies beyond. */
function cellsNear(p: V, radius: number, res: number): string[] {
  const [lat, lon] = [Math.asin(p[2]) / DEG, Math.atan2(p[1], p[0]) / DEG];
  const start = h3.latLngToCell(lat, lon, res);
  for (let k = 2; ; k += Math.max(2, k >> 1)) {
    const disk = h3.gridDisk(start, k);
    const inner = new Set(h3.gridDisk(start, k - 1));
    if (disk.filter((c) => !inner.has(c)).every((c) => angle(p, centre(c)) > radius)) return disk.filter((c) => angle(p, centre(c)) <= radius);
  }
}

/** Ties: centres closer to an edge than this (radians, about 6 mm) count as on it. */
const TIE = 1e-9;

function parents(): string[] {
  const rand = mulberry32(15);
  const out: string[] = [];
  for (let i = 0; i < 36; i++) out.push(h3.latLngToCell(Math.asin(2 * rand() - 1) / DEG, rand() * 360 - 180, i % 5));
  for (const res of [0, 1, 2, 3]) out.push(...h3.getPentagons(res).filter((_, i) => i % 4 === res % 4));
  // Across the antimeridian and at the poles.
  for (const [lat, res] of [[0, 1], [-16, 3], [52, 2], [-70, 4], [89, 3]] as const) out.push(h3.latLngToCell(lat, 179.99, res), h3.latLngToCell(lat, -179.99, res));
  out.push(h3.latLngToCell(90, 0, 2), h3.latLngToCell(-90, 0, 3), h3.latLngToCell(90, 0, 0));
  return [...new Set(out)];
}

describe('H3 sub-zones: the cells whose centres lie in the parent', function () {
  this.timeout(600_000);
  const grid = new H3Dggrs();

  it('the test parents include pentagons, cells across the antimeridian and polar cells', () => {
    const ps = parents();
    expect(ps.filter((p) => h3.isPentagon(p)).length).to.be.at.least(8);
    const crossing = ps.filter((p) => {
      const lons = h3.cellToBoundary(p).map(([, lon]) => lon);
      return Math.max(...lons) - Math.min(...lons) > 180;
    });
    expect(crossing.length).to.be.at.least(6);
    expect(ps.filter((p) => Math.max(...h3.cellToBoundary(p).map(([lat]) => Math.abs(lat))) > 85).length).to.be.at.least(3);
  });

  for (const depth of [1, 2, 3]) {
    it(`depth ${depth}: every listed centre is in the parent, every centre in it is listed, edge ties go to one cell`, () => {
      let ties = 0, strayChildren = 0, differing = 0;
      const ps = depth === 3 ? parents().filter((_, i) => i % 2 === 0) : parents();
      for (const parent of ps) {
        const res = h3.getResolution(parent) + depth;
        const corners = polygon(parent);
        const c = centre(parent);
        const radius = Math.max(...corners.map((v) => angle(c, v)));
        const listed = grid.subZones(parent, depth);
        expect(listed, parent).to.have.length(grid.subZoneCount(parent, depth));
        const listedSet = new Set(listed);
        expect(listedSet.size, `${parent}: no repeats`).to.equal(listed.length);
        const near = cellsNear(c, radius * 1.001, res);
        const nearSet = new Set(near);
        for (const z of listed) expect(nearSet.has(z), `${parent} d${depth}: ${z} is listed but its centre is far from the parent`).to.equal(true);
        for (const z of near) {
          const p = centre(z);
          if (edgeDistance(p, corners) < TIE) {
            ties++;
            // A tie belongs to exactly one of the cells sharing the edge.
            const owners = h3.gridDisk(parent, 1).filter((q) => grid.subZones(q, depth).includes(z));
            expect(owners, `${z} on the edge of ${parent}`).to.have.length(1);
            expect(listedSet.has(z)).to.equal(owners[0] === parent);
            continue;
          }
          const inside = Math.abs(winding(p, corners)) > Math.PI;
          expect(listedSet.has(z), `${parent} d${depth}: ${z} centre ${inside ? 'inside' : 'outside'}`).to.equal(inside);
        }
        // h3's own descendants are not the sub-zones: from depth 3 some have their centres outside the parent.
        const descendants = h3.cellToChildren(parent, res);
        for (const k of descendants) if (Math.abs(winding(centre(k), corners)) < Math.PI && edgeDistance(centre(k), corners) > TIE) strayChildren++;
        if (descendants.length !== listed.length || descendants.some((k) => !listedSet.has(k))) differing++;
      }
      if (depth === 1) {
        expect(differing, 'at depth 1 the children are the sub-zones').to.equal(0);
        expect(ties).to.equal(0);
      } else {
        // Depth 2: h3's grandchildren keep every centre on their side of the edge, the sub-zones share the ties out.
        expect(ties, `centres on a parent's edge at depth ${depth}`).to.be.greaterThan(0);
        expect(differing, `parents whose cellToChildren differ from their sub-zones at depth ${depth}`).to.be.greaterThan(ps.length / 2);
        if (depth === 3) expect(strayChildren, 'cellToChildren cells with their centre outside the parent at depth 3').to.be.greaterThan(0);
      }
    });
  }

  it('depth 4 for hexagons and pentagons, the same rule', () => {
    for (const parent of [h3.latLngToCell(46.5, 8.5, 3), h3.getPentagons(2)[5]!, h3.latLngToCell(-16, 179.99, 4)]) {
      const corners = polygon(parent);
      const c = centre(parent);
      const radius = Math.max(...corners.map((v) => angle(c, v)));
      const listed = new Set(grid.subZones(parent, 4));
      const near = cellsNear(c, radius * 1.001, h3.getResolution(parent) + 4);
      let inside = 0;
      for (const z of near) {
        const p = centre(z);
        if (edgeDistance(p, corners) < TIE) continue;
        const isIn = Math.abs(winding(p, corners)) > Math.PI;
        if (isIn) inside++;
        expect(listed.has(z), `${parent}: ${z}`).to.equal(isIn);
      }
      expect(inside).to.be.greaterThan(h3.isPentagon(parent) ? 1500 : 2000);
    }
  });

  it('the sub-zones of all the cells of a resolution share out the finer resolutions, each cell once', () => {
    for (const depth of [1, 2]) {
      const seen = new Map<string, string>();
      let total = 0;
      for (const cell of h3.getRes0Cells()) {
        total += grid.subZoneCount(cell, depth);
        for (const z of grid.subZones(cell, depth)) {
          expect(seen.has(z), `${z} under ${cell} and ${seen.get(z)}`).to.equal(false);
          seen.set(z, cell);
        }
      }
      expect(total).to.equal(h3.getNumCells(depth));
      expect(seen.size).to.equal(h3.getNumCells(depth));
    }
  });

  it('in ascending index order, counted, and paged as slices of the whole list', () => {
    for (const [parent, depth] of [[h3.latLngToCell(46.5, 8.5, 5), 3], [h3.getPentagons(3)[0]!, 4], [h3.latLngToCell(0, 180, 2), 2], [h3.latLngToCell(40, -3, 11), 4]] as const) {
      const all = grid.subZones(parent, depth);
      expect([...all].sort()).to.deep.equal(all);
      expect(all).to.have.length(grid.subZoneCount(parent, depth));
      for (const [offset, limit] of [[0, 1], [0, 10], [5, 40], [all.length - 2, 10], [all.length, 5], [Math.floor(all.length / 3), all.length], [7, 1000]] as const) {
        expect(grid.subZones(parent, depth, { offset, limit }), `${parent} d${depth} ${offset}+${limit}`).to.deep.equal(all.slice(offset, offset + limit));
      }
    }
    const cell = h3.latLngToCell(46.5, 8.5, 9);
    expect(grid.subZones(cell, 0)).to.deep.equal([cell]);
    expect(grid.subZoneCount(cell, 0)).to.equal(1);
    expect(() => grid.subZones(cell, 7)).to.throw(RangeError);
  });

  it("children are h3's, centre child first, and equal the depth-1 sub-zones; the parent holds each child's centre", () => {
    const rand = mulberry32(3);
    const cells = [...h3.getRes0Cells(), ...h3.getRes0Cells().flatMap((c) => h3.cellToChildren(c, 1))];
    for (let i = 0; i < 300; i++) cells.push(h3.latLngToCell(Math.asin(2 * rand() - 1) / DEG, rand() * 360 - 180, 2 + (i % 12)));
    for (const cell of cells) {
      const children = grid.children(cell);
      expect(children, cell).to.deep.equal(grid.subZones(cell, 1));
      expect(children[0]).to.equal(h3.cellToCenterChild(cell, h3.getResolution(cell) + 1));
      for (const child of children) {
        const [lat, lon] = h3.cellToLatLng(child);
        expect(grid.parents(child)).to.deep.equal([cell]);
        expect(grid.zoneFromPoint(lon, lat, h3.getResolution(cell))).to.equal(cell);
      }
    }
  });
});
