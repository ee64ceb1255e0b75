/**
 * Every grid of GRID_FACTORIES (src/adapters/grids/catalog.ts) beside h3-js, in the same run and on the same random points: zone from
 * point (text id and numeric key), zone centroid, zone corners and sub-zones. Each figure is paired with
 * h3-js at the resolution whose cells are closest in area, measured in alternating rounds (best kept)
 * to damp noise from other load on the machine.
 * Run: npm run bench grid
 */
import { cellToBoundary, cellToChildren, cellToLatLng, getHexagonAreaAvg, latLngToCell, UNITS } from 'h3-js';
import type { Dggrs } from '../src/domain/dggrs/dggrs.js';
import { i3hCentroid, parseI3HId } from '../src/domain/dggrs/lattices/3h/i3h-zone.js';
import { centroidOf, parseZoneId } from '../src/domain/dggrs/lattices/7h/i7h-zone.js';
import { iseaProjection } from '../src/domain/dggrs/projections/isea-projection.js';
import { iveaProjection } from '../src/domain/dggrs/projections/ivea-projection.js';
import type { SliceAndDiceProjection } from '../src/domain/dggrs/projections/slice-and-dice-projection.js';
import { z7ToZone } from '../src/domain/dggrs/lattices/z7/z7-index.js';
import { randomPoints, rate } from './measure.js';
import { cellToLonLat, hexToU64 } from 'a5-js';
import { GRID_FACTORIES } from '../src/adapters/grids/catalog.js';

/** Alternates the two measurements a few times and keeps each one's best. */
function bestOf(rounds: number, ms: number, ours: () => number, ref: () => number): [number, number] {
  let a = 0, b = 0;
  for (let i = 0; i < rounds; i++) {
    a = Math.max(a, rate(ms, ours));
    b = Math.max(b, rate(ms, ref));
  }
  return [a, b];
}

const fmt = (v: number): string => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M/s` : `${(v / 1e3).toFixed(1)} k/s`);

function line(label: string, ours: number, ref: number, refLabel: string): void {
  console.log(`  ${label.padEnd(40)} ours ${fmt(ours).padStart(11)}   ${refLabel.padEnd(24)} ${fmt(ref).padStart(11)}   ratio ${(ours / ref).toFixed(2)}x`);
}

interface Subject {
  grid: Dggrs;
  /** Zone centroid straight from the grid's own zone model, where the bench knows one (the Dggrs interface describes whole zones). */
  centroid?: (id: string) => [number, number];
}

function centroidVia(proj: SliceAndDiceProjection, c: (id: string) => { x: number; y: number }, odd: (id: string) => boolean): (id: string) => [number, number] {
  const g = { lat: 0, lon: 0 };
  return (id) => {
    const p = c(id);
    proj.inverse(p.x, p.y, odd(id), g);
    return [g.lon, g.lat];
  };
}

/** Centroid functions of the grids whose zone model the bench reaches directly; the others skip that row. */
const CENTROIDS: Record<string, () => (id: string) => [number, number]> = {
  IVEA7H: () => centroidVia(iveaProjection, (id) => centroidOf(parseZoneId(id)!), (id) => parseZoneId(id)!.sh > 0),
  ISEA7H: () => centroidVia(iseaProjection, (id) => centroidOf(parseZoneId(id)!), (id) => parseZoneId(id)!.sh > 0),
  IVEA7H_Z7: () => centroidVia(iveaProjection, (id) => centroidOf(z7ToZone(id)!), (id) => z7ToZone(id)!.sh > 0),
  ISEA7H_Z7: () => centroidVia(iseaProjection, (id) => centroidOf(z7ToZone(id)!), (id) => z7ToZone(id)!.sh > 0),
  IVEA3H: () => centroidVia(iveaProjection, (id) => i3hCentroid(parseI3HId(id)!), (id) => parseI3HId(id)!.sh > 0),
  ISEA3H: () => centroidVia(iseaProjection, (id) => i3hCentroid(parseI3HId(id)!), (id) => parseI3HId(id)!.sh > 0),
  H3: () => (id) => { const [lat, lon] = cellToLatLng(id); return [lon, lat]; },
  A5: () => (id) => cellToLonLat(hexToU64(id)) as unknown as [number, number],
};

/** Every grid of GRID_FACTORIES (grids added there appear here without a change). */
function subjects(): Subject[] {
  return Object.entries(GRID_FACTORIES).map(([id, make]) => ({ grid: make(), ...(CENTROIDS[id] ? { centroid: CENTROIDS[id]() } : {}) }));
}

/** The smallest relative depth giving at least a few hundred sub-zones (within the grid's maximum). */
function depthFor(grid: Dggrs, zone: string): number {
  let d = 1;
  while (d < grid.maxRelativeDepth && grid.zoneLevel(zone) + d < grid.maxRefinementLevel && grid.subZoneCount(zone, d) < 200) d++;
  return d;
}

/** The grid level whose zones are closest in area to H3 cells of `res`. */
function levelLike(s: Subject, res: number): number {
  const target = getHexagonAreaAvg(res, UNITS.m2);
  let best = 0;
  for (let l = 0; l <= s.grid.maxRefinementLevel; l++) {
    if (Math.abs(Math.log(s.grid.levelInfo(l).zoneAreaMetersSquare / target)) < Math.abs(Math.log(s.grid.levelInfo(best).zoneAreaMetersSquare / target))) best = l;
  }
  return best;
}

export async function run(): Promise<void> {
  const n = 20000;
  const { lons, lats } = randomPoints(n, 42);
  const ms = 300, rounds = 2;
  let sink = 0;
  console.log(`Every grid beside h3-js, ${n} random points (uniform on the sphere), Node ${process.version}`);
  for (const s of subjects()) {
    const { grid } = s;
    console.log(`\n${grid.id}`);
    for (const res of [4, 9]) {
      const level = levelLike(s, res);
      const [text, ref] = bestOf(rounds, ms, () => { for (let i = 0; i < n; i++) sink += grid.zoneFromPoint(lons[i]!, lats[i]!, level).length; return n; },
        () => { for (let i = 0; i < n; i++) sink += latLngToCell(lats[i]!, lons[i]!, res).length; return n; });
      line(`point -> zone, level ${level}, text id`, text, ref, `latLngToCell res ${res}`);
      if (!grid.zoneKeyFromPoint) continue;
      const [numeric, ref2] = bestOf(rounds, ms, () => { for (let i = 0; i < n; i++) sink += grid.zoneKeyFromPoint!(lons[i]!, lats[i]!, level); return n; },
        () => { for (let i = 0; i < n; i++) sink += latLngToCell(lats[i]!, lons[i]!, res).length; return n; });
      line(`point -> zone, level ${level}, numeric key`, numeric, ref2, `latLngToCell res ${res}`);
    }
    const res = 8, level = levelLike(s, res), m = 5000;
    const ids = Array.from({ length: m }, (_, i) => grid.zoneFromPoint(lons[i]!, lats[i]!, level));
    const cells = Array.from({ length: m }, (_, i) => latLngToCell(lats[i]!, lons[i]!, res));
    if (s.centroid) {
      const centroid = s.centroid;
      const [cen, cenRef] = bestOf(rounds, ms, () => { for (const id of ids) sink += centroid(id)[0]; return m; },
        () => { for (const c of cells) sink += cellToLatLng(c)[0]; return m; });
      line(`centroid, level ${level}`, cen, cenRef, `cellToLatLng res ${res}`);
    }
    const [ver, verRef] = bestOf(rounds, ms, () => { for (const id of ids) sink += grid.zoneOutline(id, false).length; return m; },
      () => { for (const c of cells) sink += cellToBoundary(c).length; return m; });
    line(`corners (zoneOutline plain), level ${level}`, ver, verRef, `cellToBoundary res ${res}`);
    const few = ids.slice(0, 50), fewCells = cells.slice(0, 50);
    const depth = depthFor(grid, few[0]!);
    const [sub, subRef] = bestOf(rounds, ms, () => { let c = 0; for (const id of few) c += grid.subZones(id, depth).length; return c; },
      () => { let c = 0; for (const cell of fewCells) c += cellToChildren(cell, res + 3).length; return c; });
    line(`sub-zones ${level} -> ${level + depth} (zones/s)`, sub, subRef, `cellToChildren ${res}->${res + 3}`);
  }
  if (sink === -1) console.log(sink);
}
