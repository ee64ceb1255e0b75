/**
 * A counting pass-through in front of the service's own OGC API Features endpoint, configured as
 * the backend of its `{self}` remote collections: every request a remote collection makes to its
 * backend goes through here and is counted, so one client request that fans out into hundreds of
 * backend requests (a zone-list filter on a remote collection once made 452) shows up whatever the machine's speed.
 * The target is read per request: it follows the service across restarts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BackendProxy {
  base: string;
  /** Requests forwarded so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startBackendProxy(target: () => string): Promise<BackendProxy> {
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    let to: URL;
    try {
      to = new URL(target());
    } catch {
      return void res.writeHead(502).end();
    }
    // The Host stays the proxy's: the service writes its `next` links from it, so paging comes back through here too.
    const out = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
