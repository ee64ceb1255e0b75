import { z } from '../schemas/zod.js';
import { RootResponse, ConformanceResponse } from '../schemas/collections.js';
import { defineRoute, json } from '../route.js';
import { KeptReplies } from '../kept-replies.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam } from '../schemas/query.js';
import { CONF } from '../../formats/conformance-classes.js';
import { offeredBy } from '../../formats/registry.js';
import { OPENAPI_31 } from '../openapi/media-type.js';
import { apiDocumentRoutes } from './api-document.js';
import type { RouteModule } from '../route-module.js';

export interface ServiceRouteDeps {
  title: string;
  description: string;
  /** Throws (503) until the datastore is initialised. */
  ready: () => Promise<void>;
  conformance: () => string[];
  openApi: () => object | Promise<object>;
}

/** Landing pages and conformance declarations kept encoded, per base URL and format. */
const KEPT_BYTES = 1024 * 1024;

const FORMATS = offeredBy('resource');
/** What the landing page and the conformance declaration share: a JSON resource with its HTML page. */
const capability = { method: 'get' as const, tags: ['Capabilities'], query: z.object({ f: formatParam(FORMATS) }), formats: FORMATS, validators: 'request' as const };

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

  return {
    routes: [landing, conformance, ...apiDocumentRoutes(deps.openApi)],
    caches: [{ name: 'landing', stats: () => kept.stats() }],
    conformance: [CONF.commonCore, CONF.commonLandingPage, CONF.commonJson, CONF.commonHtml, CONF.commonOas30, CONF.dggsOperationIds],
  };
}
