import { z } from '../schemas/zod.js';
import { CollectionIdParam } from '../schemas/common.js';
import { Collection as CollectionSchema, CollectionsResponse, SchemaResponse } from '../schemas/collections.js';
import { defineRoute, json } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam } from '../schemas/query.js';
import { CONF } from '../conformance-classes.js';
import type { Links } from '../links.js';
import type { Format } from '../formats.js';
import type { RouteModule } from '../route-module.js';
import type { CollectionsService } from '../../../app/use-cases/collections-service.js';
import type { Collection } from '../../../domain/collection.js';

const FORMATS = ['json', 'html'] as const satisfies readonly Format[];
const fQuery = z.object({ f: formatParam(FORMATS) });
const idParams = z.object({ collection_id: CollectionIdParam });
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

const KIND_LABEL: Record<Collection['backing']['kind'], string> = {
  'parquet-lake': 'parquet lake',
  'raster-url': 'raster (COG)',
  stac: 'STAC catalog',
  'ogc-features': 'OGC API Features',
};

/** The contract's Collection body with its links. */
export function collectionBody(c: Collection, links: Links, format: Format): CollectionSchema {
  const base = `/collections/${encodeURIComponent(c.id)}`;
  const list = [
    ...links.selfAndAlternates(base, format, FORMATS, {}, c.title),
    links.link('http://www.opengis.net/def/rel/ogc/1.0/queryables', `${base}/queryables`, { type: 'application/schema+json', title: 'Queryables' }),
    links.link('describedby', `${base}/schema`, { type: 'application/schema+json', title: 'Schema' }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs-list', `${base}/dggs`, { type: 'application/json', title: 'Grids of this collection' }),
  ];
  if (c.backing.kind === 'parquet-lake') list.push(links.link('items', `${base}/items`, { type: 'application/geo+json', title: 'Raw rows' }));
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    attribution: c.attribution,
    item_type: c.backing.kind === 'parquet-lake' || c.backing.kind === 'ogc-features' ? 'feature' : 'coverage',
    crs: [CRS84],
    extent: c.extent,
    links: list,
  };
}

export function collectionRoutes(service: CollectionsService): RouteModule {
  const list = defineRoute({
    method: 'get',
    path: '/collections',
    operationId: 'getCollections',
    summary: 'The collections served (only `f` is honoured)',
    tags: ['Collections'],
    query: fQuery,
    formats: FORMATS,
    responses: responses({ description: 'The collections', schema: CollectionsResponse, formats: FORMATS }, [406]),
    handler: async ({ links, format }) => {
      const collections = service.list().map((c) => collectionBody(c, links, 'json'));
      const selfLinks = links.selfAndAlternates('/collections', format, FORMATS, {}, 'Collections');
      if (format === 'html') {
        return renderHtml('collections', {
          title: 'Collections',
          crumbs: [['Home', links.href('/')], ['Collections', '']],
          links: selfLinks,
          collections: service.list().map((c) => ({ ...c, kind: KIND_LABEL[c.backing.kind], href: links.href(`/collections/${encodeURIComponent(c.id)}`, { f: 'html' }) })),
        });
      }
      return json({ collections, links: selfLinks });
    },
  });

  const one = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}',
    operationId: 'getCollection',
    summary: 'Describe one collection',
    tags: ['Collections'],
    params: idParams,
    query: fQuery,
    formats: FORMATS,
    responses: responses({ description: 'The collection', schema: CollectionSchema, formats: FORMATS }, [404, 406]),
    handler: async ({ params, links, format }) => {
      const c = service.get(params.collection_id);
      const body = collectionBody(c, links, format);
      if (format === 'html') {
        return renderHtml('collection', {
          title: c.title,
          crumbs: [['Home', links.href('/')], ['Collections', links.href('/collections', { f: 'html' })], [c.title, '']],
          links: body.links,
          collection: body,
          kind: KIND_LABEL[c.backing.kind],
        });
      }
      return json(body);
    },
  });

  const schemaRoute = (kind: 'queryables' | 'schema') =>
    defineRoute({
      method: 'get',
      path: `/collections/{collection_id}/${kind}`,
      operationId: kind === 'queryables' ? 'getQueryables' : 'getCollectionSchema',
      summary: kind === 'queryables' ? 'Fields usable in properties, exclude-properties and CQL2 filters' : 'Schema of the collection fields',
      tags: ['Collections'],
      params: idParams,
      query: fQuery,
      formats: FORMATS,
      responses: responses({ description: kind === 'queryables' ? 'The queryables' : 'The schema', schema: SchemaResponse, formats: FORMATS }, [404, 406]),
      handler: async ({ params, links, format }) => {
        const c = service.get(params.collection_id);
        const fields = await service.fields(c.id);
        const path = `/collections/${encodeURIComponent(c.id)}/${kind}`;
        const body = {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: links.href(path),
          type: 'object',
          title: `${kind === 'queryables' ? 'Queryables' : 'Schema'} of ${c.title}`,
          description: kind === 'queryables' ? 'Names accepted by properties, exclude-properties and CQL2 filters.' : 'Fields of the collection.',
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

  return {
    routes: [list, one, schemaRoute('queryables'), schemaRoute('schema')],
    conformance: [CONF.collections, CONF.collectionsJson, CONF.collectionsHtml, CONF.featuresQueryables],
  };
}
