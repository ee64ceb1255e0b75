import { KeptReplies } from '../kept-replies.js';
import { CONF } from '../../formats/conformance-classes.js';
import { formatConformance } from '../../formats/registry.js';
import type { AnyRoute } from '../route.js';
import type { RouteModule } from '../route-module.js';
import type { ZonesService } from '../../app/zones/zones-service.js';
import type { ZoneInfoService } from '../../app/zones/zone-info.js';
import { dggsForm } from '../grid-scope.js';
import { gridListRoute, gridRoute } from './grids.js';
import { zoneListRoute, type ZoneListLimits } from './zones.js';
import { zoneInfoRoute } from './zone-info.js';

/** Grid and zone routes: the bare form, then the collection-scoped one, each grids, grid, zones, zone. */
export function dggsRoutes(zones: ZonesService, zoneInfo: ZoneInfoService, zoneInfoCacheBytes: number, listLimits: ZoneListLimits): RouteModule {
  const cache = zoneInfoCacheBytes > 0 ? new KeptReplies(zoneInfoCacheBytes) : undefined;
  const routes: AnyRoute[] = [false, true].flatMap((scoped) => {
    const form = dggsForm(scoped, zones);
    return [gridListRoute(form, zones), gridRoute(form, zones), zoneListRoute(form, zones, listLimits), zoneInfoRoute(form, zoneInfo, cache)];
  });
  return {
    routes,
    caches: cache ? [{ name: 'zone_info', stats: () => cache.stats() }] : [],
    conformance: [CONF.dggsCore, CONF.dggsRoot, CONF.dggsCollection, CONF.dggsZoneQuery, CONF.dggsZoneQueryCql2Filter, ...formatConformance('zone-list'), ...formatConformance('zone-info')],
  };
}
