import { defineRoute, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { FeatureResponse, ITEMS_FORMATS, ItemParams, ItemQuery } from '../schemas/items.js';
import type { ItemsService } from '../../app/items/items-service.js';
import { carried, itemsServiceQuery } from '../items-query.js';
import { parquetReply, presentItem } from '../items-presenter.js';

/** GET /collections/{collection_id}/items/{feature_id}: one row by its index. */
export function itemRoute(service: ItemsService): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/items/{feature_id}',
    operationId: 'getItem',
    summary: 'One raw row by its 0-based index in scan order (within the filtered set)',
    description: 'The id is stable only while the set of files under the lake prefix does not change; do not store it.',
    tags: ['Items'],
    params: ItemParams,
    query: ItemQuery,
    formats: ITEMS_FORMATS,
    defaultFormat: 'geojson',
    responses: responses({ description: 'One row', schema: FeatureResponse, formats: ITEMS_FORMATS }, [400, 404, 406]),
    validators: { source: ({ params }, versions) => versions([params.collection_id]) },
    handler: async ({ params, query, format, links, req, signal }) => {
      const id = params.collection_id;
      const fid = params.feature_id;
      const sq = itemsServiceQuery(query, format, req);
      if (format === 'parquet' || format === 'geoparquet') {
        const { bytes } = await service.parquet(id, { ...sq, offset: fid, limit: 1 }, format === 'geoparquet', true, signal);
        return parquetReply(bytes, format, id, `item-${fid}`);
      }
      return presentItem(await service.item(id, fid, sq, signal), fid, format, links, carried(req));
    },
  });
}
