/**
 * Zone data of parquet-lake collections: every row whose geometry's representative point (the
 * point, or the centroid of a line/polygon) falls in a sub-zone counts towards that sub-zone,
 * and each selected numeric field is aggregated per sub-zone (count, valid, min, max, mean,
 * stdDev, and median when asked).
 *
 * The rows are prefiltered in SQL by the parent zone's bbox (GeoParquet covering columns let
 * DuckDB skip row groups), then streamed chunk by chunk: memory is one accumulator per
 * sub-zone and field, independent of the row count (except median, which keeps values).
 * Zone-from-point runs per row over the chunk's coordinates.
 */
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { BBox, Dggrs } from '../../domain/dggrs/dggrs.js';
import type { DepthValues, ZoneData, ZoneDataRequest } from '../../domain/zone-data.js';
import { isStatistic, StatAccumulator, type Statistic } from '../../domain/aggregation/statistics.js';
import { decodeWkb } from '../../domain/geometry/wkb.js';
import { representativePoint, wkbPointXY, type LonLatPoint } from '../../domain/geometry/representative-point.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { LakeReader, LakeValue } from '../../ports/lake-reader.js';

interface OutField {
  name: string;
  source: string;
  stat: Statistic;
  meta: FieldMeta;
}

export class LakeZoneDataSource implements ZoneDataSource {
  constructor(private readonly lake: LakeReader) {}

  /** Numeric columns: what can be aggregated. */
  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const all = await this.lake.fields(collection);
    return Object.fromEntries(Object.entries(all).filter(([, m]) => m.type === 'number' || m.type === 'integer').map(([k, m]) => [k, { ...m, svc_dggs_stat: 'mean' }]));
  }

  async zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    const { grid, zoneId } = request;
    const dataset = await this.lake.describe(collection);
    const known = await this.fields(collection);
    const out = outputFields(known, request.fields, request.options.stats?.filter(isStatistic));
    const sources = [...new Set(out.map((f) => f.source))];
    const wantMedian = out.some((f) => f.stat === 'median');

    const level = grid.zoneLevel(zoneId);
    const perDepth = request.depths.map((depth) => {
      const zones = grid.subZones(zoneId, depth);
      return {
        depth,
        level: level + depth,
        zones,
        slot: new Map(zones.map((z, i) => [z, i])),
        acc: sources.map(() => new StatAccumulator(zones.length, wantMedian)),
      };
    });

    const geometry = dataset.geometryColumn;
    if (geometry && sources.length > 0) {
      const bbox = prefilterBox(grid, zoneId, request.depths);
      await this.lake.scan(
        collection,
        { columns: [geometry, ...sources], bbox, ...(request.datetime ? { datetime: request.datetime } : {}) },
        (chunk) => {
          const geoms = chunk.columns[geometry]!;
          const values = sources.map((s) => chunk.columns[s]!);
          for (let r = 0; r < chunk.size; r++) {
            const p = pointOf(geoms[r]!);
            if (!p) continue;
            for (const d of perDepth) {
              const i = d.slot.get(grid.zoneFromPoint(p[0], p[1], d.level));
              if (i === undefined) continue; // the point's zone is not a sub-zone of this zone
              for (let f = 0; f < sources.length; f++) {
                const v = values[f]![r];
                d.acc[f]!.add(i, typeof v === 'number' ? v : NaN);
              }
            }
          }
        },
      );
    }

    const depths: DepthValues[] = perDepth.map((d) => ({
      depth: d.depth,
      zones: d.zones,
      values: Object.fromEntries(out.map((f) => [f.name, d.acc[sources.indexOf(f.source)]?.result(f.stat) ?? d.zones.map(() => null)])),
    }));
    return {
      dggrsId: grid.id,
      zoneId,
      fields: Object.fromEntries(out.map((f) => [f.name, f.meta])),
      depths,
      sources: [{ href: `/collections/${encodeURIComponent(collection.id)}/items`, rel: 'source', type: 'application/geo+json', title: `Rows of ${dataset.source}` }],
    };
  }
}

function pointOf(v: LakeValue): LonLatPoint | undefined {
  if (!(v instanceof Uint8Array)) return undefined;
  const fast = wkbPointXY(v);
  if (fast) return fast;
  try {
    return representativePoint(decodeWkb(v));
  } catch {
    return undefined; // undecodable geometry: the row has no place
  }
}

/** As for rasters: a field alone is its mean; with `stats`, one `<field>_<stat>` per statistic. */
function outputFields(known: Record<string, FieldMeta>, selected: string[], stats: Statistic[] | undefined): OutField[] {
  const out: OutField[] = [];
  for (const name of selected) {
    const meta = known[name];
    if (!meta) continue;
    if (stats && stats.length > 0) {
      for (const stat of stats) {
        const counting = stat === 'count' || stat === 'valid';
        out.push({ name: `${name}_${stat}`, source: name, stat, meta: { ...meta, title: `${meta.title} (${stat})`, type: counting ? 'integer' : 'number', svc_dggs_stat: stat } });
      }
    } else out.push({ name, source: name, stat: 'mean', meta: { ...meta, type: 'number', svc_dggs_stat: 'mean' } });
  }
  return out;
}

/** Sub-zones described exactly for the prefilter box; deeper levels use a margin instead. */
const EXACT_ZONES = 4096;

/**
 * A box holding every sub-zone: sub-zones are not nested in their parent's outline (H3
 * children and 7H centroid children stick out), so the parent's own bbox would lose rows.
 * Exact union of sub-zone extents where there are few; for deep levels, the union at the
 * deepest affordable depth widened by one such zone's size (finer descendants protrude less).
 */
export function prefilterBox(grid: Dggrs, zoneId: string, depths: number[]): BBox {
  const boxes: BBox[] = [grid.describeZone(zoneId).bbox];
  let margin = 0;
  for (const depth of depths) {
    let k = depth;
    while (k > 1 && grid.subZoneCount(zoneId, k) > EXACT_ZONES) k--;
    const zoneBoxes = grid.subZones(zoneId, k).map((z) => grid.describeZone(z).bbox);
    boxes.push(...zoneBoxes);
    if (k < depth) for (const b of zoneBoxes) margin = Math.max(margin, b[3] - b[1], b[0] <= b[2] ? b[2] - b[0] : 360);
  }
  if (boxes.some((b) => b[0] > b[2])) return [-180, -90, 180, 90]; // crosses the antimeridian: latitude bounds would still help, keep it simple
  const w = Math.min(...boxes.map((b) => b[0])) - margin, e = Math.max(...boxes.map((b) => b[2])) + margin;
  const south = Math.max(-90, Math.min(...boxes.map((b) => b[1])) - margin), north = Math.min(90, Math.max(...boxes.map((b) => b[3])) + margin);
  return e - w >= 360 || w < -180 || e > 180 ? [-180, south, 180, north] : [w, south, e, north];
}
