/** Loading DGGAL oracle files and tolerance helpers shared by the 7H grid tests. */
import fs from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const oracleDir = path.resolve(repoRoot, '../shared/oracle/dggal');
/** DGGAL answers committed with the tests (grids the shared oracle does not cover). */
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
