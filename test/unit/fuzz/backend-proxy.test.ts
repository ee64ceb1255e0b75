import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackendProxy } from '../../../scripts/fuzz/backend-proxy.js';

/** The fuzzer's counting pass-through to a remote collection's backend (it shows a client request fanning out into hundreds of backend requests). */
describe('fuzz backend proxy', () => {
  it('forwards each request with its Host, answers what the target answers, and counts them', async () => {
    const seen: string[] = [];
    const target = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.host}`);
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/plain' });
      req.pipe(res);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const proxy = await startBackendProxy(() => `http://127.0.0.1:${(target.address() as AddressInfo).port}`);
    try {
      const a = await fetch(`${proxy.base}/items?limit=1`);
      const b = await fetch(`${proxy.base}/missing`);
      const c = await fetch(`${proxy.base}/echo`, { method: 'POST', body: 'hello' });
      expect([a.status, b.status, c.status, await c.text()]).to.deep.equal([200, 404, 200, 'hello']);
      expect(proxy.requests()).to.equal(3);
      const host = new URL(proxy.base).host;
      expect(seen).to.deep.equal([`GET /items?limit=1 ${host}`, `GET /missing ${host}`, `POST /echo ${host}`]);
    } finally {
      await proxy.close();
      target.close();
    }
  });
});
