import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export const API_VERSION = '0.1.2';

export function buildOpenApiDocument(registry: OpenAPIRegistry): object {
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Discrete Global Grid Data API',
      version: API_VERSION,
      description: 'Geospatial data addressed by the zones of discrete global grid reference systems (OGC API - DGGS, OGC 21-038r1).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/' }],
  });
  return withKeywordNamedPropertiesAsPatterns(document);
}

/** Subtrees holding instances rather than schemas: their keys are data, never keywords. */
const INSTANCE_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Answers that are JSON Schema or DGGS-JSON documents carry members literally named `$id` and
 * `$schema`. Under `properties` those names are legal JSON Schema 2020-12, but reference
 * resolvers of OpenAPI tooling (@seriousme/openapi-schema-validator among them) scan the whole
 * document for `$id` keys and take the member's schema object for a base URI, so every `$ref`
 * below it stops resolving. The same constraint is stated without such keys: each `$`-named
 * property moves to `patternProperties` under a pattern matching exactly its name, and stays in
 * `required` (an array of strings, which resolvers do not read as keywords).
 */
export function withKeywordNamedPropertiesAsPatterns<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withKeywordNamedPropertiesAsPatterns) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  const moved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (INSTANCE_KEYS.has(key)) {
      out[key] = value;
    } else if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      const properties: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(value)) {
        if (name.startsWith('$')) moved[`^${escapeRegExp(name)}$`] = withKeywordNamedPropertiesAsPatterns(schema);
        else properties[name] = withKeywordNamedPropertiesAsPatterns(schema);
      }
      out.properties = properties;
    } else {
      out[key] = withKeywordNamedPropertiesAsPatterns(value);
    }
  }
  if (Object.keys(moved).length > 0) out.patternProperties = { ...moved, ...(out.patternProperties as object | undefined) };
  return out as T;
}
