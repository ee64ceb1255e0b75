import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ByteCollector } from '../../domain/byte-collector.js';
import { AppError, InvalidRequestError, TooLargeError, UpstreamError, UpstreamTimeoutError } from '../../ports/errors.js';
import { checkUrl, type CheckedUrl, type FetchPolicy } from './url-guard.js';
import type { SourceVersion } from '../../ports/source-version.js';

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Uint8Array;
  /** The URL finally answered, after redirects. */
  url: URL;
}

/** The refusals of a remote raster read; each keeps its class (status) wherever it is thrown. */
export const fetchErrors = {
  tooLarge: (limit: number, what: string) =>
    new TooLargeError('Raster read exceeds the size limit', `The service fetches at most ${limit} bytes ${what}; ask for a smaller zone or a shallower zone-depth, or serve the raster as a COG from a host that honours Range requests.`),
  timedOut: (ms: number) => new UpstreamTimeoutError('Raster fetch timed out', `The raster host did not answer within ${ms} ms (rasterFetch.timeoutMs).`),
  failed: (hint: string) => new UpstreamError('Raster fetch failed', hint),
  /** The URL names nothing the host will serve (its 4xx): the caller's URL to fix, not an upstream fault. */
  notServed: (status: number, where: string) => new InvalidRequestError('Raster not found', `The raster host answered HTTP ${status} for ${where}; check cog-url.`),
  /** TLS could not be set up (e.g. https to a plain-http host): the URL's scheme or host is wrong. */
  noTls: (where: string, code: string) => new InvalidRequestError('Raster host refused TLS', `No TLS connection could be made to ${where} (${code}); check the scheme of cog-url.`),
};

/** Connection failures are told by their code only: error messages can quote library internals (OpenSSL). */
function connectionFailure(err: NodeJS.ErrnoException, where: string): AppError {
  const code = err.code ?? 'connection error';
  if (/^(EPROTO|ERR_SSL|ERR_TLS|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) return fetchErrors.noTls(where, code);
  return fetchErrors.failed(`Could not read ${where} (${code}).`);
}

/** Bytes one request may pull from upstream in all its reads together (`rasterFetch.maxRequestBytes`). */
export class ByteBudget {
  used = 0;
  constructor(readonly limit: number) {}
  get remaining(): number {
    return this.limit - this.used;
  }
  take(n: number): void {
    this.used += n;
    if (this.used > this.limit) throw fetchErrors.tooLarge(this.limit, 'for one request (rasterFetch.maxRequestBytes)');
  }
}

interface GetOptions {
  headers?: Record<string, string>;
  budget?: ByteBudget;
  signal?: AbortSignal;
}

/**
 * GET with the SSRF policy applied at every hop: the host is resolved and checked, the
 * connection goes to the checked address (no second DNS answer), each redirect is checked
 * again, and size and time are bounded: the body streams against `maxBytes`, the request's
 * budget and the process's in-flight budget (`policy.inFlight`), and the transfer is cut the
 * moment any is passed.
 */
export async function guardedGet(raw: string, policy: FetchPolicy, opts: GetOptions = {}): Promise<GuardedResponse> {
  let target = await checkUrl(raw, policy);
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(target, policy, opts);
    if (res.status >= 300 && res.status < 400 && res.headers.location) {
      if (hop >= policy.maxRedirects) throw new InvalidRequestError('Too many redirects', `cog-url redirected more than ${policy.maxRedirects} times (rasterFetch.maxRedirects).`);
      target = await checkUrl(new URL(res.headers.location, target.url), policy);
      if (target.url.protocol === 'file:') throw new InvalidRequestError('Redirect to a file URL refused');
      continue;
    }
    return { ...res, url: target.url };
  }
}

function requestOnce(target: CheckedUrl, policy: FetchPolicy, opts: GetOptions): Promise<Omit<GuardedResponse, 'url'>> {
  const { url, address, family } = target;
  const lib = url.protocol === 'https:' ? https : http;
  // Pin the connection to the address that was checked.
  const lookup: LookupFunction = (_host, options, cb) => {
    if (options && (options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: address!, family: family! }]);
    else cb(null, address!, family!);
  };
  const where = `${url.origin}${url.pathname}`;
  return new Promise((resolve, reject) => {
    // The first outcome wins: a timeout or a refused size stays what it is even though
    // destroying the socket then raises a generic error as well.
    let settled = false;
    // The body, its bytes counted in the in-flight budget until it is taken or dropped.
    let collected: ByteCollector | undefined;
    const fail = (err: AppError) => {
      if (settled) return;
      settled = true;
      collected?.discard();
      req.destroy();
      reject(err);
    };
    const req = lib.request(url, { method: 'GET', headers: { 'user-agent': 'dggs-api', ...opts.headers }, lookup, timeout: policy.timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300) {
        // A redirect's or an error's body is not needed, and may be endless: drop the connection.
        settled = true;
        resolve({ status, headers: flatten(res.headers), body: new Uint8Array() });
        req.destroy();
        return;
      }
      // Refuse at once what the length header already says is too much.
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && opts.budget && declared > opts.budget.remaining) {
        try {
          opts.budget.take(declared);
        } catch (err) {
          return fail(err as AppError);
        }
      }
      if (Number.isFinite(declared) && declared > policy.maxBytes) return fail(fetchErrors.tooLarge(policy.maxBytes, 'in one response (rasterFetch.maxBytes)'));
      const body = (collected = new ByteCollector(Number.isFinite(declared) ? declared : undefined, policy.inFlight));
      res.on('data', (c: Buffer) => {
        if (settled) return;
        try {
          if (body.size + c.length > policy.maxBytes) throw fetchErrors.tooLarge(policy.maxBytes, 'in one response (rasterFetch.maxBytes)');
          opts.budget?.take(c.length);
          body.add(c);
        } catch (err) {
          fail(err as AppError);
        }
      });
      res.on('end', () => {
        if (settled) return;
        if (!res.complete) return fail(fetchErrors.failed(`The connection to ${where} closed before the response ended.`));
        settled = true;
        // Memory of its own (not a slice of Node's shared pool), so a library may keep it whole.
        resolve({ status, headers: flatten(res.headers), body: body.bytes() });
      });
      res.on('error', (err) => fail(connectionFailure(err, where)));
      res.on('aborted', () => fail(fetchErrors.failed(`The connection to ${where} closed before the response ended.`)));
    });
    // Bounds the whole exchange (a host trickling bytes never goes idle); `timeout` bounds silence.
    const timer = setTimeout(() => fail(fetchErrors.timedOut(policy.timeoutMs)), policy.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => fail(fetchErrors.timedOut(policy.timeoutMs)));
    req.on('error', (err) => {
      if (settled) return;
      if (err.name === 'AbortError') {
        settled = true;
        collected?.discard();
        return reject(err); // the caller gave up; geotiff.js retries or rethrows it
      }
      fail(err instanceof AppError ? err : connectionFailure(err, where));
    });
    req.end();
  });
}

function flatten(h: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export interface RangeBytes {
  data: Uint8Array;
  /** Size of the whole file, when the host said. */
  total?: number;
  etag?: string;
}

/**
 * Byte ranges of one remote file for a raster library: every read is a Range request through
 * the fetch policy, and all of them draw on one budget. A host that ignores Range answers with
 * the whole file; that body streams against the same budget (refused the moment it passes) and,
 * once it is in, later ranges are cut from it instead of fetching it again.
 *
 * Raster libraries wrap or swallow what their sources throw (geotiff.js reports a failed block
 * as "Request failed"), so the first refusal is also kept in `failure` for the adapter to
 * rethrow with its status intact.
 */
export class GuardedRangeReader {
  failure?: AppError;
  /** The file's version as its host first stated it (ETag, else Last-Modified); undefined when it states neither. */
  version?: SourceVersion;
  /** A later answer stated another version: the file changed while it was open. */
  changed = false;
  private whole?: Uint8Array;

  constructor(
    readonly url: string,
    private readonly policy: FetchPolicy,
    private readonly budget?: ByteBudget,
  ) {}

  async read(offset: number, length: number, signal?: AbortSignal): Promise<RangeBytes> {
    try {
      return await this.fetchRange(offset, length, signal);
    } catch (err) {
      if (err instanceof AppError) this.failure ??= err;
      throw err;
    }
  }

  private async fetchRange(offset: number, length: number, signal?: AbortSignal): Promise<RangeBytes> {
    if (this.whole) return { data: this.whole.subarray(offset, offset + length), total: this.whole.length };
    const res = await guardedGet(this.url, this.policy, { headers: { range: `bytes=${offset}-${offset + length - 1}` }, ...(this.budget ? { budget: this.budget } : {}), ...(signal ? { signal } : {}) });
    const etag = res.headers.etag ? { etag: res.headers.etag } : {};
    if (res.status === 206 || res.status === 200) this.note(res.headers);
    if (res.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
      if (!m || Number(m[1]) !== offset || res.body.length > length) throw fetchErrors.failed(`The raster host answered bytes=${offset}-${offset + length - 1} with ${res.headers['content-range'] ? `"${res.headers['content-range']}"` : 'no Content-Range'}.`);
      return { data: res.body, ...(m[3] !== '*' ? { total: Number(m[3]) } : {}), ...etag };
    }
    if (res.status === 200) {
      this.whole = res.body;
      return { data: res.body.subarray(offset, offset + length), total: res.body.length, ...etag };
    }
    const where = `${res.url.origin}${res.url.pathname}`;
    if (res.status >= 400 && res.status < 500) throw fetchErrors.notServed(res.status, where);
    throw fetchErrors.failed(`The raster host answered HTTP ${res.status} for ${where}.`);
  }

  /** Learns the file's version from the validators every answer of the host carries anyway. */
  private note(headers: Record<string, string | undefined>): void {
    const modified = Date.parse(headers['last-modified'] ?? '');
    const id = headers.etag ?? headers['last-modified'];
    if (id === undefined) return;
    if (!this.version) this.version = { id, ...(Number.isFinite(modified) ? { modifiedMs: modified } : {}) };
    else if (this.version.id !== id) this.changed = true;
  }
}
