import { z } from '../schemas/zod.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { FeatureCollectionResponse, ITEMS_FORMATS, ItemsParams, ItemsQuery } from '../schemas/items.js';
import type { ItemsService } from '../../app/items/items-service.js';
import { carried, DECLARED, itemsServiceQuery } from '../items-query.js';
import { itemsPageLinks, parquetReply, presentItemsPage } from '../items-presenter.js';

const DEFAULT_LIMIT = 10;

/** GET /collections/{collection_id}/items: one page of a lake collection's rows. */
export function itemsPageRoute(service: ItemsService): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/items',
    operationId: 'getItems',
    summary: 'Raw rows of a parquet-lake collection, paged',
    description:
      'Rows of `<lake>/<collection>/data/**/*.parquet` in scan order (files by path, then row order). ' +
      'Filter with bbox, datetime and CQL2 (`filter`, `filter-lang`); page with limit/offset, following the `next` link.',
    tags: ['Items'],
    params: ItemsParams,
    query: ItemsQuery,
    // One concrete path per lake collection, listing its properties as equality parameters: GDAL's
    // OAPIF driver looks a layer's parameters up at /collections/<id>/items and pushes `-where`
    // to the server only for what it finds there (as `filter`, or `<property>=<value>`).
    documentedAt: async () =>
      (await service.propertyParameters()).map(({ id, columns }) => ({
        path: `/collections/${id}/items`,
        operationId: `getItems.${id}`,
        summary: `Raw rows of ${id}, paged`,
        query: ItemsQuery.extend(
          Object.fromEntries(
            columns
              .filter((c) => !DECLARED.has(c.name))
              .map((c) => [c.name, z.string().optional().openapi({ description: `Rows whose ${c.name} equals this value (${c.type})` })]),
          ),
        ),
      })),
    formats: ITEMS_FORMATS,
    defaultFormat: 'geojson',
    responses: responses({ description: 'One page of rows', schema: FeatureCollectionResponse, formats: ITEMS_FORMATS }, [400, 404, 406]),
    // GeoJSON pages carry the time they were written (`timeStamp`): equal, not identical.
    validators: { source: ({ params }, versions) => versions([params.collection_id]), weak: ({ format }) => format === 'geojson' },
    handler: async ({ params, query, format, links, req, signal }) => {
      const limit = query.limit ?? DEFAULT_LIMIT;
      const offset = query.offset ?? 0;
      const id = params.collection_id;
      const sq = { ...itemsServiceQuery(query, format, req), limit, offset };
      if (format === 'parquet' || format === 'geoparquet') {
        const { bytes, result } = await service.parquet(id, sq, format === 'geoparquet', false, signal);
        return parquetReply(bytes, format, id, `items-${offset}`, itemsPageLinks(result, format, links, carried(req), offset, limit));
      }
      return presentItemsPage(await service.page(id, sq, signal), format, links, carried(req), offset, limit);
    },
  });
}
