/**
 * The RemoteHttp port over node:http(s): every URL and every redirect hop passes the UrlGuard,
 * the connection goes to the address the guard checked (no second DNS answer), and time and
 * size are bounded. Headers the caller sets (API keys) are dropped when a redirect leaves the
 * first URL's origin.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RemoteHttpError, type RemoteHttp, type RemoteRequest, type RemoteResponse, type UrlGuard } from '../../ports/remote-http.js';

export interface RemoteHttpLimits {
  timeoutMs: number;
  /** Bytes of one response body. */
  maxBytes: number;
  maxRedirects: number;
}

export class GuardedRemoteHttp implements RemoteHttp {
  constructor(
    private readonly guard: UrlGuard,
    private readonly limits: RemoteHttpLimits,
  ) {}

  async request(req: RemoteRequest): Promise<RemoteResponse> {
    let url = parse(req.url);
    const origin = url.origin;
    let method = req.method;
    let body = req.body;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RemoteHttpError('refused', url.href, `only http and https are fetched, not ${url.protocol}`);
      const pinned = await this.guard(url);
      const sameOrigin = url.origin === origin;
      const res = await this.once(url, pinned, method, { ...(sameOrigin ? req.headers : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body);
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
        if (hop >= this.limits.maxRedirects) throw new RemoteHttpError('redirects', url.href, `more than ${this.limits.maxRedirects} redirects`);
        url = parse(location, url);
        // 301/302/303 turn a POST into a GET (as browsers do); 307/308 repeat it.
        if (res.status !== 307 && res.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      return { ...res, url: url.href };
    }
  }

  private once(url: URL, pinned: { address: string; family: 4 | 6 }, method: string, headers: Record<string, string>, body: string | undefined): Promise<Omit<RemoteResponse, 'url'>> {
    const lib = url.protocol === 'https:' ? https : http;
    const lookup: LookupFunction = (_host, options, cb) => {
      if (options && (options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: pinned.address, family: pinned.family }]);
      else cb(null, pinned.address, pinned.family);
    };
    const { timeoutMs, maxBytes } = this.limits;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: RemoteHttpError) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      const request = lib.request(
        url,
        { method, lookup, headers: { 'user-agent': 'dggs-api', accept: 'application/json', ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) {
            res.resume();
            settled = true;
            resolve({ status, headers: flatten(res.headers), body: new Uint8Array() });
            return;
          }
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            request.destroy();
            fail(new RemoteHttpError('too-large', url.href, `the answer is ${declared} bytes; at most ${maxBytes} are read`));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) {
              request.destroy();
              fail(new RemoteHttpError('too-large', url.href, `the answer exceeds ${maxBytes} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            resolve({ status, headers: flatten(res.headers), body: new Uint8Array(Buffer.concat(chunks)) });
          });
          res.on('error', (err) => fail(new RemoteHttpError('unreachable', url.href, err.message)));
        },
      );
      // One deadline for connecting, waiting and reading: a server that trickles bytes is cut off too.
      const timer = setTimeout(() => {
        fail(new RemoteHttpError('timeout', url.href, `no complete answer within ${timeoutMs} ms`));
        request.destroy();
      }, timeoutMs);
      request.on('close', () => clearTimeout(timer));
      request.on('error', (err) => fail(new RemoteHttpError('unreachable', url.href, (err as NodeJS.ErrnoException).code ?? err.message)));
      request.end(body);
    });
  }
}

function parse(raw: string, base?: URL): URL {
  try {
    return new URL(raw, base);
  } catch {
    throw new RemoteHttpError('invalid-url', raw, 'not a URL');
  }
}

function flatten(h: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
