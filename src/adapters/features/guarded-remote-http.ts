/**
 * The RemoteHttp port over node:http(s): every URL and every redirect hop passes the UrlGuard,
 * the connection goes to the address the guard checked (no second DNS answer), and time and
 * size are bounded: each body by `maxBytes`, all bodies being received at once by the shared
 * in-flight budget. Headers the caller sets (API keys) are dropped when a redirect leaves the
 * first URL's origin.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ByteCollector } from '../../domain/byte-collector.js';
import { RemoteHttpError, type InFlightBytes, type RemoteHttp, type RemoteRequest, type RemoteResponse, type UrlGuard } from '../../ports/remote-http.js';

export interface RemoteHttpLimits {
  timeoutMs: number;
  /** Bytes of one response body. */
  maxBytes: number;
  maxRedirects: number;
  /** Bytes of all bodies being received at once, shared with the other remote readers of the process. */
  inFlight?: InFlightBytes;
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
      const res = await this.once(url, pinned, method, { ...(sameOrigin ? req.headers : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body, req.signal);
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

  private once(url: URL, pinned: { address: string; family: 4 | 6 }, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal | undefined): Promise<Omit<RemoteResponse, 'url'>> {
    const lib = url.protocol === 'https:' ? https : http;
    const lookup: LookupFunction = (_host, options, cb) => {
      if (options && (options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: pinned.address, family: pinned.family }]);
      else cb(null, pinned.address, pinned.family);
    };
    const { timeoutMs, maxBytes, inFlight } = this.limits;
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      let settled = false;
      // The body, its bytes counted in the in-flight budget until it is taken or dropped.
      let collected: ByteCollector | undefined;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        collected?.discard();
        request.destroy();
        reject(err);
      };
      const onAbort = () => fail(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
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
            fail(new RemoteHttpError('too-large', url.href, `the answer is ${declared} bytes; at most ${maxBytes} are read`));
            return;
          }
          const body = (collected = new ByteCollector(Number.isFinite(declared) ? declared : undefined, inFlight));
          res.on('data', (c: Buffer) => {
            if (settled) return;
            if (body.size + c.length > maxBytes) {
              fail(new RemoteHttpError('too-large', url.href, `the answer exceeds ${maxBytes} bytes`));
              return;
            }
            try {
              body.add(c);
            } catch (err) {
              fail(err);
            }
          });
          res.on('end', () => {
            if (settled) return;
            settled = true;
            resolve({ status, headers: flatten(res.headers), body: body.bytes() });
          });
          res.on('error', (err) => fail(new RemoteHttpError('unreachable', url.href, err.message)));
        },
      );
      // One deadline for connecting, waiting and reading: a server that trickles bytes is cut off too.
      const timer = setTimeout(() => fail(new RemoteHttpError('timeout', url.href, `no complete answer within ${timeoutMs} ms`)), timeoutMs);
      request.on('close', () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      });
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
