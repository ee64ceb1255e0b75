import { SchemaResponse, collectionIdParams, formatQuery } from '../schemas/collections.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import type { CollectionsService } from '../../app/collections/collections-service.js';
import { COLLECTION_FORMATS as FORMATS } from '../collection-presenter.js';

/** The queryables or the schema of a collection: the fields it has. */
export function collectionSchemaRoute(service: CollectionsService, kind: 'queryables' | 'schema'): AnyRoute {
  return defineRoute({
    method: 'get',
    path: `/collections/{collection_id}/${kind}`,
    operationId: kind === 'queryables' ? 'getQueryables' : 'getCollectionSchema',
    summary: kind === 'queryables' ? 'Fields usable in properties, exclude-properties and CQL2 filters' : 'Schema of the collection fields',
    tags: ['Collections'],
    params: collectionIdParams,
    query: formatQuery,
    formats: FORMATS,
    responses: responses({ description: kind === 'queryables' ? 'The queryables' : 'The schema', schema: SchemaResponse, formats: FORMATS }, [404, 406]),
    // A lake's fields are its files' columns.
    validators: { source: ({ params }, versions) => versions([params.collection_id]) },
    handler: async ({ params, links, format }) => {
      const c = service.get(params.collection_id);
      const fields = kind === 'queryables' ? withZoneGeometry(await service.fields(c.id)) : await service.fields(c.id);
      const path = `/collections/${encodeURIComponent(c.id)}/${kind}`;
      const body = {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: links.href(path),
        type: 'object',
        title: `${kind === 'queryables' ? 'Queryables' : 'Schema'} of ${c.title}`,
        description: kind === 'queryables' ? QUERYABLES_DESCRIPTION : 'Fields of the collection.',
        properties: fields,
        additionalProperties: false,
      };
      if (format === 'html') {
        return renderHtml('schema', {
          title: body.title,
          crumbs: [['Home', links.href('/')], ['Collections', links.href('/collections', { f: 'html' })], [c.title, links.href(`/collections/${encodeURIComponent(c.id)}`, { f: 'html' })], [kind, '']],
          links: links.selfAndAlternates(path, format, FORMATS),
          schema: body,
        });
      }
      return json(body, 'application/schema+json');
    },
  });
}

/**
 * Every name is a row queryable (items, the cross-collection body); the zone-data and zone-list
 * filters (OGC API - DGGS) test each zone's values of the numeric fields and its outline as
 * `geometry` (README, "Filters"; docs/decisions.md).
 */
const QUERYABLES_DESCRIPTION = 'Names accepted by properties, exclude-properties and CQL2 filters (zone filters: the numeric fields and geometry, the zone outline).';

/**
 * The queryables with `geometry`, the spatial queryable of zone filters (a zone's outline), for
 * collections whose fields have none (rasters, STAC); a row collection's own geometry column stays.
 */
function withZoneGeometry(fields: Record<string, unknown>): Record<string, unknown> {
  if ('geometry' in fields) return fields;
  return { ...fields, geometry: { title: 'Zone outline', format: 'geometry-any' } };
}
