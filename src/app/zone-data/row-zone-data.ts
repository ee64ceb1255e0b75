/**
 * What the sources of rows (lake rows, OGC API Features) do alike around their reads: the boxes a
 * zone query reads, the per-sub-zone aggregator of a request, the median bound as an API fault,
 * and the answer. Each source reads its rows its own way in between.
 */
import type { FieldMeta } from '../../domain/collection.js';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import { widenBox, zoneSpanDegrees, type DepthValues, type SourceLink, type ZoneData, type ZoneDataRequest, type ZoneRowsQuery } from '../../domain/zone-data.js';
import { isStatistic } from '../../domain/aggregation/statistics.js';
import { MedianBoundError } from '../../domain/aggregation/median-store.js';
import { subZonesBox } from '../../domain/aggregation/sub-zones-box.js';
import { listSubZones, pointFieldPlan, ZonePointAggregator, type PointFieldPlan } from '../../domain/aggregation/zone-points.js';
import { ValidationError } from '../../ports/errors.js';
import { runStepped } from '../../ports/event-loop-turns.js';

/**
 * The boxes whose rows a zone query reads: the parent's sub-zones, or each query box widened by
 * one zone, so a zone that meets the box with its rows just outside it counts too.
 */
export async function zoneQueryBoxes(query: ZoneRowsQuery): Promise<BBox[]> {
  const { grid, level } = query;
  return query.parent ? [await runStepped(subZonesBox(grid, query.parent.zoneId, [query.parent.depth]))] : query.boxes.map((b) => widenBox(b, zoneSpanDegrees(grid, level)));
}

/** The fields a request asks of `fields` (the source's numeric ones), and the aggregator of its sub-zones. */
export async function rowAggregation(request: ZoneDataRequest, fields: Record<string, FieldMeta>, maxMedianValues: number): Promise<{ plan: PointFieldPlan[]; agg: ZonePointAggregator }> {
  const { grid, zoneId } = request;
  const plan = pointFieldPlan(fields, request.fields, request.options.stats?.filter(isStatistic));
  return { plan, agg: new ZonePointAggregator(grid, await runStepped(listSubZones(grid, zoneId, request.depths)), plan, maxMedianValues) };
}

/** The box holding every sub-zone a request asks for: the rows read. */
export function requestBox(request: ZoneDataRequest): Promise<BBox> {
  return runStepped(subZonesBox(request.grid, request.zoneId, request.depths));
}

/** A median past its bound is the request's fault (422 naming the bound); anything else as it was. */
export function medianBoundFault(e: unknown): unknown {
  return e instanceof MedianBoundError ? new ValidationError(e.message, e.hint) : e;
}

/** The zone data of aggregated rows. */
export function rowZoneData(request: ZoneDataRequest, plan: PointFieldPlan[], depths: DepthValues[], source: SourceLink): ZoneData {
  return { dggrsId: request.grid.id, zoneId: request.zoneId, fields: Object.fromEntries(plan.map((f) => [f.name, f.meta])), depths, sources: [source] };
}
