/**
 * GET /collections/{collection_id}/items and /items/{feature_id}: raw rows of parquet-lake
 * collections (OGC API - Features core, GeoJSON, HTML, Filter with CQL2).
 */
import { CONF } from '../../formats/conformance-classes.js';
import { formatConformance } from '../../formats/registry.js';
import type { RouteModule } from '../route-module.js';
import type { ItemsService } from '../../app/items/items-service.js';
import { itemsPageRoute } from './items-page.js';
import { itemRoute } from './item.js';

export function itemRoutes(service: ItemsService): RouteModule {
  return {
    routes: [itemsPageRoute(service), itemRoute(service)],
    conformance: [
      CONF.featuresCore,
      ...formatConformance('items'),
      CONF.featuresOas30,
      CONF.featuresFilter,
      CONF.featuresFeaturesFilter,
      CONF.cql2Text,
      CONF.cql2Json,
      CONF.cql2Basic,
      CONF.cql2AdvancedComparison,
      CONF.cql2CaseInsensitive,
      CONF.cql2AccentInsensitive,
      CONF.cql2BasicSpatial,
      CONF.cql2BasicSpatialPlus,
      CONF.cql2Spatial,
      CONF.cql2Temporal,
      CONF.cql2Arithmetic,
      CONF.cql2PropertyProperty,
    ],
  };
}
