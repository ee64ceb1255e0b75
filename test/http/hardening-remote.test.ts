/**
 * Issue 20, F7: remote reads are bounded across requests. The service runs as a child process
 * (scripts/fuzz/server-process.ts): its VmRSS is what a flood of upstream bodies leaves behind.
 *
 * F7: `cog-url` on a host that ignores Range and sends a chunked body with no length buffered up
 * to 64 MiB per request with no bound across requests, and the process stayed hundreds of MB
 * above idle afterwards. Now all bodies in flight share one budget (503 with Retry-After past it)
 * and the memory comes back.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { apiErrorProblem } from '../../scripts/fuzz/checks.js';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../../scripts/fuzz/server-process.js';
import { UPSTREAM_ADDRESS } from '../../scripts/fuzz/upstream.js';

/** Bytes of each chunked upstream body (the demo COG, then zeros), as in the issue. */
const FLOOD_BODY_BYTES = 60 * 2 ** 20;
const FLOOD = 8;
const RSS_BACK_BOUND = 100 * 2 ** 20;
const MiB = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** A raster host that ignores Range and sends the COG and zero padding chunked, with no length. */
async function startChunkedHost(): Promise<{ url: (i: number) => string; served: () => number; close: () => Promise<void> }> {
  const cog = readFileSync(path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif'));
  const zeros = Buffer.alloc(2 ** 20);
  let served = 0;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'image/tiff' }); // no Content-Length: chunked
    let sent = 0;
    const pump = () => {
      while (sent < FLOOD_BODY_BYTES && !res.destroyed) {
        const piece = sent === 0 ? cog : zeros.subarray(0, Math.min(zeros.length, FLOOD_BODY_BYTES - sent));
        sent += piece.length;
        served += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (sent >= FLOOD_BODY_BYTES) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, UPSTREAM_ADDRESS, resolve));
  const base = `http://${UPSTREAM_ADDRESS}:${(server.address() as AddressInfo).port}`;
  return {
    url: (i) => `${base}/chunked.tif?${i}`,
    served: () => served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** RSS of the child once earlier work has settled: two readings half a second apart within 4 MiB (or after 15 s). */
async function settledRss(srv: ServerProcess): Promise<number> {
  let last = srv.rss()!;
  for (const deadline = performance.now() + 15_000; performance.now() < deadline; ) {
    await sleep(500);
    const now = srv.rss()!;
    if (Math.abs(now - last) < 4 * 2 ** 20) return now;
    last = now;
  }
  return last;
}

describe('HTTP: hardening of remote reads (issue 20)', function () {
  this.timeout(180_000);
  let srv: ServerProcess;

  /** A fresh child service for each group: the F7 group measures its memory from idle. */
  const startService = async (config: Record<string, unknown>) => {
    await srv?.stop();
    srv = await startServerProcess({ config, logLines: 20_000 });
  };
  after(async () => {
    await srv?.stop();
  });

  async function call(p: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(`${srv.base}${p}`, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON: the assertions say so */
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  function expectApiError(a: Answer, status: number, bound: RegExp, what: string): void {
    expect(a.status, `${what}: ${a.text.slice(0, 300)}`).to.equal(status);
    expect(apiErrorProblem(a.status, a.headers.get('content-type') ?? undefined, Buffer.from(a.text), Buffer.byteLength(a.text)), `${what}: ApiError body`).to.equal(undefined);
    expect(String(a.json.hint), what).to.match(bound);
  }

  describe('F7: chunked cog-url bodies with no length, from a host that ignores Range', () => {
    let host: Awaited<ReturnType<typeof startChunkedHost>>;
    before(async function () {
      this.timeout(90_000);
      host = await startChunkedHost();
      await startService({ rasterFetch: { allowedPrivateRanges: [`${UPSTREAM_ADDRESS}/32`] } });
    });
    after(async () => {
      await host?.close();
    });

    it(`${FLOOD} in parallel: 503 with Retry-After past rasterFetch.maxInFlightBytes, no other 5xx, and RSS back within ${MiB(RSS_BACK_BOUND)} of idle`, async () => {
      const idle = await settledRss(srv);
      let peak = idle;
      const sample = setInterval(() => (peak = Math.max(peak, srv.rss() ?? 0)), 20);
      const served = host.served();
      const answers = await Promise.all(Array.from({ length: FLOOD }, (_, i) => call(`/dggs/IVEA7H/zones/E4-120-A/data?cog-url=${encodeURIComponent(host.url(i))}`)));
      clearInterval(sample);
      expect(host.served() - served, 'bytes the host sent (else this shows nothing)').to.be.greaterThan(2 * FLOOD_BODY_BYTES);
      // The process gives its memory back once the flood is over (buffers freed, idle release).
      let after = srv.rss()!;
      for (const deadline = performance.now() + 20_000; after - idle >= RSS_BACK_BOUND && performance.now() < deadline; after = srv.rss()!) await sleep(250);
      expect(after - idle, `RSS after the flood: idle ${MiB(idle)}, peak ${MiB(peak)}, now ${MiB(after)}`).to.be.below(RSS_BACK_BOUND);
      for (const [i, a] of answers.entries()) {
        expect([200, 503], `#${i}: ${a.text.slice(0, 300)}`).to.include(a.status);
        if (a.status === 503) {
          expectApiError(a, 503, /rasterFetch\.maxInFlightBytes/, `#${i}`);
          expect(Number(a.headers.get('retry-after')), `#${i} Retry-After`).to.be.greaterThan(0);
        }
      }
      const refused = answers.filter((a) => a.status === 503).length;
      expect(refused, 'requests refused past the in-flight budget').to.be.within(1, FLOOD - 1);
      expect((await call('/conformance')).status, 'the service still answers').to.equal(200);
    });
  });
});
