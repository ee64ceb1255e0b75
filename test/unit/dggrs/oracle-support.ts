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

/** Longitude difference in degrees, taking the short way round. */
export function lonDiff(a: number, b: number): number {
  let d = Math.abs(a - b) % 360;
  if (d > 180) d = 360 - d;
  return d;
}

/**
 * Ground-proportional difference: longitude differences shrink with cos(latitude). At 89.999 degrees DGGAL's
 * own longitudes carry ~1e-8 degrees of noise (its fast-math build), which is sub-micrometre on the ground.
 */
export function pointDiff(lon1: number, lat1: number, lon2: number, lat2: number): number {
  return Math.max(Math.abs(lat1 - lat2), lonDiff(lon1, lon2) * Math.cos(lat2 * DEG));
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
