/**
 * The HTML pages' static files: MapLibre, the pages' map module, the offline basemap and its style,
 * and the favicon. Served by the service itself (no CDN), versioned and immutable, revalidated
 * with 304, compressed, kept out of the API document; a configured style replaces the offline
 * one. And the pages that draw maps embed their map's config and keep the SVG fallback.
 */
import { expect } from 'chai';
import http from 'node:http';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The map assets and config a page names. */
function pageMap(html: string) {
  const config = html.match(/<script type="application\/json" id="map-config">([^<]*)<\/script>/)?.[1];
  return {
    css: html.match(/<link rel="stylesheet" href="([^"]+maplibre-gl\.css)">/)?.[1],
    script: html.match(/<script type="module" src="([^"]+\/map\.js)"><\/script>/)?.[1],
    config: config ? (JSON.parse(config) as Record<string, unknown> & { style: string; choropleth?: Record<string, unknown> }) : undefined,
    frame: /<div class="mapframe" data-map-frame[^>]*>\s*<svg class="map"/.test(html),
  };
}

/** The size of an answer's body as sent (not decoded). */
function wireBytes(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'Accept-Encoding': encoding } }, (res) => {
      let n = 0;
      res.on('data', (chunk: Buffer) => (n += chunk.length));
      res.on('end', () => resolve(n));
    }).on('error', reject);
  });
}

describe('HTTP: the pages\' map assets and favicon', function () {
  this.timeout(60_000);
  let s: TestServer;
  let assets: string;

  before(async () => {
    s = await startTestServer();
    const raster = s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
    const map = pageMap(await (await s.get(`/collections/${raster.id}?f=html`)).text());
    expect(map.script).to.be.a('string');
    assets = map.script!.replace(/map\.js$/, '');
  });
  after(() => s?.close());

  it('serves MapLibre, its worker beside it, its CSS and the map module: right types, immutable, tagged', async () => {
    for (const [name, type, starts] of [
      ['maplibre-gl.mjs', 'text/javascript', '/**'],
      ['maplibre-gl-worker.mjs', 'text/javascript', '/**'],
      ['maplibre-gl.css', 'text/css', '.maplibregl'],
      ['map.js', 'text/javascript', '//'],
    ] as const) {
      const res = await fetch(assets + name);
      expect(res.status, name).to.equal(200);
      expect(res.headers.get('content-type'), name).to.match(new RegExp(`^${type}\\b`));
      expect(res.headers.get('cache-control'), name).to.equal('public, max-age=31536000, immutable');
      expect(res.headers.get('etag'), name).to.match(/^(W\/)?"/);
      expect((await res.text()).trimStart().startsWith(starts), name).to.equal(true);
    }
    // MapLibre 6 starts its worker from `./maplibre-gl-worker.mjs?v=<version>` beside its own URL.
    const main = await (await fetch(`${assets}maplibre-gl.mjs`)).text();
    expect(main).to.contain('maplibre-gl-worker.mjs');
    expect((await fetch(new URL('maplibre-gl-worker.mjs?v=6', `${assets}maplibre-gl.mjs`))).status).to.equal(200);
  });

  it('answers 304 to a matching If-None-Match, compresses what compresses, refuses other names and versions', async () => {
    const first = await fetch(`${assets}maplibre-gl.mjs`, { headers: { 'Accept-Encoding': 'br' } });
    expect(first.headers.get('content-encoding')).to.equal('br');
    await first.arrayBuffer();
    // fetch() decodes: the bytes on the wire are counted with node:http.
    const full = Number((await fetch(`${assets}maplibre-gl.mjs`, { headers: { 'Accept-Encoding': 'identity' } })).headers.get('content-length'));
    expect(await wireBytes(`${assets}maplibre-gl.mjs`, 'br')).to.be.lessThan(full / 2);
    const again = await fetch(`${assets}maplibre-gl.mjs`, { headers: { 'Accept-Encoding': 'br', 'If-None-Match': first.headers.get('etag')! } });
    expect(again.status).to.equal(304);
    expect(again.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    for (const p of [`${assets}maplibre-gl-dev.mjs`, `${assets}maplibre-gl.mjs.map`, `${assets}package.json`, `${assets}..%2F..%2Fpackage.json`, assets.replace(/\/assets\/[^/]+\//, '/assets/0000/') + 'map.js']) {
      const res = await fetch(p);
      await res.arrayBuffer();
      expect(res.status, p).to.equal(404);
    }
  });

  it('serves the offline basemap style, and the basemap as valid GeoJSON of land and borders', async () => {
    const styleRes = await s.get('/assets/style.json');
    expect(styleRes.status).to.equal(200);
    expect(styleRes.headers.get('etag')).to.match(/"/);
    const style = (await styleRes.json()) as { version: number; sources: Record<string, { type: string; data: string }>; layers: { id: string; type: string; source?: string }[] };
    expect(style.version).to.equal(8);
    expect(style.layers.map((l) => l.type)).to.deep.equal(['background', 'fill', 'line']);
    const url = style.sources.basemap!.data;
    expect(url.startsWith(assets)).to.equal(true);
    const res = await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/geo\+json/);
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    const geo = (await res.json()) as { type: string; features: { type: string; properties: { kind: string }; geometry: { type: string; coordinates: unknown[] } }[] };
    expect(geo.type).to.equal('FeatureCollection');
    expect(geo.features.map((f) => [f.properties.kind, f.geometry.type])).to.deep.equal([['land', 'MultiPolygon'], ['border', 'MultiLineString']]);
    // Natural Earth 1:50m: over a thousand land polygons, every ring closed, positions in range.
    const land = geo.features[0]!.geometry.coordinates as number[][][][];
    expect(land.length).to.be.greaterThan(1000);
    for (const polygon of land) {
      for (const ring of polygon) {
        expect(ring.length).to.be.at.least(4);
        expect(ring[0]).to.deep.equal(ring[ring.length - 1]);
        for (const [x, y] of ring) expect(Math.abs(x!) <= 180 && Math.abs(y!) <= 90, `${x}, ${y}`).to.equal(true);
      }
    }
    expect((geo.features[1]!.geometry.coordinates as number[][][]).length).to.be.greaterThan(100);
  });

  it('serves the favicon as SVG, and keeps the assets out of the API document', async () => {
    const res = await s.get('/favicon.ico');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).to.match(/max-age=\d+/);
    expect(await res.text()).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const doc = (await (await s.get('/api/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/assets') || p.startsWith('/favicon'))).to.deep.equal([]);
  });

  it('embeds each map page\'s config and keeps its SVG fallback', async () => {
    const raster = s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
    const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!;
    const g = s.config.grids.default;
    const zone = ((await (await s.get(`/collections/${raster.id}/dggs/${g}/zones?bbox=10,46,10.01,46.01&zone-level=3&f=json`)).json()) as { zones: string[] }).zones[0]!;
    const pages: [string, (c: Record<string, unknown> & { choropleth?: Record<string, unknown> }) => void][] = [
      [`/collections/${raster.id}`, (c) => {
        expect(c.choropleth!.tileJson).to.equal(`${s.base}/collections/${raster.id}/dggs/${g}/tiles/WebMercatorQuad?f=tilejson`);
        expect(c.fit).to.deep.equal(raster.extent!.spatial!.bbox![0]);
      }],
      [`/collections/${raster.id}/dggs/${g}/zones?bbox=5,44,16,48&zone-level=4`, (c) => {
        expect(c.dataUrl).to.match(/\/zones\?.*f=geo%2Bjson/);
        expect(c.drawBox).to.equal('bbox');
      }],
      [`/collections/${raster.id}/dggs/${g}/zones/${zone}`, (c) => {
        const features = (c.data as { features: { properties: { role: string; zoneID: string } }[] }).features;
        expect(features.filter((f) => f.properties.role === 'zone').map((f) => f.properties.zoneID)).to.deep.equal([zone]);
        for (const role of ['parent', 'child', 'neighbour']) expect(features.some((f) => f.properties.role === role), role).to.equal(true);
      }],
      [`/collections/${raster.id}/dggs/${g}/zones/${zone}/data?zone-depth=2`, (c) => {
        expect(c.choropleth!.depth).to.equal(2);
        expect(c.choropleth!.fields).to.deep.equal([{ name: 'elevation', title: 'Elevation', unit: 'm' }]);
        expect(c.hrefTemplate).to.equal(`${s.base}/collections/${raster.id}/dggs/${g}/zones/{id}?f=html`);
      }],
      [`/collections/${lake.id}/items?limit=5`, (c) => expect(c.dataUrl).to.match(/\/items\?.*f=geo%2Bjson/)],
      [`/collections/${lake.id}/items/0`, (c) => expect((c.data as { geometry: { type: string } }).geometry.type).to.equal('Point')],
    ];
    for (const [p, check] of pages) {
      const html = await (await s.get(`${p}${p.includes('?') ? '&' : '?'}f=html`)).text();
      const map = pageMap(html);
      expect(map.frame, `${p}: SVG fallback in the map frame`).to.equal(true);
      expect(map.css, p).to.equal(`${assets}maplibre-gl.css`);
      expect(map.script, p).to.equal(`${assets}map.js`);
      expect(map.config?.style, p).to.equal(`${s.base}/assets/style.json`);
      check(map.config!);
    }
    // Pages without a map load nothing of it.
    expect(pageMap(await (await s.get('/conformance?f=html')).text())).to.deep.equal({ css: undefined, script: undefined, config: undefined, frame: false });
  });

  it('draws a grid\'s tiles on its page and its tileset\'s, and a collection\'s data on its grid\'s and tileset\'s pages, the tileset\'s query carried', async () => {
    const raster = s.config.collections.find((c) => c.backing.kind === 'raster-url')!;
    const g = s.config.grids.default;
    const config = async (p: string) => {
      const html = await (await s.get(p)).text();
      // These pages have no SVG: the frame holds a note for browsers without the map.
      expect(html, p).to.match(/<div class="mapframe" data-map-frame><p class="caption" data-map-fallback>/);
      return pageMap(html).config!;
    };
    const bare = await config(`/dggs/${g}?f=html`);
    expect(bare.outlines).to.deep.equal({ tileJson: `${s.base}/dggs/${g}/tiles/WebMercatorQuad?f=tilejson` });
    expect(bare.hrefTemplate).to.equal(`${s.base}/dggs/${g}/zones/{id}?f=html`);
    expect(bare.choropleth).to.equal(undefined);
    const tileset = await config(`/dggs/H3/tiles/WebMercatorQuad?f=html&zone-level=2`);
    expect((tileset.outlines as { tileJson: string }).tileJson).to.equal(`${s.base}/dggs/H3/tiles/WebMercatorQuad?zone-level=2&f=tilejson`);
    // The TileJSON the map reads answers, and its tiles carry the query.
    const tj = (await (await fetch((tileset.outlines as { tileJson: string }).tileJson)).json()) as { tiles: string[] };
    expect(tj.tiles[0]).to.match(/\/dggs\/H3\/tiles\/WebMercatorQuad\/\{z\}\/\{y\}\/\{x\}\?zone-level=2$/);
    const scoped = await config(`/collections/${raster.id}/dggs/H3?f=html`);
    expect(scoped.choropleth!.tileJson).to.equal(`${s.base}/collections/${raster.id}/dggs/H3/tiles/WebMercatorQuad?f=tilejson`);
    expect(scoped.outlines).to.equal(undefined);
    const scopedSet = await config(`/collections/${raster.id}/dggs/${g}/tiles/WebMercatorQuad?f=html&properties=elevation`);
    expect(scopedSet.choropleth!.tileJson).to.equal(`${s.base}/collections/${raster.id}/dggs/${g}/tiles/WebMercatorQuad?properties=elevation&f=tilejson`);
  });
});

describe('HTTP: a configured basemap style', function () {
  this.timeout(60_000);
  it('replaces the offline one: /assets/style.json redirects to it', async () => {
    const s = await startTestServer({ map: { basemapStyle: 'https://tiles.example.org/styles/bright.json' } });
    try {
      const res = await fetch(`${s.base}/assets/style.json`, { redirect: 'manual' });
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('https://tiles.example.org/styles/bright.json');
    } finally {
      await s.close();
    }
  });
});
