import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import { ApiError } from './schemas/common.js';
import { FORMAT_RECORDS, mediaType, type Format } from '../formats/registry.js';

type Responses = RouteConfig['responses'];

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid bearer token',
  403: 'Forbidden',
  404: 'Not found',
  406: 'Requested format is not supported',
  413: 'Request body too large',
  422: 'Validation error',
  429: 'Quota exceeded',
  500: 'Internal server error',
  503: 'Service unavailable: datastore not initialized, or too busy (Retry-After says when to come back)',
};

/** OpenAPI responses: the success body in each offered format, and ApiError for each listed status. */
export function responses(success: { description: string; schema: ZodType; formats?: readonly Format[]; status?: number }, errors: number[]): Responses {
  const content: Record<string, { schema: ZodType | { type: 'string'; format?: string } }> = {};
  for (const format of success.formats ?? ['json']) {
    const type = mediaType(format);
    if (format === 'html') content[type] = { schema: { type: 'string' } };
    else if (FORMAT_RECORDS[format].binary) content[type] = { schema: { type: 'string', format: 'binary' } };
    else content[type] = { schema: success.schema };
  }
  const out: Responses = { [success.status ?? 200]: { description: success.description, content: content as never } };
  for (const status of [...errors, 500]) {
    out[status] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: ApiError } } };
  }
  return out;
}
