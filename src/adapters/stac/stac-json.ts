import { bboxesIntersect, bboxFootprint, itemInTime, type FootprintPolygon, type StacAsset, type StacItemDescriptor } from '../../domain/stac/stac-item.js';
import type { BBox, LonLat } from '../../domain/dggrs/dggrs.js';
import type { StacSearch } from '../../ports/stac-catalog.js';

type Json = Record<string, unknown>;

/**
 * A STAC Item (JSON) as a descriptor. `resolve` turns an asset href into the one readers open
 * (relative hrefs are relative to the item's own location), or undefined to leave it out. Throws with a reason when the item is
 * not usable (no id, no time, no place).
 */
export function parseStacItem(json: unknown, resolve: (href: string) => string | undefined): StacItemDescriptor {
  if (!isObject(json) || json.type !== 'Feature') throw new Error('not a STAC Item (type is not "Feature")');
  const id = json.id;
  if (typeof id !== 'string' || id === '') throw new Error('item without an id');
  const props = isObject(json.properties) ? json.properties : {};
  const instant = time(props.datetime);
  const start = instant ?? time(props.start_datetime);
  const end = instant ?? time(props.end_datetime);
  if (start === null && end === null) throw new Error(`item ${id} has neither datetime nor start_datetime/end_datetime`);
  const footprint = geometryFootprint(json.geometry);
  const bbox = parseBBox(json.bbox) ?? (footprint ? footprintBBox(footprint) : undefined);
  if (!bbox) throw new Error(`item ${id} has neither bbox nor a polygon geometry`);
  const cloud = props['eo:cloud_cover'];
  const assets: Record<string, StacAsset> = {};
  for (const [key, a] of Object.entries(isObject(json.assets) ? json.assets : {})) {
    if (!isObject(a) || typeof a.href !== 'string') continue;
    const href = resolve(a.href);
    if (href === undefined) continue; // an asset the catalog's readers may not open
    assets[key] = { href, ...(typeof a.type === 'string' ? { type: a.type } : {}), ...(typeof a.title === 'string' ? { title: a.title } : {}) };
  }
  return { id, start, end, bbox, footprint: footprint ?? bboxFootprint(bbox), ...(typeof cloud === 'number' && Number.isFinite(cloud) ? { cloudCover: cloud } : {}), assets };
}

/** The search filter every catalog adapter applies the same way (`intersects` narrows nothing here: coverage is the domain's). */
export function matchesSearch(item: StacItemDescriptor, q: StacSearch): boolean {
  return (
    bboxesIntersect(item.bbox, q.bbox) &&
    (!q.datetime || itemInTime(item, q.datetime)) &&
    (q.maxCloudCover === undefined || (item.cloudCover !== undefined && item.cloudCover <= q.maxCloudCover))
  );
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function time(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

function parseBBox(v: unknown): BBox | undefined {
  if (!Array.isArray(v) || !v.every((n) => typeof n === 'number' && Number.isFinite(n))) return undefined;
  // 3D boxes are [w, s, zmin, e, n, zmax].
  if (v.length === 4) return [v[0], v[1], v[2], v[3]];
  if (v.length === 6) return [v[0], v[1], v[3], v[4]];
  return undefined;
}

/** Polygon and MultiPolygon geometries; anything else (or none) leaves the bbox as footprint. */
function geometryFootprint(g: unknown): FootprintPolygon[] | undefined {
  if (!isObject(g) || !Array.isArray(g.coordinates)) return undefined;
  const polygon = (p: unknown): FootprintPolygon | undefined =>
    Array.isArray(p) && p.length > 0 && p.every((r) => Array.isArray(r) && r.length >= 4) ? (p as unknown[][]).map((r) => r.map((c) => [(c as number[])[0]!, (c as number[])[1]!] as LonLat)) : undefined;
  const polys = g.type === 'Polygon' ? [polygon(g.coordinates)] : g.type === 'MultiPolygon' ? g.coordinates.map(polygon) : [];
  const ok = polys.filter((p): p is FootprintPolygon => p !== undefined);
  return ok.length > 0 ? ok : undefined;
}

function footprintBBox(f: FootprintPolygon[]): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const [x, y] of f.flatMap((p) => p[0] ?? [])) {
    w = Math.min(w, x); e = Math.max(e, x); s = Math.min(s, y); n = Math.max(n, y);
  }
  return [w, s, e, n];
}
