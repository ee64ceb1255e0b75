/**
 * What counts as a failure for one exchange. The rules are the project's: no 5xx for any input,
 * every 4xx/5xx body is an ApiError {code = status, message, hint?} (or, for a request that asked
 * for HTML, the error page showing that status), an answer within the client's time bound, an
 * invalid Host or malformed forwarded header is refused, the admin routes are not served on the
 * public listener, and no internals (stack traces, file paths) leak into a body.
 */
import zlib from 'node:zlib';
import type { FuzzCase } from './cases.js';
import type { FuzzRequest, SendResult } from './http-client.js';

/** `amplification`: one request made the service send more requests to a remote backend than one request may (see runner.ts). */
export type FailureKind = '5xx' | 'non-api-error' | 'timeout' | 'no-response' | 'truncated' | 'bad-host-accepted' | 'bad-forwarded-accepted' | 'leak' | 'crash' | 'stall' | 'memory' | 'amplification';

export interface Verdict {
  kind: FailureKind;
  detail: string;
}

const FILE_MARKERS: [RegExp, string][] = [
  [/root:x:0:0:/, '/etc/passwd'],
  [/"tokenSha256"/, 'the service config (config/default.json)'],
  [/"allowScripts"/, 'package.json'],
  [/\[core\]\s+repositoryformatversion/, '.git/config'],
  [/(^|\u0000)(PATH|HOME)=\//, '/proc/self/environ'],
];

/** Stack frames, our sources, packages, and native sources (an OpenSSL or libuv file:line quoted in a hint). */
const STACK = /\n\s+at [^\n]+\(|at (file|node):\/\/|\.ts:\d+:\d+|node_modules\/|\/deps\/|[\w-]+\.(c|cc|cpp):\d+/;

export function apiErrorProblem(status: number, contentType: string | undefined, body: Buffer, bodyBytes: number): string | undefined {
  if (bodyBytes === 0) return 'empty body';
  if (!/json/i.test(contentType ?? '')) return `content-type ${contentType ?? '(none)'}`;
  if (bodyBytes > body.length) return `body of ${bodyBytes} bytes (an ApiError is small)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'body is not a JSON object';
  const o = parsed as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => !['code', 'message', 'hint'].includes(k));
  if (extra.length) return `unexpected keys ${extra.join(', ')}`;
  if (o.code !== status) return `code ${JSON.stringify(o.code)} is not the status ${status}`;
  if (typeof o.message !== 'string' || o.message === '') return 'message missing or empty';
  if (o.hint !== undefined && o.hint !== null && typeof o.hint !== 'string') return 'hint is not a string';
  return undefined;
}

/** What is wrong with an HTML error page (src/http/error-reply.ts): it must name its status first in its title. */
export function htmlErrorProblem(status: number, body: Buffer): string | undefined {
  const title = /<title>([^<]*)<\/title>/.exec(body.toString('utf8'))?.[1];
  if (title === undefined) return 'HTML error page without a title';
  if (!title.startsWith(`${status} `)) return `HTML error page titled ${JSON.stringify(title)} for status ${status}`;
  return undefined;
}

/** Whether a request may have asked for HTML (by `f` or Accept): its errors may then be pages. */
function mentionsHtml(req: FuzzRequest): boolean {
  if (req.raw) return /html/i.test(req.raw.toString('latin1'));
  return /html/i.test(req.path) || req.headers.some(([k, v]) => k.toLowerCase() === 'accept' && /html/i.test(v));
}

/**
 * Load shedding, not a failure: the zone-data admission control (limits.maxSubZonesInFlight)
 * refuses work it found no room for with 503 "Service busy", Retry-After and an ApiError body.
 */
export function isShed(res: { status: number; headers: Record<string, unknown>; body: Buffer }): boolean {
  if (res.status !== 503 || !/^\d+$/.test(String(res.headers['retry-after'] ?? ''))) return false;
  try {
    return (JSON.parse(res.body.toString('utf8')) as { message?: unknown }).message === 'Service busy';
  } catch {
    return false;
  }
}

export function judge(c: FuzzCase, r: SendResult, leakMarkers: string[], timeoutMs: number): Verdict[] {
  const out: Verdict[] = [];
  if (r.error) {
    if (r.error.kind === 'timeout') out.push({ kind: 'timeout', detail: `${r.error.message}` });
    else if (r.error.kind !== 'client') out.push({ kind: 'no-response', detail: r.error.message });
    return out;
  }
  const res = r.response!;
  if (res.ms > timeoutMs) out.push({ kind: 'timeout', detail: `answered after ${Math.round(res.ms)} ms` });
  if (res.truncated) out.push({ kind: 'truncated', detail: `body cut off after ${res.bodyBytes} bytes` });
  const contentType = String(res.headers['content-type'] ?? '');
  if (res.status >= 500 && !isShed(res)) out.push({ kind: '5xx', detail: `status ${res.status}` });
  if (res.status >= 400 && c.req.method.toUpperCase() !== 'HEAD') {
    const page = /^text\/html\b/i.test(contentType) && mentionsHtml(c.req);
    const problem = page ? htmlErrorProblem(res.status, res.body) : apiErrorProblem(res.status, contentType || undefined, res.body, res.bodyBytes);
    if (problem) out.push({ kind: 'non-api-error', detail: problem });
  }
  if (c.traversal && res.status >= 200 && res.status < 300) out.push({ kind: 'leak', detail: `status ${res.status} for a file name outside its directory` });
  if (c.badHost && res.status < 400) out.push({ kind: 'bad-host-accepted', detail: `status ${res.status} for an invalid Host` });
  if (c.badForwarded && res.status < 400) out.push({ kind: 'bad-forwarded-accepted', detail: `status ${res.status} for a malformed forwarded header from a trusted proxy` });
  // Only the admin listener serves /admin: on the public one it is an unknown route, however spelt.
  if (res.status < 400 && /^\/+admin(\/|$)/i.test(c.req.path)) out.push({ kind: 'leak', detail: `status ${res.status} for an admin route on the public listener` });
  const text = decoded(res).toString('utf8');
  if (res.status >= 400 && STACK.test(text)) out.push({ kind: 'leak', detail: 'stack trace in an error body' });
  // A marker the request itself carried may be echoed back (a 404 naming the id it was given).
  const sent = requestText(c.req);
  for (const marker of leakMarkers) if (marker && text.includes(marker) && !sent.includes(marker)) out.push({ kind: 'leak', detail: `body contains ${JSON.stringify(marker)}` });
  // Files no answer may carry: the system's, the service's config (token digests), its package and git metadata, its environment.
  for (const [marker, what] of FILE_MARKERS) if (marker.test(text)) out.push({ kind: 'leak', detail: `body contains ${what}` });
  return out;
}

/** The body as the service wrote it, when it came compressed: the leak checks read what a client reads. */
function decoded(res: { headers: Record<string, unknown>; body: Buffer }): Buffer {
  const coding = String(res.headers['content-encoding'] ?? '');
  // What was kept of the body may end mid-stream: decode what there is, up to a bound.
  const maxOutputLength = 16 * 2 ** 20;
  try {
    if (coding === 'gzip') return zlib.gunzipSync(res.body, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength });
    if (coding === 'br') return zlib.brotliDecompressSync(res.body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, maxOutputLength });
  } catch {
    // Not decodable as labelled: search the bytes as they came.
  }
  return res.body;
}

/** What a request sent, its target percent-decoded where it decodes, as one text to search. */
function requestText(req: FuzzRequest): string {
  let target = req.path;
  try {
    target = decodeURIComponent(req.path);
  } catch {
    // Malformed escapes: search the target as sent.
  }
  return [req.path, target, ...req.headers.map(([k, v]) => `${k}: ${v}`), req.body?.toString('utf8') ?? '', req.raw?.toString('utf8') ?? ''].join('\n');
}
