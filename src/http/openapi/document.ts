import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export const API_VERSION = '0.1.2';

export function buildOpenApiDocument(registry: OpenAPIRegistry): object {
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Discrete Global Grid Data API',
      version: API_VERSION,
      description: 'Geospatial data addressed by the zones of discrete global grid reference systems (OGC API - DGGS, OGC 21-038r1).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/' }],
  });
}
