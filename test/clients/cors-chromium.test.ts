import { expect } from 'chai';
import http from 'node:http';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sha256Hex } from '../../src/adapters/auth/sha256-token-verifier.js';
import { Chromium } from './chromium.js';

const TOKEN = 'cors-chromium-token-0123456789';

/** What the page reports once its script is done. */
interface Drawn {
  /** Zones drawn on the canvas. */
  drawn: number;
  /** Canvas pixels the drawing coloured. */
  inked: number;
  /** The zone count the service announced in OGC-Zones-Total, as the script could read it. */
  total: string | null;
  /** Orders listed by the secured route, called with a bearer token (a preflighted request). */
  orders: number | null;
  /** Why a fetch failed, when one did. */
  error: string | null;
}

/**
 * A web map on another origin: served from its own loopback port, its script fetches a zone list
 * as GeoJSON from the service, draws the zones on a canvas, and reports what it drew. It also
 * lists the orders with a bearer token, which makes the browser ask a preflight first.
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>web map</title></head>
<body><canvas id="map" width="720" height="360"></canvas><pre id="result"></pre>
<script>
window.result = (async () => {
  const service = new URLSearchParams(location.search).get('service');
  const out = { drawn: 0, inked: 0, total: null, orders: null, error: null };
  try {
    const res = await fetch(service + '/dggs/IVEA7H/zones?zone-level=2&f=geo%2Bjson');
    out.total = res.headers.get('OGC-Zones-Total');
    const collection = await res.json();
    const ctx = document.getElementById('map').getContext('2d');
    ctx.fillStyle = '#0b6bcb';
    ctx.strokeStyle = '#1d2733';
    const x = (lon) => (lon + 180) * 2;
    const y = (lat) => (90 - lat) * 2;
    for (const feature of collection.features) {
      const g = feature.geometry;
      const polygons = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
      if (!polygons.length) continue;
      ctx.beginPath();
      for (const rings of polygons) for (const ring of rings) {
        ring.forEach(([lon, lat], i) => (i ? ctx.lineTo(x(lon), y(lat)) : ctx.moveTo(x(lon), y(lat))));
        ctx.closePath();
      }
      ctx.fill('evenodd');
      ctx.stroke();
      out.drawn++;
    }
    const pixels = ctx.getImageData(0, 0, 720, 360).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) out.inked++;
    const orders = await fetch(service + '/orders', { headers: { Authorization: 'Bearer ${TOKEN}' } });
    out.orders = (await orders.json()).orders.length;
  } catch (e) {
    out.error = String(e);
  }
  document.getElementById('result').textContent = JSON.stringify(out);
  document.title = out.error ? 'blocked' : 'drawn ' + out.drawn;
  return out;
})();
</script></body></html>`;

// The page-side function runs inside Chromium; the project compiles without the DOM library.
declare const window: { result: Promise<Drawn> };

describe('a web map on another origin reads zone data through CORS (headless Chromium)', function () {
  this.timeout(180_000);
  let pages: http.Server;
  let pageOrigin: string;
  let browser: Chromium;
  const services: TestServer[] = [];

  before(async () => {
    pages = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
    browser = await Chromium.launch();
  });
  after(async () => {
    await browser?.close();
    for (const s of services) await s.close();
    await new Promise((resolve) => pages?.close(resolve));
  });

  const serviceAllowing = async (origins: string[], securedOrigins: string[]) => {
    const s = await startTestServer({
      server: { host: '127.0.0.1', port: 0, logLevel: 'silent', cors: { origins, securedOrigins } },
      auth: { tokenSha256: [sha256Hex(TOKEN)] },
    });
    services.push(s);
    return s;
  };

  const visit = async (service: TestServer): Promise<Drawn> => {
    await browser.open(`${pageOrigin}/?service=${encodeURIComponent(service.base)}`);
    return browser.evaluate(() => window.result);
  };

  it('draws the zones when the service allows the page\'s origin, reading the exposed headers and passing a preflight', async () => {
    const service = await serviceAllowing([pageOrigin], [pageOrigin]);
    const expected = ((await (await service.get('/dggs/IVEA7H/zones?zone-level=2&f=geo%2Bjson')).json()) as { features: unknown[] }).features.length;
    const drawn = await visit(service);
    expect(drawn.error, 'no fetch failed').to.equal(null);
    expect(drawn.drawn, 'zones drawn').to.equal(expected);
    expect(drawn.drawn).to.be.greaterThan(100);
    expect(drawn.inked, 'canvas pixels coloured').to.be.greaterThan(10_000);
    expect(drawn.total, 'OGC-Zones-Total read by the script').to.equal(String(expected));
    expect(drawn.orders, 'orders listed with a bearer token').to.be.a('number');
  });

  it('is blocked when the service allows another origin only: the fetch rejects and nothing is drawn', async () => {
    const service = await serviceAllowing(['http://127.0.0.1:1'], ['http://127.0.0.1:1']);
    const drawn = await visit(service);
    expect(drawn.error, 'the fetch rejected').to.match(/TypeError: Failed to fetch/);
    expect(drawn.drawn).to.equal(0);
    expect(drawn.inked).to.equal(0);
    expect(drawn.total).to.equal(null);
  });

  it('may read public zone data but not orders when only the public routes allow the page', async () => {
    const service = await serviceAllowing([pageOrigin], []);
    const drawn = await visit(service);
    expect(drawn.drawn).to.be.greaterThan(100);
    expect(drawn.orders).to.equal(null);
    expect(drawn.error, 'the preflighted orders request was blocked').to.match(/TypeError: Failed to fetch/);
  });
});
