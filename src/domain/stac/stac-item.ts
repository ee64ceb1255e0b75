import type { BBox, LonLat } from '../dggrs/dggrs.js';

/** A ring of [lon, lat] corners; closing the ring (first point repeated) is optional. */
export type Ring = LonLat[];
/** One polygon: the outer ring, then holes. */
export type FootprintPolygon = Ring[];

export interface StacAsset {
  /** Resolved href (the catalog adapter resolves relative hrefs against the item's own location). */
  href: string;
  type?: string;
  title?: string;
}

/**
 * What item selection needs to know of a STAC item: a plain descriptor, free of STAC JSON
 * details (the catalog adapter produces it).
 */
export interface StacItemDescriptor {
  id: string;
  /** Epoch ms of `datetime`, or of `start_datetime`; null when open/unknown. */
  start: number | null;
  /** Epoch ms of `datetime`, or of `end_datetime`; null when open/unknown. */
  end: number | null;
  /** Extent; minLon > maxLon when it crosses the antimeridian. */
  bbox: BBox;
  /** Footprint polygons in [-180, 180] longitudes (the item geometry, else its bbox). */
  footprint: FootprintPolygon[];
  /** `eo:cloud_cover`, 0-100; undefined when the item does not say. */
  cloudCover?: number;
  assets: Record<string, StacAsset>;
}

/** A time filter: epoch-ms bounds, null for an open end. */
export interface TimeBounds {
  start: number | null;
  end: number | null;
}

/** True when the item's time (instant or start..end) overlaps the bounds; items without any time never match a filter. */
export function itemInTime(item: Pick<StacItemDescriptor, 'start' | 'end'>, t: TimeBounds): boolean {
  if (item.start === null && item.end === null) return false;
  const s = item.start ?? -Infinity, e = item.end ?? Infinity;
  return s <= (t.end ?? Infinity) && e >= (t.start ?? -Infinity);
}

/** Polygons of a bbox, split in two when it crosses the antimeridian (as RFC 7946 wants). */
export function bboxFootprint([w, s, e, n]: BBox): FootprintPolygon[] {
  const box = (a: number, b: number): FootprintPolygon => [[[a, s], [b, s], [b, n], [a, n], [a, s]]];
  return w <= e ? [box(w, e)] : [box(w, 180), box(-180, e)];
}

/** Whether two boxes overlap (touching counts), each possibly crossing the antimeridian. */
export function bboxesIntersect(a: BBox, b: BBox): boolean {
  if (a[1] > b[3] || b[1] > a[3]) return false;
  const spans = (x: BBox): [number, number][] => (x[0] <= x[2] ? [[x[0], x[2]]] : [[x[0], 180], [-180, x[2]]]);
  return spans(a).some(([a0, a1]) => spans(b).some(([b0, b1]) => a0 <= b1 && b0 <= a1));
}
