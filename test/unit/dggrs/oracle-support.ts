/** Loading DGGAL oracle files and tolerance helpers shared by the 7H grid tests. */
import fs from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
/** DGGAL's answers for the icosahedral and rhombic grids (test/fixtures/shared/README.md gives their provenance). */
export const oracleDir = path.resolve(repoRoot, 'test/fixtures/shared/oracle/dggal');
/** DGGAL answers generated for this project (grids the shared oracle does not cover). */
export const fixturesDir = path.resolve(repoRoot, 'test/fixtures/dggal');

export function readJsonl<T = Record<string, unknown>>(name: string, dir = oracleDir): T[] {
  return fs.readFileSync(path.join(dir, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
}

export const DEG = Math.PI / 180;

/**
 * Great-circle distance in degrees of arc between two positions (haversine, exact for tiny distances).
 * Positions are compared on the ground, not by their coordinates: towards a pole a longitude means less
 * and less, and at the pole nothing (DGGAL's own longitudes at 89.999 degrees carry ~1e-8 degrees of noise
 * from its fast-math build, and at an exact pole it prints whichever longitude its arithmetic left).
 */
export function pointDiff(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s = Math.sin(((lat2 - lat1) * DEG) / 2) ** 2 + Math.cos(lat1 * DEG) * Math.cos(lat2 * DEG) * Math.sin(((lon2 - lon1) * DEG) / 2) ** 2;
  return (2 * Math.asin(Math.min(1, Math.sqrt(s)))) / DEG;
}

/** The parts of a DGGAL points record (`zone` command) that name other zones. */
export interface RelativesRecord {
  zone: string;
  parents: string[];
  children: string[];
  neighbors: string[];
}

/** Relatives as a grid gives them: each list in DGGAL's order. */
export function relativesOf(grid: { parents(z: string): string[]; children(z: string): string[]; neighbours(z: string): string[] }, zone: string): Omit<RelativesRecord, 'zone'> {
  return { parents: grid.parents(zone), children: grid.children(zone), neighbors: grid.neighbours(zone) };
}

/**
 * Largest ground-proportional distance (degrees) between a described zone's centroid and corners ([lon, lat])
 * and a DGGAL record's ([lat, lon]); Infinity when the corner counts differ.
 */
export function cornersDiff(
  d: { centroid: [number, number]; vertices: [number, number][] },
  r: { centroid: [number, number]; vertices: [number, number][] },
): number {
  if (d.vertices.length !== r.vertices.length) return Infinity;
  let worst = pointDiff(d.centroid[0], d.centroid[1], r.centroid[1], r.centroid[0]);
  d.vertices.forEach((v, i) => (worst = Math.max(worst, pointDiff(v[0], v[1], r.vertices[i]![1], r.vertices[i]![0]))));
  return worst;
}

/** A selection read page by page (`size` zones a page) up to `total` zones: what a client paging through it sees. */
export function pagedThrough(sel: { page(p: { offset: number; limit: number }): Generator<void, string[], void> }, total: number, size: number): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < total; offset += size) {
    const page = sel.page({ offset, limit: size });
    for (;;) {
      const step = page.next();
      if (step.done) {
        out.push(...step.value);
        break;
      }
    }
  }
  return out;
}
