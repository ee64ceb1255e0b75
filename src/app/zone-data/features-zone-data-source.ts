/**
 * Zone data of `ogc-features` collections: the backend's features in the zone's sub-zone box
 * (and `datetime`) are streamed page by page; each feature counts in the sub-zone of its
 * representative point (the point, or the centroid of a line or polygon), and each selected
 * numeric property is aggregated per sub-zone, exactly as for parquet-lake rows. A CQL2 `filter`
 * restricts the features (pushed to the backend where it can evaluate it). The scans of one client
 * request share its page budget (`request.reads`) and stop when the client leaves.
 */
import type { Collection, FieldMeta } from '../../domain/collection.js';
import type { ZoneData, ZoneDataRequest, ZoneRowsQuery } from '../../domain/zone-data.js';
import { ZonesMet } from '../../domain/aggregation/zone-points.js';
import { representativePoint } from '../../domain/geometry/representative-point.js';
import type { ZoneDataSource } from '../../ports/zone-data-source.js';
import type { FeatureQuery, FeatureSource } from '../../ports/feature-source.js';
import { medianBoundFault, requestBox, rowAggregation, rowZoneData, zoneQueryBoxes } from './row-zone-data.js';

export class FeaturesZoneDataSource implements ZoneDataSource {
  constructor(
    private readonly features: FeatureSource,
    /** The href of a backend collection's items as a `source` link (relative for the service's own items). */
    private readonly sourceHref: (collection: Collection) => string,
    /** Values a request may keep for medians, over all its depths and fields (the service passes limits.maxMedianValues). */
    private readonly limits: { maxMedianValues: number } = { maxMedianValues: Number.POSITIVE_INFINITY },
  ) {}

  /** Numeric queryables: what can be aggregated. */
  async fields(collection: Collection): Promise<Record<string, FieldMeta>> {
    const all = await this.features.fields(collection);
    return Object.fromEntries(Object.entries(all).filter(([, m]) => m.type === 'number' || m.type === 'integer').map(([k, m]) => [k, { ...m, svc_dggs_stat: m.svc_dggs_stat ?? 'mean' }]));
  }

  /** A CQL2 filter on the features may name any queryable: the backend evaluates what it can, the rest is evaluated here. */
  async filterQueryables(collection: Collection): Promise<string[]> {
    return Object.keys(await this.features.fields(collection));
  }

  /**
   * Zones of the query level holding a matching feature, as for lake rows: one scan of the
   * backend per box of the area (the parent's sub-zones, or each query box widened by one zone, so
   * a zone meeting the box with its features just outside counts too), with the filter and
   * datetime pushed where the backend can evaluate them; each feature names the zone of its
   * representative point.
   */
  async zonesWithRows(collection: Collection, query: ZoneRowsQuery): Promise<Set<string>> {
    const { grid, level } = query;
    const boxes = await zoneQueryBoxes(query);
    const found = new Set<string>();
    const met = new ZonesMet(grid, level);
    for (const bbox of boxes) {
      await this.features.scan(collection, { bbox, properties: [], ...scope(query) }, (features) => {
        const x = new Float64Array(features.length), y = new Float64Array(features.length);
        let n = 0;
        for (const f of features) {
          const p = f.geometry ? representativePoint(f.geometry) : undefined;
          if (!p) continue; // no geometry: the feature has no place
          x[n] = p[0];
          y[n++] = p[1];
        }
        met.add(x, y, n);
        for (const z of met.zoneIds()) found.add(z);
      });
    }
    return found;
  }

  async zoneData(collection: Collection, request: ZoneDataRequest): Promise<ZoneData> {
    const { plan, agg } = await rowAggregation(request, await this.fields(collection), this.limits.maxMedianValues);
    const sources = agg.sources;
    if (sources.length > 0) {
      const scan = this.features.scan(
        collection,
        {
          bbox: await requestBox(request),
          properties: sources,
          ...scope(request),
        },
        (features) => {
          for (const f of features) {
            const p = f.geometry ? representativePoint(f.geometry) : undefined;
            if (!p) continue; // no geometry: the feature has no place
            agg.add(p[0], p[1], (i) => {
              const v = f.properties[sources[i]!];
              return typeof v === 'number' ? v : NaN;
            });
          }
        },
      );
      await scan.catch((e: unknown) => {
        throw medianBoundFault(e);
      });
    }
    return rowZoneData(request, plan, agg.result(), { href: this.sourceHref(collection), rel: 'source', type: 'application/geo+json', title: `Features of ${collection.id} from its OGC API Features backend` });
  }
}

/** The parts of a feature query a zone-data request or zone query sets beyond its box and properties. */
function scope(r: Pick<ZoneDataRequest, 'datetime' | 'filter' | 'reads' | 'signal'>): Omit<FeatureQuery, 'bbox' | 'properties'> {
  return { ...(r.datetime ? { datetime: r.datetime } : {}), ...(r.filter ? { filter: r.filter } : {}), ...(r.reads ? { reads: r.reads } : {}), ...(r.signal ? { signal: r.signal } : {}) };
}
