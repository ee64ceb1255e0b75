import { Zip, ZipDeflate } from 'fflate';
import { valuesAsDoubles, type DepthValues, type ZoneData } from '../../domain/zone-data.js';
import type { ZoneDataContext, ZoneDataEncoding } from './encoding.js';
import { profileUri } from './encoding.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';
import { CONF } from '../conformance-classes.js';
import { fileName } from '../file-names.js';

/**
 * Zipped Zarr 2 (OGC 21-038r1 /req/data-zarr/content), the DGGS-optimized profiles:
 *
 * ```
 * .zgroup .zattrs                 the root group: profile URI, DGGRS (URI and CURIE), parent zone, depths
 * depth_<d>/.zgroup .zattrs       one group (one dataset) per relative depth: depth, absolute level
 * depth_<d>/zone/.zarray .zattrs  the sub-zone dimension's coordinate
 * depth_<d>/<field>/...           one float64 array per field along `zone`, NaN for no value
 * ```
 *
 * `zarr2-dggs` (default): `zone` holds the local sub-zone index 1..n in the grid's sub-zone order.
 * `zarr2-dggs-zoneids`: `zone` holds the sub-zone ids (fixed-width unicode `<U..`), and, for grids
 * with 64-bit ids, `zone_uint64` (`<u8`) holds them as integers. The grid's spatial axes are never
 * dimensions of their own: each value is that of one sub-zone.
 *
 * Every array is one chunk (/rec/data-zarr/no-extra-chunking) without a Zarr compressor: the zip
 * entries are deflated instead, so any Zarr 2 reader opens the chunks, and the answer is not
 * compressed again in transit. `_ARRAY_DIMENSIONS` names the dimension as xarray reads it; the
 * coordinate's `grid_name`, `level` and `indexing` (`local-subzone-order` or `zone-id`) tell
 * xdggs-style readers the grid, the refinement level and what the coordinate holds.
 *
 * Bytes are deflated in slices, with a turn of the event loop whenever one is due.
 */
export const ZARR_PROFILES = ['zarr2-dggs', 'zarr2-dggs-zoneids'] as const;

/** Bytes deflated between looks at the clock. */
const SLICE_BYTES = 256 * 1024;
/** A fixed entry time, so one answer is always the same bytes. */
const ENTRY_TIME = new Date('2000-01-01T00:00:00Z');
const COORDINATE = 'zone';
const UINT64_COORDINATE = 'zone_uint64';

const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o, null, 1));

interface ZarrArray {
  dtype: string;
  bytes: Uint8Array;
  count: number;
  fill: number | string | null;
  attrs: Record<string, unknown>;
}

/** The `.zarray` of a one-dimensional array held in one chunk. */
function zarray(a: ZarrArray): Record<string, unknown> {
  return {
    zarr_format: 2,
    shape: [a.count],
    // Zarr chunks are at least 1 long; an empty array then has no chunk file at all.
    chunks: [Math.max(1, a.count)],
    dtype: a.dtype,
    fill_value: a.fill,
    order: 'C',
    compressor: null,
    filters: null,
  };
}

/** Fixed-width UTF-32LE strings, as NumPy's `<U{width}` holds them (zero-padded). */
function unicodes(ids: readonly string[]): { dtype: string; bytes: Uint8Array } {
  const points = ids.map((id) => Array.from(id, (c) => c.codePointAt(0)!));
  // A loop, not Math.max(...spread): one argument per id overflows the stack past ~100k ids.
  let width = 1;
  for (const p of points) if (p.length > width) width = p.length;
  const out = new Uint32Array(ids.length * width);
  points.forEach((p, i) => out.set(p, i * width));
  // Little-endian as every platform Node runs on is (checked below).
  return { dtype: `<U${width}`, bytes: new Uint8Array(out.buffer) };
}

function uint64s(ids: readonly string[], toUint64: (id: string) => bigint): Uint8Array {
  const out = new BigUint64Array(ids.length);
  ids.forEach((id, i) => (out[i] = toUint64(id)));
  return new Uint8Array(out.buffer);
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('zarr.ts writes little-endian typed arrays and needs a little-endian platform');

/** Array names in a group: a field name with `/` would be a nested path, one named like the coordinate would replace it. */
function arrayName(field: string, taken: Set<string>): string {
  let name = field.replace(/[/\\]/g, '_').replace(/^\.+/, '_');
  while (taken.has(name)) name = `${name}_`;
  taken.add(name);
  return name;
}

/** The arrays of one depth's group, by name: the coordinate(s), then one per field. */
function depthArrays(data: ZoneData, d: DepthValues, ctx: ZoneDataContext, zoneIds: boolean, level: number): Map<string, ZarrArray> {
  const n = d.zones.length;
  const dims = { _ARRAY_DIMENSIONS: [COORDINATE] };
  const grid = { grid_name: data.dggrsId, dggrs: ctx.grid.uri, level };
  const arrays = new Map<string, ZarrArray>();
  if (zoneIds) {
    const { dtype, bytes } = unicodes(d.zones);
    arrays.set(COORDINATE, { dtype, bytes, count: n, fill: null, attrs: { ...dims, ...grid, indexing: 'zone-id', long_name: `${data.dggrsId} zone identifier` } });
    const toUint64 = ctx.grid.zoneToUint64?.bind(ctx.grid);
    if (toUint64) {
      arrays.set(UINT64_COORDINATE, { dtype: '<u8', bytes: uint64s(d.zones, toUint64), count: n, fill: null, attrs: { ...dims, ...grid, indexing: 'zone-id-uint64', long_name: `${data.dggrsId} 64-bit zone identifier` } });
    }
  } else {
    const index = new Uint32Array(n);
    for (let i = 0; i < n; i++) index[i] = i + 1;
    arrays.set(COORDINATE, {
      dtype: '<u4',
      bytes: new Uint8Array(index.buffer),
      count: n,
      fill: null,
      attrs: { ...dims, ...grid, indexing: 'local-subzone-order', parent_zone_id: data.zoneId, long_name: `sub-zone index in the ${data.dggrsId} sub-zone order of ${data.zoneId}` },
    });
  }
  const taken = new Set(arrays.keys());
  // CF's `coordinates` makes xarray read the 64-bit ids as a coordinate beside the dimension's.
  const extra = arrays.has(UINT64_COORDINATE) ? { coordinates: UINT64_COORDINATE } : {};
  for (const [field, meta] of Object.entries(data.fields)) {
    const attrs: Record<string, unknown> = { ...dims, ...extra, long_name: meta.title || field, field };
    if (meta.svc_unit) attrs.units = meta.svc_unit;
    if (meta.description) attrs.description = meta.description;
    arrays.set(arrayName(field, taken), { dtype: '<f8', bytes: new Uint8Array(valuesAsDoubles(d, field).buffer), count: n, fill: 'NaN', attrs });
  }
  return arrays;
}

async function* zoneDataZarr(data: ZoneData, ctx: ZoneDataContext): AsyncGenerator<Uint8Array> {
  const profile = ctx.profile ?? ZARR_PROFILES[0];
  const zoneIds = profile === 'zarr2-dggs-zoneids';
  const zoneLevel = ctx.grid.zoneLevel(data.zoneId);
  const out: Uint8Array[] = [];
  let failed: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failed = err;
    else out.push(chunk);
  });
  async function* drain(): AsyncGenerator<Uint8Array> {
    if (failed) throw failed;
    while (out.length > 0) yield out.shift()!;
    if (turnDue()) await takeTurn(ctx.signal);
  }
  async function* file(name: string, bytes: Uint8Array): AsyncGenerator<Uint8Array> {
    // Level 1: float64 values gain little from harder work, and this runs on the event loop.
    const entry = new ZipDeflate(name, { level: 1 });
    entry.mtime = ENTRY_TIME;
    zip.add(entry);
    if (bytes.length === 0) entry.push(bytes, true);
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      entry.push(bytes.subarray(at, at + SLICE_BYTES), at + SLICE_BYTES >= bytes.length);
      yield* drain();
    }
    yield* drain();
  }

  yield* file('.zgroup', json({ zarr_format: 2 }));
  yield* file(
    '.zattrs',
    json({
      profile: profileUri(profile),
      dggrs: ctx.grid.uri,
      dggrs_curie: `[ogc-dggrs:${data.dggrsId}]`,
      zone_id: data.zoneId,
      zone_level: zoneLevel,
      depths: data.depths.map((d) => d.depth),
      groups: data.depths.map((d) => `depth_${d.depth}`),
      ...(ctx.datetime ? { datetime: [ctx.datetime.start, ctx.datetime.end] } : {}),
      links: ctx.links,
    }),
  );
  for (const d of data.depths) {
    const group = `depth_${d.depth}`;
    const level = zoneLevel + d.depth;
    yield* file(`${group}/.zgroup`, json({ zarr_format: 2 }));
    yield* file(`${group}/.zattrs`, json({ depth: d.depth, zone_level: level, zone_id: data.zoneId, dggrs: ctx.grid.uri, sub_zones: d.zones.length }));
    for (const [name, a] of depthArrays(data, d, ctx, zoneIds, level)) {
      yield* file(`${group}/${name}/.zarray`, json(zarray(a)));
      yield* file(`${group}/${name}/.zattrs`, json(a.attrs));
      if (a.count > 0) yield* file(`${group}/${name}/0`, a.bytes);
    }
  }
  zip.end();
  yield* drain();
}

export const zarr: ZoneDataEncoding = {
  format: 'zarr',
  conformance: [CONF.dggsDataZarr],
  profiles: ZARR_PROFILES,
  encode: zoneDataZarr,
  fileName: (data) => fileName(`${data.dggrsId}-${data.zoneId}-data`, 'zarr'),
};
