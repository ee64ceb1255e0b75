/**
 * What raster zone values are judged against, shared by the HTTP consistency test (exact
 * statistics computed here from every pixel, membership by the grid's zoneFromPoint) and the
 * client test (exact statistics from rasterio rasterizing the zone polygons): the rasters and
 * zones of the cases, the exact statistics, and the documented tolerance (README, "Raster
 * statistics").
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fromFile } from 'geotiff';
import { latLngToCell } from 'h3-js';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { fieldTiles, pmtilesBytes, terrarium } from '../support/pmtiles-writer.js';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';

export const NODATA = -9999;
export const COG = path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif');

/** The demo elevation formula (scripts/demo/make-rasters.py), with a nodata "lake" of its own: the PMTiles field. */
export function elevation(lon: number, lat: number): number {
  if (((lon - 10.3) / 0.25) ** 2 + ((lat - 45.55) / 0.15) ** 2 < 1) return NODATA;
  let z = 300 + 1800 * Math.exp(-(((lat - 46.5) / 0.9) ** 2));
  for (const [px, py, amp, r] of [[7.0, 45.9, 2600, 0.35], [10.5, 46.4, 2200, 0.5], [13.0, 47.1, 1900, 0.4], [8.6, 46.6, 2400, 0.3]] as const) {
    z += amp * Math.exp(-((lon - px) ** 2 + (lat - py) ** 2) / r ** 2);
  }
  z += 120 * Math.sin(lon * 3.1) * Math.cos(lat * 2.3);
  return Math.round(z * 10) / 10;
}

/** What the archive stores for a value: terrarium's 1/256 steps, decoded into float32. */
function terrariumValue(v: number): number {
  const [r, g, b] = terrarium(v);
  return Math.fround(r * 256 + g + b / 256 - 32768);
}

export const PMTILES_BOUNDS: [number, number, number, number] = [9.5, 45.0, 11.5, 46.5];
export const PMTILES_MAX_ZOOM = 8;

/** The elevation field as a terrarium PMTiles pyramid (zooms 5..8, each zoom the field at its pixel centres). */
export function writeElevationPmtiles(dir: string): string {
  const file = path.join(dir, 'elevation.pmtiles');
  writeFileSync(file, pmtilesBytes({ tiles: fieldTiles(elevation, PMTILES_BOUNDS, 5, PMTILES_MAX_ZOOM), bounds: PMTILES_BOUNDS, metadata: { encoding: 'terrarium' } }));
  return file;
}

/** A server with the demo COG collection and the PMTiles copy of its field. */
export function startElevationServer(pmtiles: string): Promise<TestServer> {
  const defaults = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/default.json'), 'utf8')) as { collections: { id: string }[] };
  const field = { elevation: { title: 'Elevation', type: 'number', svc_band_index: 1, svc_dggs_stat: 'mean' } };
  return startTestServer({
    collections: [
      defaults.collections.find((c) => c.id === 'demo-elevation'),
      { id: 'elevation-pmtiles', title: 'Elevation (PMTiles)', backing: { kind: 'raster-url', url: pmtiles, noData: NODATA, fields: field } },
    ],
  });
}

/** Every pixel of a raster at full resolution, independently of the service's readers. */
export interface Pixels {
  /** Column and row ranges [from, to) "on the raster" (nodata included). */
  cols: [number, number];
  rows: [number, number];
  centre(col: number, row: number): [number, number];
  pixelAt(lon: number, lat: number): [number, number];
  /** NaN for nodata. */
  value(col: number, row: number): number;
}

/** The demo COG's pixels, read with geotiff directly. */
export async function cogPixels(): Promise<Pixels> {
  const image = await (await fromFile(COG)).getImage(0);
  const [w, h] = [image.getWidth(), image.getHeight()];
  const [ox, oy] = image.getOrigin() as [number, number];
  const [rx, ry] = image.getResolution() as [number, number];
  const nodata = image.getGDALNoData();
  const data = (await image.readRasters({ samples: [0], interleave: true })) as unknown as Float32Array;
  return {
    cols: [0, w],
    rows: [0, h],
    centre: (c, r) => [ox + (c + 0.5) * rx, oy + (r + 0.5) * ry],
    pixelAt: (lon, lat) => [Math.floor((lon - ox) / rx), Math.floor((lat - oy) / ry)],
    value: (c, r) => {
      if (c < 0 || r < 0 || c >= w || r >= h) return NaN;
      const v = data[r * w + c]!;
      return v === nodata ? NaN : v;
    },
  };
}

/** The archive's max-zoom pixels (Web Mercator), from the field it was written from; `world` is the zoom's width in pixels. */
export function pmtilesPixels(): Pixels & { world: number } {
  const world = 256 * 2 ** PMTILES_MAX_ZOOM;
  const x = (lon: number) => ((lon + 180) / 360) * world;
  const y = (lat: number) => ((1 - Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) / 2) * world;
  const lat = (py: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * py) / world))) * 180) / Math.PI;
  const [w, s, e, n] = PMTILES_BOUNDS;
  const centre = (c: number, r: number): [number, number] => [((c + 0.5) / world) * 360 - 180, lat(r + 0.5)];
  return {
    world,
    cols: [Math.floor(x(w)), Math.ceil(x(e))],
    rows: [Math.floor(y(n)), Math.ceil(y(s))],
    centre,
    pixelAt: (lo, la) => [Math.floor(x(lo)), Math.floor(y(la))],
    value: (c, r) => {
      const [lo, la] = centre(c, r);
      if (lo < w || lo > e || la < s || la > n) return NaN; // transparent
      const v = elevation(lo, la);
      return v === NODATA ? NaN : terrariumValue(v);
    },
  };
}

export type Collection = 'demo-elevation' | 'elevation-pmtiles';

/** Zones of both rasters: inside, straddling an edge of the raster, over nodata (lake, corner), across grids; depths 0-4. */
export const ZONE_CASES: { name: string; collection: Collection; dggrs: string; zone: (g: Dggrs) => string; depths: number[] }[] = [
  { name: 'a level-2 zone mostly off the raster (C4-6-A)', collection: 'demo-elevation', dggrs: 'IVEA7H', zone: () => 'C4-6-A', depths: [0, 1] },
  { name: 'a level-4 zone over the peaks (E4-120-A)', collection: 'demo-elevation', dggrs: 'IVEA7H', zone: () => 'E4-120-A', depths: [0, 1, 2, 3] },
  { name: 'a level-5 zone on the nodata lake', collection: 'demo-elevation', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(9.0, 45.3, 5), depths: [0, 1, 2, 3, 4] },
  { name: 'a level-5 zone at the nodata corner', collection: 'demo-elevation', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(5.45, 44.45, 5), depths: [0, 1, 2, 3, 4] },
  { name: 'a level-5 zone across the east edge', collection: 'demo-elevation', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(16.0, 46.2, 5), depths: [0, 1, 2, 3, 4] },
  { name: 'an H3 level-4 cell', collection: 'demo-elevation', dggrs: 'H3', zone: () => latLngToCell(46.3, 8.4, 4), depths: [0, 1, 2, 3, 4] },
  { name: 'an ISEA7H level-5 zone across the north edge', collection: 'demo-elevation', dggrs: 'ISEA7H', zone: (g) => g.zoneFromPoint(12.5, 47.95, 5), depths: [0, 1, 2, 3, 4] },
  { name: 'a level-4 zone larger than the archive', collection: 'elevation-pmtiles', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(10.5, 45.8, 4), depths: [0, 1, 2, 3] },
  { name: "a level-5 zone on the archive's nodata lake", collection: 'elevation-pmtiles', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(10.3, 45.55, 5), depths: [0, 1, 2, 3, 4] },
  { name: "a level-5 zone across the archive's south edge", collection: 'elevation-pmtiles', dggrs: 'IVEA7H', zone: (g) => g.zoneFromPoint(10.9, 45.0, 5), depths: [0, 1, 2, 3, 4] },
  { name: 'an H3 level-5 cell', collection: 'elevation-pmtiles', dggrs: 'H3', zone: () => latLngToCell(46.1, 10.8, 5), depths: [0, 1, 2, 3, 4] },
];

/** One depth of a zone-data answer. */
export interface AnsweredDepth {
  depth: number;
  zones: string[];
  /** By output field name, aligned with `zones`; null where none. */
  values: Record<string, (number | null)[]>;
}

/** Zone data as DGGS-JSON, one entry per depth. */
export async function zoneData(s: TestServer, collection: string, dggrs: string, zone: string, query: string): Promise<AnsweredDepth[]> {
  const res = await s.get(`/collections/${collection}/dggs/${dggrs}/zones/${encodeURIComponent(zone)}/data?f=json&${query}`);
  expect(res.status, await res.clone().text()).to.equal(200);
  const body = (await res.json()) as { depths: number[]; zones: { depth: number; zoneIds: string[] }[]; values: Record<string, { depth: number; data: (number | null)[] }[]> };
  return body.depths.map((depth) => ({
    depth,
    zones: body.zones.find((z) => z.depth === depth)!.zoneIds,
    values: Object.fromEntries(Object.entries(body.values).map(([name, perDepth]) => [name, perDepth.find((d) => d.depth === depth)!.data])),
  }));
}

/** Statistics of one sub-zone over every full-resolution pixel whose centre it holds. */
export interface ExactStats {
  /** Pixel centres on the raster (nodata included). */
  count: number;
  /** Those with a value. */
  valid: number;
  /** NaN when `valid` is 0. */
  mean: number;
  min: number;
  max: number;
  stdDev: number;
  median: number;
}

export function statsOf(count: number, values: number[]): ExactStats {
  const n = values.length;
  if (n === 0) return { count, valid: 0, mean: NaN, min: NaN, max: NaN, stdDev: NaN, median: NaN };
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  const sorted = Float64Array.from(values).sort();
  const m = n >> 1;
  return { count, valid: n, mean, min: sorted[0]!, max: sorted[n - 1]!, stdDev: Math.sqrt(ss / n), median: n % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2 };
}

/**
 * Exact statistics of the zones of `levels` over the pixels in a box: each pixel centre assigned
 * by the grid's zoneFromPoint (the definition of membership). A zone holding no pixel centre gets
 * the pixel under its centroid (the documented answer), or nothing off the raster.
 */
export function exactByLevel(grid: Dggrs, px: Pixels, box: [number, number, number, number], levels: number[]): (level: number, zone: string) => ExactStats | undefined {
  const zones = new Map(levels.map((l) => [l, new Map<string, { count: number; values: number[] }>()]));
  const [ca, ra] = px.pixelAt(box[0], box[1]), [cb, rb] = px.pixelAt(box[2], box[3]);
  for (let r = Math.max(px.rows[0], Math.min(ra, rb) - 1); r <= Math.min(px.rows[1] - 1, Math.max(ra, rb) + 1); r++) {
    for (let c = Math.max(px.cols[0], Math.min(ca, cb) - 1); c <= Math.min(px.cols[1] - 1, Math.max(ca, cb) + 1); c++) {
      const [lon, lat] = px.centre(c, r);
      const v = px.value(c, r);
      for (const [level, byZone] of zones) {
        const id = grid.zoneFromPoint(lon, lat, level);
        let z = byZone.get(id);
        if (!z) byZone.set(id, (z = { count: 0, values: [] }));
        z.count++;
        if (!Number.isNaN(v)) z.values.push(v);
      }
    }
  }
  return (level, zone) => {
    const z = zones.get(level)!.get(zone);
    if (z) return statsOf(z.count, z.values);
    const [col, row] = px.pixelAt(...grid.describeZone(zone).centroid);
    if (col < px.cols[0] || col >= px.cols[1] || row < px.rows[0] || row >= px.rows[1]) return undefined;
    const v = px.value(col, row);
    return statsOf(1, Number.isNaN(v) ? [] : [v]);
  };
}

/** The lon/lat box of the sub-zones of an answer. */
export function answerBox(grid: Dggrs, answer: AnsweredDepth[]): [number, number, number, number] {
  const boxes = answer.flatMap((a) => a.zones.map((z) => grid.describeZone(z).bbox));
  return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
}

/**
 * The documented tolerance at the default cog-sampling-factor: each sub-zone's mean within 20%
 * of its value range (max - min over its pixels) of the exact mean, and within 10% on average over
 * the sub-zones of a depth (when 7 or more have data); never null where a pixel centre has a
 * value, always null where none has.
 */
export const MEAN_TOLERANCE = 0.2;
export const AVERAGE_MEAN_TOLERANCE = 0.1;
const AVERAGED_FROM = 7;

/**
 * Checks one depth's means against the exact statistics; `exact(z)` as from `exactByLevel`.
 * `slack` absorbs differences in membership of the exact side (rasterized polygons) and storage
 * precision. Returns the average error relative to the range.
 */
export function expectWithinTolerance(label: string, zones: string[], mean: (number | null)[], exact: (zone: string) => ExactStats | undefined, slack = 0): number {
  let sum = 0, k = 0;
  const bad: string[] = [];
  zones.forEach((z, i) => {
    const v = mean[i]!;
    const e = exact(z);
    if (!e || e.valid === 0) {
      if (v !== null) bad.push(`${z}: ${v} where no pixel centre has a value`);
      return;
    }
    if (v === null) {
      bad.push(`${z}: null where ${e.valid} pixel centres have values (exact mean ${e.mean})`);
      return;
    }
    const range = e.max - e.min;
    const err = Math.abs(v - e.mean);
    if (err > MEAN_TOLERANCE * range + slack + 1e-9 * Math.abs(e.mean)) bad.push(`${z}: ${v} vs exact ${e.mean} (range ${range}, ${e.valid} valid)`);
    if (range > 0) {
      sum += Math.min(1, err / range);
      k++;
    }
  });
  expect(bad, `${label}: ${bad.length} of ${zones.length} sub-zones outside the tolerance`).to.deep.equal([]);
  const average = k === 0 ? 0 : sum / k;
  if (k >= AVERAGED_FROM) expect(average, `${label}: average error over the value range`).to.be.at.most(AVERAGE_MEAN_TOLERANCE);
  return average;
}
