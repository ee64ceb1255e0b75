/** The CoverageJSON JSON Schema (draft-07, test/fixtures/covjson), as a validator for the HTTP tests. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { REPO_ROOT } from './test-server.js';

export const COVERAGEJSON_SCHEMA = path.join(REPO_ROOT, 'test/fixtures/covjson/schema.json');

/**
 * A validator of CoverageJSON documents. The schema names its meta-schema without the trailing `#`
 * Ajv keys draft-07 by, so `$schema` is dropped (Ajv's default is draft-07); strict mode is off as the
 * schema uses `dependencies` and `if` without every branch typed.
 */
export function coverageJsonValidator() {
  const { $schema: _meta, ...schema } = JSON.parse(readFileSync(COVERAGEJSON_SCHEMA, 'utf8')) as Record<string, unknown>;
  return new Ajv({ strict: false, allErrors: true }).compile(schema);
}
