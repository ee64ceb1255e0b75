import { createReadStream } from 'node:fs';
import path from 'node:path';
import { z } from '../schemas/zod.js';
import { CollectionIdParam } from '../schemas/common.js';
import { Collection as CollectionSchema, CollectionsResponse, SchemaResponse } from '../schemas/collections.js';
import { defineRoute, json } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam } from '../schemas/query.js';
import { CONF } from '../../formats/conformance-classes.js';
import { publicSourceHref, type SourceFiles } from '../source-files.js';
import { byteRange } from '../byte-range.js';
import { frameAround, svgMap } from '../html/svg-map.js';
import { HttpRefusal } from '../http-errors.js';
import { NotFoundError } from '../../ports/errors.js';
import type { Links } from '../links.js';
import { offeredBy, type Format } from '../../formats/registry.js';
import type { RouteModule } from '../route-module.js';
import type { CollectionsService } from '../../app/collections/collections-service.js';
import type { Collection } from '../../domain/collection.js';

const FORMATS = offeredBy('resource');
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
  const hasItems = c.backing.kind === 'parquet-lake';
  if (hasItems) list.push(links.link('items', `${base}/items`, { type: 'application/geo+json', title: 'Raw rows' }));
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    attribution: c.attribution,
    item_type: c.backing.kind === 'parquet-lake' || c.backing.kind === 'ogc-features' ? 'feature' : 'coverage',
    // What OGC API clients read: `itemType` (Common, Features) promises an items endpoint, so only
    // collections with one carry it; GDAL's OAPIF driver skips `layerDataType` Coverage (it reads
    // neither itemType nor the items link). Without items, a collection is served here only as
    // zone data, i.e. values over zones: a coverage, whatever its source records are.
    ...(hasItems ? { itemType: 'feature', layerDataType: 'Vector' as const } : { layerDataType: 'Coverage' as const }),
    crs: [CRS84],
    extent: c.extent,
    links: list,
  };
}

/** Where the collection's data is read from, as a link a browser can follow; undefined for a local file that is not served. */
function sourceOf(c: Collection, links: Links): { href: string; title: string } | undefined {
  const b = c.backing;
  const local = (href: string, title: string) => {
    const url = publicSourceHref([c], href, (p) => links.href(p));
    return url ? { href: url, title } : undefined;
  };
  switch (b.kind) {
    case 'raster-url':
      return local(b.url, `Raster file ${b.url.split('/').pop()}`);
    case 'stac':
      return local(b.catalog, 'STAC catalog');
    case 'parquet-lake':
      return { href: links.href(`/collections/${encodeURIComponent(c.id)}/items`, { f: 'html' }), title: 'Rows (items)' };
    case 'ogc-features':
      return { href: `${b.url.replace(/\/+$/, '')}/collections/${encodeURIComponent(b.collection)}`, title: `OGC API Features collection ${b.collection}` };
  }
}

/** The spatial extent over a labelled graticule, framed with room around it (the whole globe for wide extents). */
function extentMap(c: Collection) {
  const boxes = c.extent?.spatial?.bbox ?? [];
  if (!boxes.length) return undefined;
  // A box crossing the antimeridian (west > east) is drawn east of its west edge.
  const rings = boxes.map(([w, s, e, n]) => {
    const east = e < w ? e + 360 : e;
    return [[w, s], [east, s], [east, n], [w, n], [w, s]];
  });
  const xs = rings.flatMap((r) => r.map((p) => p[0]!)), ys = rings.flatMap((r) => r.map((p) => p[1]!));
  const [fw, fs, fe, fn] = frameAround(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), 0.5, 10);
  const frame: [number, number, number, number] = fe - fw >= 300 ? [-180, -90, 180, 90] : [fw, fs, fe, fn];
  return svgMap({ polygons: rings.map((ring, i) => ({ rings: [ring], cls: 'ext', title: `Extent ${boxes[i]!.join(', ')}` })), frame, graticule: true, width: 560 });
}

export function collectionRoutes(service: CollectionsService, sources: SourceFiles): RouteModule {
  const list = defineRoute({
    method: 'get',
    path: '/collections',
    operationId: 'getCollectionsList',
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
          source: sourceOf(c, links),
          map: extentMap(c),
          dggsHref: links.href(`/collections/${encodeURIComponent(c.id)}/dggs`, { f: 'html' }),
          itemsHref: c.backing.kind === 'parquet-lake' ? links.href(`/collections/${encodeURIComponent(c.id)}/items`, { f: 'html' }) : undefined,
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

  const sourceFile = defineRoute({
    method: 'get',
    path: '/collections/{collection_id}/source/{name}',
    operationId: 'getCollectionSourceFile',
    summary: 'A local file the collection is read from (its raster, or its STAC catalog, items and assets), read-only, with byte ranges',
    description:
      'Only the files the collection\'s configuration names are served: a raster-url collection\'s file, and a static STAC catalog on disk with what it links. ' +
      '`name` is the path relative to the configured file\'s directory (one URL segment: `/` written `%2F`). `Range: bytes=a-b` answers 206, so GDAL and QGIS can read a COG in place (`/vsicurl/`). Remote sources are linked directly, never served here.',
    tags: ['Collections'],
    params: z.object({ collection_id: CollectionIdParam, name: z.string().max(1024).openapi({ param: { name: 'name', in: 'path' }, description: 'File path relative to the configured file\'s directory', example: 'elevation.tif' }) }),
    responses: {
      200: { description: 'The whole file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      206: { description: 'The requested byte range', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      ...responses({ description: 'unused', schema: z.object({}) }, [404, 416]),
    },
    handler: async ({ params, req }) => {
      const c = service.get(params.collection_id);
      const f = await sources.open(c, params.name);
      if (!f) throw new NotFoundError('Source file not found', `Collection "${c.id}" serves only the local files its configuration names; its links with rel "source" point to them.`);
      const etag = `"${f.size.toString(16)}-${Math.floor(f.mtimeMs).toString(16)}"`;
      const headers: Record<string, string> = {
        'Accept-Ranges': 'bytes',
        ETag: etag,
        'Last-Modified': new Date(f.mtimeMs).toUTCString(),
        'Cache-Control': 'public, max-age=3600',
        'Content-Disposition': `inline; filename="${path.basename(f.file).replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      };
      if (req.header('if-none-match') === etag) return { status: 304, contentType: f.type, body: '', headers };
      const ifRange = req.header('if-range');
      const range = ifRange === undefined || ifRange === etag ? byteRange(req.header('range'), f.size) : undefined;
      if (range === 'unsatisfiable') throw new HttpRefusal(416, 'Range not satisfiable', `The file has ${f.size} bytes; ask for bytes=0-${Math.max(0, f.size - 1)} or a part of them.`, { 'Content-Range': `bytes */${f.size}` });
      if (range) {
        headers['Content-Range'] = `bytes ${range.start}-${range.end}/${f.size}`;
        headers['Content-Length'] = String(range.end - range.start + 1);
        return { status: 206, contentType: f.type, body: createReadStream(f.file, range), headers };
      }
      headers['Content-Length'] = String(f.size);
      return { contentType: f.type, body: createReadStream(f.file), headers };
    },
  });

  return {
    routes: [list, one, schemaRoute('queryables'), schemaRoute('schema'), sourceFile],
    conformance: [CONF.collections, CONF.collectionsJson, CONF.collectionsHtml, CONF.featuresQueryables],
  };
}
