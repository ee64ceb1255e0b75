import { mediaType } from '../../formats/registry.js';
import { mediaRanges } from '../accept-header.js';

/** The document's own media type: it is OpenAPI 3.1. */
export const OPENAPI_31 = mediaType('openapi');
const OPENAPI_BASE = 'application/vnd.oai.openapi+json';

interface Range {
  type: string;
  version: string | undefined;
  q: number;
}

function parseAccept(accept: string): Range[] {
  return mediaRanges(accept).map(({ type, params, q }) => ({ type, version: params.get('version'), q }));
}

/**
 * Media type for the OpenAPI document, by the Accept header. The media type's `version`
 * parameter matters here, which the generic format negotiation ignores: GDAL up to 3.6 asks for
 * `application/vnd.oai.openapi+json;version=3.0, application/openapi+json;version=3.0,
 * application/json` and refuses a 3.1 answer, after which it filters on the client, one page at
 * a time. Such a client allows plain JSON but not 3.1, so it gets the same document as
 * `application/json` (a truthful label: we have no 3.0 document). Whenever 3.1 is acceptable at
 * least as much as plain JSON, and when nothing matches, the answer stays 3.1.
 */
export function openApiMediaType(accept: string | undefined): string {
  if (!accept) return OPENAPI_31;
  const ranges = parseAccept(accept);
  // The most specific range that matches decides a type's quality (RFC 9110 §12.5.1).
  const quality = (matches: ((r: Range) => boolean)[]): number => {
    for (const match of matches) {
      const hits = ranges.filter(match);
      if (hits.length) return Math.max(...hits.map((r) => r.q));
    }
    return 0;
  };
  const wildcard = [(r: Range) => r.type === 'application/*', (r: Range) => r.type === '*/*'];
  const q31 = quality([(r) => r.type === OPENAPI_BASE && /^3\.1(\.\d+)?$/.test(r.version ?? ''), (r) => r.type === OPENAPI_BASE && r.version === undefined, ...wildcard]);
  const qJson = quality([(r) => r.type === 'application/json', ...wildcard]);
  if (q31 > 0 && q31 >= qJson) return OPENAPI_31;
  if (qJson > 0) return 'application/json';
  return OPENAPI_31;
}
