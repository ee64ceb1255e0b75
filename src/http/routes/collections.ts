import { CollectionsResponse, Collection as CollectionSchema, collectionIdParams, formatQuery } from '../schemas/collections.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { tilesMap } from '../html/page-maps.js';
import { collectionScope } from '../grid-scope.js';
import { CONF } from '../../formats/conformance-classes.js';
import type { SourceFiles } from '../source-files.js';
import type { RouteModule } from '../route-module.js';
import type { CollectionsService } from '../../app/collections/collections-service.js';
import { COLLECTION_FORMATS as FORMATS, collectionBody, extentMap, KIND_LABEL, sourceOf } from '../collection-presenter.js';
import { collectionSchemaRoute } from './collection-schema.js';
import { collectionSourceFileRoute } from './collection-source-file.js';

/** `tilesGrid`: the grid whose vector tiles collections link to, and which the collection page's map draws. */
export function collectionRoutes(service: CollectionsService, sources: SourceFiles, tilesGrid: string): RouteModule {
  return {
    routes: [collectionListRoute(service, tilesGrid), collectionRoute(service, tilesGrid), collectionSchemaRoute(service, 'queryables'), collectionSchemaRoute(service, 'schema'), collectionSourceFileRoute(service, sources)],
    conformance: [CONF.collections, CONF.collectionsJson, CONF.collectionsHtml, CONF.featuresQueryables],
  };
}

/** GET /collections: the collections served. */
function collectionListRoute(service: CollectionsService, tilesGrid: string): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/collections',
    operationId: 'getCollectionsList',
    summary: 'The collections served (only `f` is honoured)',
    tags: ['Collections'],
    query: formatQuery,
    formats: FORMATS,
    responses: responses({ description: 'The collections', schema: CollectionsResponse, formats: FORMATS }, [406]),
    validators: 'request',
    handler: async ({ links, format }) => {
      const collections = service.list().map((c) => collectionBody(c, links, 'json', tilesGrid));
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
}

/** GET /collections/{collection_id}: one collection described. */
function collectionRoute(service: CollectionsService, tilesGrid: string): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/collections/{collection_id}',
    operationId: 'getCollection',
    summary: 'Describe one collection',
    tags: ['Collections'],
    params: collectionIdParams,
    query: formatQuery,
    formats: FORMATS,
    responses: responses({ description: 'The collection', schema: CollectionSchema, formats: FORMATS }, [404, 406]),
    validators: 'request',
    handler: async ({ params, links, format }) => {
      const c = service.get(params.collection_id);
      const body = collectionBody(c, links, format, tilesGrid);
      if (format === 'html') {
        const map = extentMap(c);
        return renderHtml('collection', {
          title: c.title,
          crumbs: [['Home', links.href('/')], ['Collections', links.href('/collections', { f: 'html' })], [c.title, '']],
          links: body.links,
          collection: body,
          kind: KIND_LABEL[c.backing.kind],
          source: sourceOf(c, links),
          map,
          // Only where the SVG extent map is (the interactive map takes its place).
          mapConfig: map && tilesMap(links, collectionScope(c), tilesGrid),
          dggsHref: links.href(`/collections/${encodeURIComponent(c.id)}/dggs`, { f: 'html' }),
          itemsHref: c.backing.kind === 'parquet-lake' ? links.href(`/collections/${encodeURIComponent(c.id)}/items`, { f: 'html' }) : undefined,
        });
      }
      return json(body);
    },
  });
}
