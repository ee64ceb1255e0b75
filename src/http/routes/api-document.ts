import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from '../schemas/zod.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { formatParam } from '../schemas/query.js';
import { openApiMediaType } from '../openapi/media-type.js';
import { NotFoundError } from '../../ports/errors.js';

const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};

/** The API document, as OpenAPI JSON or with its offline viewer, and the viewer's files. */
export function apiDocumentRoutes(openApi: () => object | Promise<object>): AnyRoute[] {
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
    validators: { variant: ({ req }) => openApiMediaType(req.header('accept')) },
    handler: async ({ format, links, query, req }) => {
      if (format === 'html') return { contentType: 'text/html', body: swaggerPage(links.href('/api/openapi.json'), links.href('/api/assets/')) };
      return openApiReply(await openApi(), query.f ? 'application/json' : openApiMediaType(req.header('accept')));
    },
  });

  const apiJson = defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getAPIDocument',
    summary: 'API definition as OpenAPI 3.1 JSON',
    tags: ['Capabilities'],
    responses: responses({ description: 'The OpenAPI document', schema: z.object({}).passthrough() }, []),
    validators: { variant: ({ req }) => openApiMediaType(req.header('accept')) },
    handler: async ({ req }) => openApiReply(await openApi(), openApiMediaType(req.header('accept'))),
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

  return [apiDocument, apiJson, assets];
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
