import type { ServerResponse } from 'node:http';
import vary from 'vary';

/**
 * Names a request header the answer depends on, so that shared caches (a proxy, a CDN, the
 * browser's) key it on that header too (RFC 9110 §12.5.5): `Accept` where the format is
 * negotiated (a route with `formats`, and every error, whose page is HTML for a browser),
 * `Accept-Encoding` where the answer may be compressed, `Origin` where the CORS headers depend on
 * who asks. Names add to what the answer already varies on, once each; a reply's own `Vary`
 * header comes through here as well.
 */
export function varyOn(res: ServerResponse, field: string): void {
  vary(res, field);
}
