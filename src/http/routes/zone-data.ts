import { CONF } from '../../formats/conformance-classes.js';
import type { RouteModule } from '../route-module.js';
import type { ZoneDataService } from '../../app/zone-data/zone-data-service.js';
import type { ZoneFeaturesService } from '../../app/items/zone-features-service.js';
import { ZONE_DATA_CONFORMANCE } from '../../formats/zone-data/encodings.js';
import { collectionZoneDataRoute } from './zone-data-collection.js';
import { adHocZoneDataRoute } from './zone-data-ad-hoc.js';
import { crossCollectionZoneDataRoute } from './zone-data-cross-collection.js';

/** Zone data: the collection-backed GET and the ad-hoc raster GET; DGGS-JSON-FG and DGGS-UBJSON-FG when `features` is given. */
export function zoneDataRoutes(service: ZoneDataService, features?: ZoneFeaturesService): RouteModule {
  return {
    routes: [collectionZoneDataRoute(service, features), adHocZoneDataRoute(service), crossCollectionZoneDataRoute(service)],
    conformance: [
      CONF.dggsDataRetrieval, CONF.dggsDataCustomDepths, CONF.dggsDataSubsetting, CONF.dggsDataCql2Filter, ...ZONE_DATA_CONFORMANCE,
      ...(features ? [CONF.dggsDataJsonFg, CONF.dggsDataUbjsonFg] : []),
    ],
  };
}
