/** The published DGGS-JSON schema (OGC 21-038r1), as a JSON Schema 2020-12 validator for the HTTP tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SHARED } from './test-server.js';

export const DGGS_JSON_SCHEMA = path.join(SHARED, 'ogc-dggs/ogcapi-discrete-global-grid-systems/core/schemas/dggs-json/dggs-json.json');

/** The published schema's `nullable` is OpenAPI 3.0 only: `{type: T, nullable: true}` becomes `{type: [T, "null"]}`. */
function patchNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(patchNullable);
  if (!node || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, patchNullable(v)])) as Record<string, unknown>;
  if (o.nullable === true) {
    delete o.nullable;
    if (typeof o.type === 'string') o.type = [o.type, 'null'];
  }
  return o;
}

/**
 * A validator of DGGS-JSON documents. The schema refers to the 2020-12 meta-schema, which Ajv2020
 * already has; formats are not asserted (the contract writes dggrs as a CURIE like [ogc-dggrs:H3],
 * not a URI).
 */
export function dggsJsonValidator() {
  return new Ajv2020({ strict: false, validateFormats: false }).compile(patchNullable(JSON.parse(readFileSync(DGGS_JSON_SCHEMA, 'utf8'))) as object);
}
