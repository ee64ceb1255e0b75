import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { AppError, BadRequestError } from '../../app/errors.js';
import { checkUrl, type CheckedUrl, type FetchPolicy } from './url-guard.js';

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Uint8Array;
  /** The URL finally answered, after redirects. */
  url: URL;
}

/** Bytes one raster may pull in all its requests together (the policy's `maxBytes`). */
export class ByteBudget {
  used = 0;
  constructor(readonly limit: number) {}
  take(n: number): void {
    this.used += n;
    if (this.used > this.limit) {
      throw new AppError(413, 'Raster read exceeds the size limit', `The service reads at most ${this.limit} bytes of one raster; ask for a smaller zone or a shallower zone-depth.`);
    }
  }
}

/**
 * GET with the SSRF policy applied at every hop: the host is resolved and checked, the
 * connection goes to the checked address (no second DNS answer), each redirect is checked
 * again, and size and time are bounded.
 */
export async function guardedGet(raw: string, policy: FetchPolicy, opts: { headers?: Record<string, string>; budget?: ByteBudget; signal?: AbortSignal } = {}): Promise<GuardedResponse> {
  let target = await checkUrl(raw, policy);
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(target, policy, opts);
    if (res.status >= 300 && res.status < 400 && res.headers.location) {
      if (hop >= policy.maxRedirects) throw new BadRequestError('Too many redirects', `cog-url redirected more than ${policy.maxRedirects} times.`);
      target = await checkUrl(new URL(res.headers.location, target.url), policy);
      if (target.url.protocol === 'file:') throw new BadRequestError('Redirect to a file URL refused');
      continue;
    }
    return { ...res, url: target.url };
  }
}

function requestOnce(target: CheckedUrl, policy: FetchPolicy, opts: { headers?: Record<string, string>; budget?: ByteBudget; signal?: AbortSignal }): Promise<Omit<GuardedResponse, 'url'>> {
  const { url, address, family } = target;
  const lib = url.protocol === 'https:' ? https : http;
  // Pin the connection to the address that was checked.
  const lookup: LookupFunction = (_host, options, cb) => {
    if (options && (options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: address!, family: family! }]);
    else cb(null, address!, family!);
  };
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'GET', headers: { 'user-agent': 'dggs-api', ...opts.headers }, lookup, timeout: policy.timeoutMs, signal: opts.signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.resume();
        resolve({ status, headers: flatten(res.headers), body: new Uint8Array() });
        return;
      }
      res.on('data', (c: Buffer) => {
        size += c.length;
        try {
          if (size > policy.maxBytes) throw new AppError(413, 'Raster read exceeds the size limit', `The service reads at most ${policy.maxBytes} bytes of one raster.`);
          opts.budget?.take(c.length);
        } catch (err) {
          req.destroy();
          reject(err);
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status, headers: flatten(res.headers), body: new Uint8Array(Buffer.concat(chunks)) }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new AppError(504, 'Raster fetch timed out', `The raster host did not answer within ${policy.timeoutMs} ms.`)), policy.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new AppError(504, 'Raster fetch timed out', `The raster host did not answer within ${policy.timeoutMs} ms.`)));
    req.on('error', (err) => reject(err instanceof AppError ? err : new AppError(502, 'Raster fetch failed', `Could not read ${url.origin}${url.pathname}: ${err.message}`)));
    req.end();
  });
}

function flatten(h: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
