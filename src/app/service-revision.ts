import { createHash } from 'node:crypto';
import type { Config } from './config/config-schema.js';
import type { Collection } from '../domain/collection.js';

/**
 * The revision of what the service answers from its code and configuration alone: the HTTP side
 * derives the entity tags of such answers (landing page, grids, zone info, collection documents)
 * from it, and those of data answers from it and the data's version.
 *
 * It hashes the API version and the parts of the configuration answers are computed from: the
 * grids, the collections (as written, and the extents their data gave at start), the lake root,
 * the zone-list page size, and what picks the zones and values of vector tiles (`tiles`, and the
 * zone-data bounds that set the depth a tile's raster values are sampled at). Nothing of how one process listens, logs, stores orders or
 * authenticates, and no credential: two replicas of one configuration on other ports give the
 * same tags. A key that changes successful answers belongs here.
 */
export function serviceRevision(apiVersion: string, config: Config): (collections: readonly Collection[]) => string {
  // Taken before the server listens: `{self}` is hashed as written, the same in every replica.
  const written = JSON.stringify({
    apiVersion,
    grids: config.grids,
    collections: config.collections,
    lakeRoot: config.lake.root,
    maxZonesPerPage: config.limits.maxZonesPerPage,
    tiles: config.tiles,
    tileValueDepth: [config.limits.maxSubZones, config.limits.maxZoneDataValues],
  });
  return (collections) => createHash('sha256').update(written).update(JSON.stringify(collections.map((c) => [c.id, c.extent ?? null]))).digest('base64url');
}
