import { UnsupportedFormatError } from '../ports/errors.js';

/**
 * Response formats and their media types, in one table: `f` values and Accept media types both
 * resolve through it.
 */
export const FORMATS = {
  json: 'application/json',
  html: 'text/html',
  'dggs-json': 'application/vnd.ogc.dggs+json',
  /** DGGS-UBJSON: the DGGS-JSON document in Universal Binary JSON, under the OGC media type and the plain one the standard's table names. */
  'dggs-ubjson': 'application/vnd.ogc.dggs+ubjson',
  ubjson: 'application/ubjson',
  /** Zone lists as little-endian 64-bit integers (OGC 21-038r1 /req/zone-uint64). */
  uint64: 'application/x-binary',
  geojson: 'application/geo+json',
  parquet: 'application/vnd.apache.parquet',
  geoparquet: 'application/vnd.geo+parquet',
  openapi: 'application/vnd.oai.openapi+json;version=3.1',
} as const;
export type Format = keyof typeof FORMATS;

/** Formats whose bodies are bytes, not JSON or text (documented as binary strings). */
export const BINARY_FORMATS: ReadonlySet<Format> = new Set<Format>(['parquet', 'geoparquet', 'dggs-ubjson', 'ubjson', 'uint64']);

const ALIASES: Record<string, Format> = {
  json: 'json',
  'application/json': 'json',
  html: 'html',
  'text/html': 'html',
  'dggs+json': 'dggs-json',
  'dggs-json': 'dggs-json',
  dggsjson: 'dggs-json',
  'application/vnd.ogc.dggs+json': 'dggs-json',
  'dggs+ubjson': 'dggs-ubjson',
  'dggs-ubjson': 'dggs-ubjson',
  'application/vnd.ogc.dggs+ubjson': 'dggs-ubjson',
  ubjson: 'ubjson',
  'application/ubjson': 'ubjson',
  uint64: 'uint64',
  'x-binary': 'uint64',
  'application/x-binary': 'uint64',
  geojson: 'geojson',
  'geo+json': 'geojson',
  'application/geo+json': 'geojson',
  parquet: 'parquet',
  'application/vnd.apache.parquet': 'parquet',
  geoparquet: 'geoparquet',
  'application/vnd.geo+parquet': 'geoparquet',
  'application/vnd.oai.openapi+json': 'openapi',
  'application/vnd.oai.openapi+json;version=3.1': 'openapi',
};

/** The `f` value a client would write for each format (used in links and hints). */
export const F_VALUE: Record<Format, string> = {
  json: 'json',
  html: 'html',
  'dggs-json': 'dggs+json',
  'dggs-ubjson': 'dggs+ubjson',
  ubjson: 'ubjson',
  uint64: 'uint64',
  geojson: 'geo+json',
  parquet: 'parquet',
  geoparquet: 'geoparquet',
  openapi: 'json',
};

export function mediaType(format: Format): string {
  return FORMATS[format];
}

/**
 * Picks the response format: `f` wins (an unknown or unsupported value is 406); otherwise the
 * Accept header by quality; otherwise `fallback`. `f` is matched case-insensitively, and a `+`
 * that a browser turned into a space is restored.
 */
export function negotiate(f: string | undefined, accept: string | undefined, supported: readonly Format[], fallback: Format): Format {
  if (f !== undefined && f !== '') {
    const key = f.trim().toLowerCase().replace(/ /g, '+');
    const format = ALIASES[key];
    if (!format || !supported.includes(format)) throw new UnsupportedFormatError(supported.map((s) => F_VALUE[s]));
    return format;
  }
  if (!accept) return fallback;
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { type: type ?? '', q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    if (range.type === '*/*' || range.type === 'application/*') return fallback;
    const format = ALIASES[range.type];
    if (format && supported.includes(format)) return format;
  }
  return fallback;
}
