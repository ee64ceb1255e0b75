/**
 * A local raster host for cog-url: the demo COG with single-range requests (`/elevation.tif`), a
 * missing file (`/missing.tif`, 404), and huge files that ignore Range: the COG then zero padding
 * up to `bigBytes`, with its length (`/big.tif`) or chunked without one (`/chunked.tif`). It
 * listens on its own loopback address, so a service
 * configured with `rasterFetch.allowedPrivateRanges: ['<that address>/32']` reaches it while its
 * SSRF guard still refuses 127.0.0.1 and every other private address.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './server-process.js';

export const UPSTREAM_ADDRESS = '127.0.0.3';

export interface Upstream {
  base: string;
  /** Bytes sent so far, all routes. */
  served(): number;
  close(): Promise<void>;
}

export async function startUpstream(opts: { bigBytes?: number } = {}): Promise<Upstream> {
  const cog = readFileSync(path.join(REPO_ROOT, 'data/demo/rasters/elevation.tif'));
  const bigBytes = opts.bigBytes ?? 600 * 2 ** 20;
  const zeros = Buffer.alloc(2 ** 20);
  let served = 0;
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '').split('?')[0];
    if (route === '/elevation.tif') {
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (!m) {
        served += cog.length;
        // Two statements: restify patches ServerResponse.writeHead in this process and its version does not return `res`.
        res.writeHead(200, { 'Content-Type': 'image/tiff', 'Content-Length': cog.length, 'Accept-Ranges': 'bytes' });
        return void res.end(cog);
      }
      const from = Number(m[1]);
      const to = Math.min(m[2] ? Number(m[2]) : cog.length - 1, cog.length - 1);
      if (from > to) {
        res.writeHead(416, { 'Content-Range': `bytes */${cog.length}` });
        return void res.end();
      }
      served += to - from + 1;
      res.writeHead(206, { 'Content-Type': 'image/tiff', 'Content-Range': `bytes ${from}-${to}/${cog.length}`, 'Content-Length': to - from + 1 });
      return void res.end(cog.subarray(from, to + 1));
    }
    if (route === '/big.tif' || route === '/chunked.tif') {
      // No Content-Length on /chunked.tif: the body is sent chunked.
      res.writeHead(200, { 'Content-Type': 'image/tiff', 'Accept-Ranges': 'none', ...(route === '/big.tif' ? { 'Content-Length': bigBytes } : {}) });
      let sent = 0;
      const pump = () => {
        while (sent < bigBytes && !res.destroyed) {
          const piece = sent === 0 ? cog : zeros.subarray(0, Math.min(zeros.length, bigBytes - sent));
          sent += piece.length;
          served += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (sent >= bigBytes) res.end();
      };
      return pump();
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  });
  // Keep idle connections longer than any client would, so a reused connection is never closed under it.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, UPSTREAM_ADDRESS, () => resolve());
  });
  return {
    base: `http://${UPSTREAM_ADDRESS}:${(server.address() as AddressInfo).port}`,
    served: () => served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
