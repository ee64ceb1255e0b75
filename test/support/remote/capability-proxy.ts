/**
 * A pass-through proxy in front of a real OGC API Features server (our own items endpoint) that
 * declares a different conformance: fewer CQL2 classes, no filtering at all, or Part 6
 * property selection. The features are the real server's; only what the client may push
 * changes, so answers with and without pushdown can be compared. Requests are recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapabilityProxy {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/** `conformsTo` rewritten: `keep` filters the real list, `add` appends. */
export async function startCapabilityProxy(target: string, conformance: { keep: (uri: string) => boolean; add?: string[] }): Promise<CapabilityProxy> {
  const requests: string[] = [];
  const server = http.createServer(async (req, res) => {
    requests.push(req.url ?? '/');
    const upstream = await fetch(target + (req.url ?? '/'), { headers: { accept: req.headers.accept ?? '*/*' } });
    // Links written by the real server point at it; make them point here, as a real proxy's would.
    let body = Buffer.from((await upstream.text()).replaceAll(target, `http://${req.headers.host}`));
    if (new URL(req.url ?? '/', 'http://x').pathname === '/conformance' && upstream.ok) {
      const doc = JSON.parse(body.toString('utf8')) as { conformsTo: string[] };
      doc.conformsTo = [...doc.conformsTo.filter(conformance.keep), ...(conformance.add ?? [])];
      body = Buffer.from(JSON.stringify(doc));
    }
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
