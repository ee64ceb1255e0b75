/**
 * The `filter` of zone data and of zone lists as OGC API - DGGS reads it (requirements classes
 * data-cql2-filter and zone-query-cql2-filter): a CQL2 expression on each (sub-)zone's OWN data
 * (its values of the collection's zone-data fields) and geometry (its outline), evaluated here
 * by the domain's evaluator for every backing kind. Row filters (items, the cross-collection
 * body) are not this: they restrict the rows that contribute, in the sources.
 */
import type { Collection } from '../../domain/collection.js';
import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import type { ZoneData } from '../../domain/zone-data.js';
import { properties as filterProperties, type Expr } from '../../domain/cql2/index.js';
import { assertEvaluable, matchesFilter, UnsupportedFilterError } from '../../domain/features/cql2-evaluate.js';
import { spatialVertices } from '../../domain/features/spatial-cost.js';
import { outlineToGeoJson } from '../../domain/geometry/rfc7946.js';
import { InvalidRequestError, ValidationError } from '../../ports/errors.js';
import { takeTurn, turnDue } from '../../ports/event-loop-turns.js';

/** The queryable naming a zone's outline. */
export const ZONE_GEOMETRY = 'geometry';
const GEOMETRY_NAMES: ReadonlySet<string> = new Set([ZONE_GEOMETRY]);

/** A zone filter checked against the collection's zone-data fields: what it reads of each zone. */
export interface ZoneFilter {
  expr: Expr;
  /** Zone-data fields the expression names, in the collection's field order. */
  fields: string[];
  /** The expression names `geometry`: each zone's outline is computed. */
  usesGeometry: boolean;
  /** Vertices of the geometry literals its spatial predicates compare zones with. */
  vertices: number;
}

/**
 * Checks a parsed zone filter before any source is read: every construct evaluable here, every
 * property a zone-data field of the collection or `geometry` (400 naming the valid ones).
 */
export function zoneFilter(c: Collection, known: readonly string[], expr: Expr, what: string): ZoneFilter {
  try {
    assertEvaluable(expr);
  } catch (err) {
    if (err instanceof UnsupportedFilterError) throw new InvalidRequestError('Invalid filter', err.message);
    throw err;
  }
  const referenced = filterProperties(expr);
  const unknown = referenced.filter((p) => p !== ZONE_GEOMETRY && !known.includes(p));
  if (unknown.length > 0) {
    throw new InvalidRequestError(
      'Invalid filter',
      `unknown property ${unknown.map((n) => `"${n.slice(0, 64)}"`).join(', ')}; the filter of ${what} on ${c.id} is evaluated on each zone's own data and outline, so it may name the zone-data fields (${known.join(', ') || 'none'}) and geometry. Row filters belong to /collections/${c.id}/items and to the cross-collection body.`,
    );
  }
  return { expr, fields: known.filter((f) => referenced.includes(f)), usesGeometry: referenced.includes(ZONE_GEOMETRY), vertices: spatialVertices(expr) };
}

/**
 * Refuses a filter whose spatial predicates would compare `zones` zones with too many literal
 * vertices; `fewer` says how the caller's request tests fewer zones (its own parameters).
 */
export function checkSpatialWork(f: ZoneFilter, zones: number, where: string, limit: number, fewer: string): void {
  if (f.vertices === 0) return;
  const work = zones * f.vertices;
  if (work > limit) {
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    throw new ValidationError(
      'Filter too costly',
      `The filter's spatial predicates compare about ${fmt(zones)} ${where} with geometry literals of ${fmt(f.vertices)} vertices: ${fmt(work)} zone-vertices; the limit is ${fmt(limit)} (limits.maxSpatialZoneVertices). ${fewer}, or use a geometry with fewer vertices.`,
    );
  }
}

/** Whether one zone passes: its values of the filter's fields (null: no value, making a comparison unknown) and its outline. */
export function zonePasses(f: ZoneFilter, grid: Dggrs, zoneId: string, values: Record<string, number | null>): boolean {
  return matchesFilter(f.expr, { properties: values, geometry: f.usesGeometry ? outlineToGeoJson(grid.zoneOutline(zoneId, false)) : null }, GEOMETRY_NAMES);
}

/**
 * Applies a zone filter to zone data, sub-zone by sub-zone: `filterValues` holds the filter's
 * fields for the same depths and sub-zones (it may be `data` itself). A sub-zone where the
 * expression is not true gets null for every output field and is marked in its depth's
 * `excluded` (vector encodings leave it out). The fields in `drop` (read only for the filter)
 * are then removed from the answer. The work gives the event loop a turn every slice.
 */
export async function applyZoneFilter(data: ZoneData, filterValues: ZoneData, f: ZoneFilter, grid: Dggrs, drop: readonly string[], signal?: AbortSignal): Promise<ZoneData> {
  const outputs = Object.keys(data.fields).filter((n) => !drop.includes(n));
  data.depths.forEach((d, k) => {
    const source = filterValues.depths[k];
    if (!source || source.zones.length !== d.zones.length) throw new Error(`zone filter: values of depth ${d.depth} do not align with the answer`);
  });
  for (const [k, d] of data.depths.entries()) {
    const columns = f.fields.map((n) => filterValues.depths[k]!.values[n]);
    const excluded = new Uint8Array(d.zones.length);
    for (let i = 0; i < d.zones.length; i++) {
      if (turnDue()) await takeTurn(signal);
      const values: Record<string, number | null> = {};
      f.fields.forEach((n, j) => (values[n] = columns[j]?.[i] ?? null));
      if (zonePasses(f, grid, d.zones[i]!, values)) continue;
      excluded[i] = 1;
      for (const n of outputs) {
        const column = d.values[n];
        if (column) column[i] = null;
      }
    }
    d.excluded = excluded;
    for (const n of drop) delete d.values[n];
  }
  for (const n of drop) delete data.fields[n];
  return data;
}
