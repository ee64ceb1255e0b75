/**
 * The HTML pages' interactive maps in headless Chromium with software WebGL: the collection page
 * (its vector tiles), a zone-data page and a zone list are loaded until the map is idle, then the
 * map's rectangle is screenshot and read pixel by pixel: the offline basemap's land and ocean
 * colours show, the zones are drawn (in several colours of the ramp where values colour them),
 * and hovering a zone shows its id and the value zone data gives for it. Screenshots are kept in
 * test-output/screenshots/ (CI artefacts).
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { REPO_ROOT, startTestServer, type TestServer } from '../support/test-server.js';
import { Chromium } from './chromium.js';
import { BASEMAP_COLOURS } from '../../src/http/html/basemap.js';
import { CHOROPLETH_OPACITY, CHOROPLETH_RAMP } from '../../src/http/html/page-maps.js';

const SHOTS = path.join(REPO_ROOT, 'test-output/screenshots');

// The page-side functions run inside Chromium; the project compiles without the DOM library.
type Rect = { x: number; y: number; width: number; height: number };
declare const document: { readyState: string; querySelector(s: string): { dataset: Record<string, string>; textContent: string | null; scrollIntoView(o?: object): void; getBoundingClientRect(): { left: number; top: number; width: number; height: number } } | null };
declare const location: { href: string };
declare const window: { __mapIdle?: boolean; __map?: PageMap; scrollX: number; scrollY: number };
declare function requestAnimationFrame(f: () => void): void;
interface PageMap {
  querySourceFeatures(source: string, options?: object): { properties: Record<string, unknown>; geometry: { type: string; coordinates: number[][][] | number[][][][] } }[];
  queryRenderedFeatures(options?: object): { properties: Record<string, unknown>; geometry: { type: string; coordinates: number[][][] | number[][][][] } }[];
  /** `point`: [x, y] (a plain {x, y} object would be read as the options, and the whole map queried). */
  queryRenderedFeatures(point: [number, number], options?: object): { properties: Record<string, unknown> }[];
  getZoom(): number;
  project(lngLat: [number, number]): { x: number; y: number };
  getContainer(): { getBoundingClientRect(): { left: number; top: number; width: number; height: number } };
}

type Rgb = [number, number, number];
const hex = (h: string): Rgb => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
const near = (a: Rgb, b: Rgb, tolerance = 6) => a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);

/** Pixels of a PNG: how many are near each given colour, and the other colours (quantised to 16 levels) with their counts. */
function pixels(png: Buffer, named: Record<string, Rgb>) {
  const image = PNG.sync.read(png);
  const counts: Record<string, number> = Object.fromEntries(Object.keys(named).map((k) => [k, 0]));
  const others = new Map<string, number>();
  for (let i = 0; i < image.data.length; i += 4) {
    const c: Rgb = [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
    const name = Object.keys(named).find((k) => near(c, named[k]!));
    if (name) counts[name]!++;
    else {
      const key = c.map((v) => v >> 4).join(',');
      others.set(key, (others.get(key) ?? 0) + 1);
    }
  }
  return { total: image.width * image.height, counts, others };
}

/**
 * The colours a zone with a value can take: the ramp (interpolated between its stops, in tenths)
 * at its opacity over land or ocean, with the tenth of the ramp each stands for.
 */
function rampColours(): { colour: Rgb; tenth: number }[] {
  const stops = CHOROPLETH_RAMP.map(hex);
  const out: { colour: Rgb; tenth: number }[] = [];
  for (let k = 0; k <= 100; k++) {
    const t = (k / 100) * (stops.length - 1);
    const i = Math.min(Math.floor(t), stops.length - 2);
    const c = stops[i]!.map((v, j) => v + (stops[i + 1]![j]! - v) * (t - i)) as Rgb;
    for (const under of [BASEMAP_COLOURS.land, BASEMAP_COLOURS.ocean].map(hex)) {
      out.push({ colour: c.map((v, j) => Math.round(v * CHOROPLETH_OPACITY + under[j]! * (1 - CHOROPLETH_OPACITY))) as Rgb, tenth: Math.min(9, Math.floor(k / 10)) });
    }
  }
  return out;
}

/** Pixels of the ramp's colours, counted by the tenth of the ramp they show. */
function rampTenths(png: Buffer): number[] {
  const image = PNG.sync.read(png);
  const ramp = rampColours();
  const tenths = new Array<number>(10).fill(0);
  for (let i = 0; i < image.data.length; i += 4) {
    const c: Rgb = [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
    const hit = ramp.find((r) => near(c, r.colour, 4));
    if (hit) tenths[hit.tenth]!++;
  }
  return tenths;
}

const fmt = (v: number) => v.toLocaleString('en-US', { maximumSignificantDigits: 7, useGrouping: false });

describe('Interactive maps of the HTML pages in headless Chromium (WebGL)', function () {
  this.timeout(600_000);
  let s: TestServer;
  let browser: Chromium;

  before(async () => {
    s = await startTestServer();
    browser = await Chromium.launch(1280, 900, { webgl: true });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  const grid = () => s.app.container.get<{ defaultGrid: { id: string; zoneFromPoint(lon: number, lat: number, level: number): string } }>(Symbol.for('GridRegistry')).defaultGrid;
  const raster = () => s.config.collections.find((c) => c.backing.kind === 'raster-url')!;

  /** Loads a page, waits for its map to be idle (or to fail), and screenshots the map's rectangle. */
  async function openMap(name: string, p: string, svgFallback = true): Promise<Buffer> {
    await browser.open(`${s.base}${p}`);
    const state = await browser.evaluate(async () => {
      const frame = document.querySelector('[data-map-frame]');
      // Bounded wait: the page's tiles and GeoJSON come from the local server.
      for (let i = 0; i < 600 && frame && !window.__mapIdle && frame.dataset.mapState !== 'failed'; i++) await new Promise((r) => setTimeout(r, 100));
      return { state: frame?.dataset.mapState, error: document.querySelector('.map-error')?.textContent ?? null };
    });
    expect(state, name).to.deep.equal({ state: 'idle', error: null });
    const rect = await browser.evaluate(async (): Promise<Rect> => {
      document.querySelector('.map-canvas')!.scrollIntoView({ block: 'center' });
      // Idle means rendered; two frames later the canvas is composited into what a screenshot takes.
      await new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const e = document.querySelector('.map-canvas')!.getBoundingClientRect();
      return { x: e.left + window.scrollX, y: e.top + window.scrollY, width: e.width, height: e.height };
    });
    const png = await browser.screenshot(rect);
    writeFileSync(path.join(SHOTS, `${name}.png`), png);
    // The SVG fallback is hidden once the map is there.
    if (svgFallback) expect(await browser.evaluate(() => (document.querySelector('[data-map-frame] svg.map') as unknown as { style: { display: string } } | null)?.style.display), name).to.equal('none');
    return png;
  }

  /** Moves the mouse over a zone of the map with a value of the field picked, and returns the zone's id and the tooltip's text. */
  async function hoverZone(idProperty: string): Promise<{ zoneId: string; tip: string; at: { x: number; y: number } }> {
    const target = await browser.evaluate(() => {
      const map = window.__map!;
      const box = map.getContainer().getBoundingClientRect();
      const field = (document.querySelector('.map-panel select') as unknown as { value: string }).value;
      // A zone with a value whose centre lies well inside the map (and so over its own polygon).
      for (const f of map.queryRenderedFeatures({ layers: ['fill'] })) {
        const ring = (f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0]![0]) as number[][];
        const lon = ring.slice(1).reduce((a, c) => a + c[0]!, 0) / (ring.length - 1);
        const lat = ring.slice(1).reduce((a, c) => a + c[1]!, 0) / (ring.length - 1);
        const pt = map.project([lon, lat]);
        if (pt.x > 60 && pt.y > 60 && pt.x < box.width - 60 && pt.y < box.height - 60 && typeof f.properties[field] === 'number') {
          return { x: box.left + pt.x, y: box.top + pt.y, properties: f.properties };
        }
      }
      return null;
    });
    expect(target, 'a zone with a value inside the map').to.not.equal(null);
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: target!.x, y: target!.y });
    const tip = await browser.evaluate(async () => {
      for (let i = 0; i < 50 && !document.querySelector('.map-tip'); i++) await new Promise((r) => setTimeout(r, 100));
      return document.querySelector('.map-tip')?.textContent ?? '';
    });
    return { zoneId: String(target!.properties[idProperty]), tip, at: { x: target!.x, y: target!.y } };
  }

  const mouse = (type: string, at: { x: number; y: number }) => browser.send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
  async function click(at: { x: number; y: number }): Promise<void> {
    await mouse('mousePressed', at);
    await mouse('mouseReleased', at);
  }

  /**
   * The page's URL once `ready` holds for it and it has loaded (a navigation is under way; its
   * load event must not be taken for the next page's).
   */
  async function pageUrl(ready: (url: string) => boolean): Promise<string> {
    let url = '';
    for (let i = 0; i < 100 && !(url && ready(url)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      url = await browser.evaluate(() => (document.readyState === 'complete' ? location.href : '')).catch(() => '');
    }
    return url;
  }

  it('zone data: a choropleth of the sub-zones over the basemap, the hovered zone showing its value', async () => {
    const zone = grid().zoneFromPoint(10, 46, 3);
    const dataPath = `/collections/${raster().id}/dggs/${grid().id}/zones/${zone}/data`;
    const png = await openMap('zone-data', `${dataPath}?zone-depth=3&f=html`);
    const { total, counts } = pixels(png, { ocean: hex(BASEMAP_COLOURS.ocean), land: hex(BASEMAP_COLOURS.land) });
    expect(counts.land, 'land').to.be.greaterThan(total * 0.005);
    expect(counts.ocean, 'ocean').to.be.greaterThan(total * 0.001);
    // Zones in the ramp's colours, low and high values alike: most tenths of the ramp show.
    const tenths = rampTenths(png);
    expect(tenths.filter((n) => n >= 50).length, `pixels by tenth of the ramp: ${tenths}`).to.be.at.least(5);

    const { zoneId, tip, at: hovered } = await hoverZone('zone_id');
    const answer = (await (await s.get(`${dataPath}?zone-depth=3&f=json`)).json()) as { zones: { zoneIds: string[] }[]; values: { elevation: { data: (number | null)[] }[] } };
    const value = answer.values.elevation[0]!.data[answer.zones[0]!.zoneIds.indexOf(zoneId)];
    expect(value, `zone data's value of ${zoneId}`).to.be.a('number');
    expect(tip).to.contain(zoneId).and.to.contain(fmt(value!));

    // Another depth from the picker: the map fetches that depth's sub-zones.
    const depth2 = ((await (await s.get(`${dataPath}?zone-depth=2&f=json`)).json()) as { zones: { zoneIds: string[] }[] }).zones[0]!.zoneIds.length;
    const shown = await browser.evaluate(async () => {
      const picker = [...(document as unknown as { querySelectorAll(s: string): { value: string; dispatchEvent(e: unknown): void }[] }).querySelectorAll('.map-panel select')][1]!;
      picker.value = '2';
      picker.dispatchEvent(new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('change'));
      let n = 0;
      for (let i = 0; i < 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        n = new Set(window.__map!.querySourceFeatures('content').map((f) => f.properties.zone_id)).size;
        if (n > 0 && n < 100) break;
      }
      return n;
    });
    expect(shown, 'sub-zones at depth 2').to.equal(depth2);

    // A click goes to the page of the sub-zone under the mouse (the tooltip names it).
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: hovered.x + 1, y: hovered.y });
    const under = (await browser.evaluate(() => document.querySelector('.map-tip')?.textContent ?? '')).split(':')[0]!;
    expect(under).to.match(/\S/);
    await click(hovered);
    expect(await pageUrl((u) => !u.includes('/data'))).to.equal(`${s.base}/collections/${raster().id}/dggs/${grid().id}/zones/${under}?f=html`);
  });

  it('zone list: every zone of the page drawn over the basemap', async () => {
    const png = await openMap('zone-list', `/collections/${raster().id}/dggs/${grid().id}/zones?bbox=5,44,16,48&zone-level=5&f=html`);
    const { total, counts, others } = pixels(png, { ocean: hex(BASEMAP_COLOURS.ocean), land: hex(BASEMAP_COLOURS.land) });
    // The zones are translucent blue: over land they are much bluer than anything of the basemap.
    let zonePixels = 0;
    for (const [key, n] of others) {
      const [r, , b] = key.split(',').map(Number) as Rgb;
      if (b - r >= 3) zonePixels += n;
    }
    expect(zonePixels, 'zone pixels').to.be.greaterThan(total * 0.2);
    expect(counts.land + counts.ocean, 'basemap around the zones').to.be.greaterThan(0);
    // All the page's zones are on the map, as many as the page lists.
    const listed = ((await (await s.get(`/collections/${raster().id}/dggs/${grid().id}/zones?bbox=5,44,16,48&zone-level=5&f=json`)).json()) as { zones: string[] }).zones;
    const drawn = await browser.evaluate(() => [...new Set(window.__map!.querySourceFeatures('content').map((f) => f.properties.zoneID))].length);
    expect(drawn).to.equal(listed.length);

    // "Draw box", then a drag from 7°E 45°N to 12°E 47°N fills the form's bbox.
    const [from, to] = await browser.evaluate(() => {
      const map = window.__map!;
      const box = map.getContainer().getBoundingClientRect();
      (document.querySelector('.map-panel button') as unknown as { click(): void }).click();
      return ([[7, 45], [12, 47]] as [number, number][]).map((p) => {
        const pt = map.project(p);
        return { x: box.left + pt.x, y: box.top + pt.y };
      });
    });
    await mouse('mousePressed', from!);
    for (let k = 1; k <= 5; k++) await mouse('mouseMoved', { x: from!.x + ((to!.x - from!.x) * k) / 5, y: from!.y + ((to!.y - from!.y) * k) / 5 });
    await mouse('mouseReleased', to!);
    const bbox = (await browser.evaluate(() => (document.querySelector('input[name="bbox"]') as unknown as { value: string }).value)).split(',').map(Number);
    expect(bbox).to.have.length(4);
    [7, 45, 12, 47].forEach((v, i) => expect(bbox[i], `bbox ${bbox}`).to.be.closeTo(v, 0.05));
  });

  it('collection page of a lake: a datetime picked gives that time\'s values', async () => {
    const lake = s.config.collections.find((c) => c.backing.kind === 'parquet-lake')!;
    await openMap('collection-lake', `/collections/${lake.id}?f=html`);
    const datetime = lake.extent!.temporal!.interval![0]![0]!;
    // The new tiles replace the old under the same layers; idle once they are drawn (the wait is
    // set up in the same turn as the change, so it cannot miss it).
    await browser.send('Runtime.evaluate', {
      expression: `(() => { const i = document.querySelector('.map-panel input'); i.value = ${JSON.stringify(datetime)}; window.__retimed = new Promise((r) => { i.dispatchEvent(new Event('change')); window.__map.once('idle', r); }); })()`,
    });
    await browser.send('Runtime.evaluate', { expression: 'window.__retimed', awaitPromise: true });
    const error = await browser.evaluate(() => document.querySelector('.map-error')?.textContent ?? null);
    expect(error).to.equal(null);
    const { zoneId, tip } = await hoverZone('zoneId');
    const field = await browser.evaluate(() => (document.querySelector('.map-panel select') as unknown as { value: string }).value);
    const answer = (await (await s.get(`/collections/${lake.id}/dggs/${grid().id}/zones/${zoneId}/data?zone-depth=0&datetime=${encodeURIComponent(datetime)}&properties=${field}&f=json`)).json()) as { values: Record<string, { data: (number | null)[] }[]> };
    const value = answer.values[field]![0]!.data[0];
    expect(value, `zone data's ${field} of ${zoneId} at ${datetime}`).to.be.a('number');
    expect(tip).to.contain(zoneId).and.to.contain(fmt(value!));
  });

  it('grid page: the grid\'s zones through its vector tiles over the world, the hovered zone named, of the level the rule gives', async () => {
    const g = grid().id;
    const png = await openMap('grid', `/dggs/${g}?f=html`, false);
    const { total, counts, others } = pixels(png, { ocean: hex(BASEMAP_COLOURS.ocean), land: hex(BASEMAP_COLOURS.land), outline: hex('#0b4f94') });
    // Outlines everywhere, over a faint blue fill: the basemap's own colours are covered.
    expect(counts.outline, 'outline pixels').to.be.greaterThan(total * 0.01);
    let tinted = 0;
    for (const [key, n] of others) {
      const [r, , b] = key.split(',').map(Number) as Rgb;
      if (b > r) tinted += n;
    }
    expect(tinted, 'zones tinted over land and ocean').to.be.greaterThan(total * 0.3);
    expect(await browser.evaluate(() => document.querySelector('[data-map-fallback]')?.textContent && (document.querySelector('[data-map-fallback]') as unknown as { hidden: boolean }).hidden)).to.equal(true);

    const target = await browser.evaluate(() => {
      const map = window.__map!;
      const box = map.getContainer().getBoundingClientRect();
      const pt = { x: box.width / 2, y: box.height / 2 };
      const under = map.queryRenderedFeatures([pt.x, pt.y], { layers: ['fill'] });
      // Zones do not overlap: one zone under a point (twice at most, where tiles' buffers overlap).
      const f = new Set(under.map((u) => u.properties.zoneId)).size === 1 ? under[0] : undefined;
      return { x: box.left + pt.x, y: box.top + pt.y, zoneId: f ? String(f.properties.zoneId) : '', zoom: map.getZoom() };
    });
    expect(target.zoneId, 'one zone under the map\'s centre').to.match(/\S/);
    await browser.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: target.x, y: target.y });
    const tip = await browser.evaluate(async () => {
      for (let i = 0; i < 50 && !document.querySelector('.map-tip'); i++) await new Promise((r) => setTimeout(r, 100));
      return document.querySelector('.map-tip')?.textContent ?? '';
    });
    expect(tip).to.equal(target.zoneId);
    // The zone is the grid's, of the level of the tiles MapLibre asked at this zoom (512-pixel tiles: floor of the map's zoom, or the next).
    const info = await s.get(`/dggs/${g}/zones/${encodeURIComponent(target.zoneId)}?f=json`);
    expect(info.status).to.equal(200);
    const level = ((await info.json()) as { level: number }).level;
    const levels = await Promise.all([Math.floor(target.zoom), Math.ceil(target.zoom)].map(async (z) => Number((await s.get(`/dggs/${g}/tiles/WebMercatorQuad/${z}/0/0`)).headers.get('x-zone-level'))));
    expect(levels, `the rule's levels at zoom ${target.zoom}`).to.include(level);
  });

  it('collection page: the data through its vector tiles, a legend, and hover values', async () => {
    const c = raster();
    const png = await openMap('collection', `/collections/${c.id}?f=html`);
    const { total, counts } = pixels(png, { ocean: hex(BASEMAP_COLOURS.ocean), land: hex(BASEMAP_COLOURS.land) });
    expect(counts.land, 'land').to.be.greaterThan(total * 0.005);
    const tenths = rampTenths(png);
    expect(tenths.filter((n) => n >= 50).length, `pixels by tenth of the ramp: ${tenths}`).to.be.at.least(5);
    const legend = await browser.evaluate(() => document.querySelector('.map-legend')?.textContent ?? '');
    expect(legend).to.match(/-?\d.*-?\d/);

    const { zoneId, tip } = await hoverZone('zoneId');
    // A tile's zone carries the zone's own value: zone data at depth 0.
    const answer = (await (await s.get(`/collections/${c.id}/dggs/${grid().id}/zones/${zoneId}/data?zone-depth=0&f=json`)).json()) as { values: { elevation: { data: (number | null)[] }[] } };
    const value = answer.values.elevation[0]!.data[0];
    expect(value, `zone data's value of ${zoneId}`).to.be.a('number');
    expect(tip).to.contain(zoneId).and.to.contain(fmt(value!));
  });
});
