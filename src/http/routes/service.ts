import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from '../schemas/zod.js';
import { RootResponse, ConformanceResponse } from '../schemas/collections.js';
import { defineRoute, json } from '../route.js';
import { KeptReplies } from '../kept-replies.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam } from '../schemas/query.js';
import { CONF } from '../../formats/conformance-classes.js';
import { offeredBy } from '../../formats/registry.js';
import { OPENAPI_31, openApiMediaType } from '../openapi/media-type.js';
import { NotFoundError } from '../../ports/errors.js';
import type { RouteModule } from '../route-module.js';

export interface ServiceRouteDeps {
  title: string;
  description: string;
  /** Throws (503) until the datastore is initialised. */
  ready: () => Promise<void>;
  conformance: () => string[];
  openApi: () => object | Promise<object>;
}

const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};

/** Landing pages and conformance declarations kept encoded, per base URL and format. */
const KEPT_BYTES = 1024 * 1024;

const FORMATS = offeredBy('resource');
/** What the landing page and the conformance declaration share: a JSON resource with its HTML page. */
const capability = { method: 'get' as const, tags: ['Capabilities'], query: z.object({ f: formatParam(FORMATS) }), formats: FORMATS };

/** Landing page, conformance declaration and the API document with its offline viewer. */
export function serviceRoutes(deps: ServiceRouteDeps): RouteModule {
  // Both answers depend only on the base URL and the format (the conformance classes are fixed
  // once the routes are assembled): each is built and encoded once.
  const kept = new KeptReplies(KEPT_BYTES);

  const landing = defineRoute({
    ...capability,
    path: '/',
    operationId: 'getLandingPage',
    summary: 'Landing page',
    responses: responses({ description: 'Links to the API capabilities', schema: RootResponse, formats: FORMATS }, [406]),
    handler: ({ links, format }) => kept.get(`/\n${format}\n${links.baseUrl}`, () => {
      const body = {
        title: deps.title,
        description: deps.description,
        links: [
          ...links.selfAndAlternates('/', format, FORMATS, {}, 'Landing page'),
          links.link('service-desc', '/api/openapi.json', { type: OPENAPI_31, title: 'API definition (JSON)' }),
          links.link('service-doc', '/api', { type: 'text/html', title: 'API documentation' }),
          links.link('conformance', '/conformance', { type: 'application/json', title: 'Conformance classes' }),
          links.link('http://www.opengis.net/def/rel/ogc/1.0/conformance', '/conformance', { type: 'application/json', title: 'Conformance classes' }),
          links.link('data', '/collections', { type: 'application/json', title: 'Collections' }),
          links.link('http://www.opengis.net/def/rel/ogc/1.0/data', '/collections', { type: 'application/json', title: 'Collections' }),
          links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs-list', '/dggs', { type: 'application/json', title: 'Discrete global grid reference systems' }),
          links.link('concepts', '/concepts', { type: 'application/json', title: 'Concepts' }),
        ],
      };
      if (format === 'html') return renderHtml('landing', { ...body, title: deps.title, crumbs: [['Home', links.href('/')]] });
      return json(body);
    }),
  });

  const conformance = defineRoute({
    ...capability,
    path: '/conformance',
    operationId: 'getConformance',
    summary: 'Conformance classes implemented by this service',
    responses: responses({ description: 'The conformance classes', schema: ConformanceResponse, formats: FORMATS }, [406, 503]),
    handler: async ({ links, format }) => {
      await deps.ready();
      // The JSON answer names no URL: one for every base URL.
      return kept.get(`/conformance\n${format}\n${format === 'html' ? links.baseUrl : ''}`, () => {
        const conformsTo = deps.conformance();
        if (format === 'html') {
          return renderHtml('conformance', { title: 'Conformance', crumbs: [['Home', links.href('/')], ['Conformance', '']], conformsTo, links: links.selfAndAlternates('/conformance', format, FORMATS) });
        }
        return json({ conformsTo });
      });
    },
  });

  const apiDocument = defineRoute({
    method: 'get',
    path: '/api',
    operationId: 'getAPI',
    summary: 'API definition: an HTML viewer or the OpenAPI 3.1 JSON, by content negotiation',
    tags: ['Capabilities'],
    query: z.object({ f: formatParam(['html', 'json']) }),
    formats: ['json', 'html', 'openapi'],
    defaultFormat: 'html',
    responses: responses({ description: 'The API definition', schema: z.object({}).passthrough(), formats: ['openapi', 'json', 'html'] }, [406]),
    handler: async ({ format, links, query, req }) => {
      if (format === 'html') return { contentType: 'text/html', body: swaggerPage(links.href('/api/openapi.json'), links.href('/api/assets/')), headers: { Vary: 'Accept' } };
      return openApiReply(await deps.openApi(), query.f ? 'application/json' : openApiMediaType(req.header('accept')));
    },
  });

  const apiJson = defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getAPIDocument',
    summary: 'API definition as OpenAPI 3.1 JSON',
    tags: ['Capabilities'],
    responses: responses({ description: 'The OpenAPI document', schema: z.object({}).passthrough() }, []),
    handler: async ({ req }) => openApiReply(await deps.openApi(), openApiMediaType(req.header('accept'))),
  });

  const assets = defineRoute({
    method: 'get',
    path: '/api/assets/{asset}',
    operationId: 'getApiViewerAsset',
    summary: 'Static file of the offline API viewer',
    tags: ['Capabilities'],
    internal: true,
    params: z.object({ asset: z.string() }),
    responses: {},
    handler: async ({ params }) => {
      const type = SWAGGER_ASSETS[params.asset];
      if (!type) throw new NotFoundError('Not found', 'No such viewer asset.');
      return { contentType: type, body: readFileSync(path.join(swaggerDir, params.asset)), headers: { 'Cache-Control': 'public, max-age=86400' } };
    },
  });

  return {
    routes: [landing, conformance, apiDocument, apiJson, assets],
    conformance: [CONF.commonCore, CONF.commonLandingPage, CONF.commonJson, CONF.commonHtml, CONF.commonOas30, CONF.dggsOperationIds],
  };
}

/** The document varies with Accept (see openApiMediaType): caches must key on it. */
function openApiReply(document: object, contentType: string) {
  return { ...json(document, contentType), headers: { Vary: 'Accept' } };
}

function swaggerPage(specUrl: string, assetBase: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dggs-api · API</title>
<link rel="icon" href="${assetBase}favicon-32x32.png"><link rel="stylesheet" href="${assetBase}swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="${assetBase}swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#ui', deepLinking: true });</script>
</body></html>`;
}
