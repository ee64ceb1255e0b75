import { FORMAT_RECORDS, type Format } from './registry.js';

/**
 * The names answers are saved under (Content-Disposition), one way for every route: what the
 * file holds and the extension its format declares (registry.ts), never a second extension.
 */

/** `<what>.<extension>`, e.g. `IVEA7H-zones-0.parquet`. */
export function fileName(what: string, format: Format): string {
  return `${what}.${FORMAT_RECORDS[format].extension}`;
}

/**
 * The Content-Disposition of a file named `name`: `attachment` a download, `inline` shown where
 * the client can. Characters other than letters, digits, `.`, `_` and `-` become `_`: the name
 * may come from an id or a path, and stays one plain token in the quoted header value.
 */
export function contentDisposition(name: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  return `${disposition}; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}
