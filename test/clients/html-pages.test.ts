import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { Chromium } from './chromium.js';

interface PageFacts {
  title: string;
  h1: string;
  icon: string | null;
  maps: { shapes: number; width: number; height: number }[];
  /** The interactive map's state (map.js): this browser has no WebGL, so `failed` and the SVG stays. */
  mapState: string | null;
  nav: DOMRectJSON | null;
  trail: DOMRectJSON | null;
  formats: DOMRectJSON | null;
  formatLinks: number;
  links: string[];
  text: string;
  pageWidth: number;
}
type DOMRectJSON = { top: number; bottom: number; left: number; right: number };
// The page-side functions run inside Chromium; the project compiles without the DOM library, so
// this module declares the little of it they touch.
interface Element {
  getBoundingClientRect(): DOMRectJSON & { width: number; height: number };
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): Element[];
  getAttribute(name: string): string | null;
  textContent: string | null;
}
interface HTMLAnchorElement extends Element {
  href: string;
}
declare const document: {
  title: string;
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): Element[];
  body: Element & { innerText: string };
  documentElement: { scrollWidth: number };
};
declare const location: { href: string };

/** What the test reads from a rendered page (runs inside Chromium). */
function facts(): PageFacts {
  const rect = (e: Element | null | undefined) => {
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  };
  const nav = document.querySelector('nav.crumbs');
  return {
    title: document.title,
    h1: document.querySelector('h1')?.textContent ?? '',
    icon: document.querySelector('link[rel="icon"]')?.getAttribute('href') ?? null,
    maps: [...document.querySelectorAll('svg.map')].map((s) => ({
      shapes: s.querySelectorAll('path:not(.gr), circle').length,
      width: s.getBoundingClientRect().width,
      height: s.getBoundingClientRect().height,
    })),
    mapState: document.querySelector('[data-map-frame]')?.getAttribute('data-map-state') ?? null,
    nav: rect(nav),
    trail: rect(nav?.querySelector('.trail')),
    formats: rect(nav?.querySelector('.formats')),
    formatLinks: nav?.querySelectorAll('.formats a').length ?? 0,
    // SVG anchors carry their href as an attribute only.
    links: [...document.querySelectorAll('a[href]')].map((a) => new URL(a.getAttribute('href')!, location.href).href),
    text: document.body.innerText,
    pageWidth: document.documentElement.scrollWidth,
  };
}

const overlap = (a: DOMRectJSON, b: DOMRectJSON) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/**
 * Every kind of HTML page, rendered by headless Chromium at a desktop and a narrow width: real
 * content (maps with shapes, statistics, WKT, areas), the favicon, a breadcrumb bar whose format
 * links never overlap the trail, and no link of the page's own that answers 404 or 5xx.
 * Screenshots are written for people to look at. Without chromium the suite fails.
 */
describe('HTML pages in headless Chromium', function () {
  this.timeout(600_000);
  let s: TestServer;
  let browser: Chromium;
  const shots = path.join(tmpdir(), `dggs-html-${process.pid}`);
  const links = new Map<string, string>();

  before(async () => {
    s = await startTestServer();
    browser = await Chromium.launch();
    mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await s?.close();
    console.log(`      screenshots: ${shots}`);
  });

  const id = (kind: string) => s.config.collections.find((c) => c.backing.kind === kind)!.id;
  const grid = () => s.app.container.get<{ defaultGrid: { id: string; zoneFromPoint(lon: number, lat: number, level: number): string } }>(Symbol.for('GridRegistry')).defaultGrid;

  /** name, path, and what the page must show besides the common checks. */
  const pages = (): [string, string, (f: PageFacts) => void][] => {
    const g = grid();
    const zone = g.zoneFromPoint(10, 46, 3);
    const oneMap = (f: PageFacts) => {
      expect(f.maps.length, 'maps').to.be.greaterThan(0);
      expect(f.maps[0]!.shapes, 'shapes on the map').to.be.greaterThan(0);
      expect(f.maps[0]!.width).to.be.greaterThan(100);
    };
    return [
      ['landing', '/', (f) => expect(f.text).to.contain('Collections')],
      ['conformance', '/conformance', (f) => expect(f.text).to.contain('ogcapi-common-1/1.0/conf/core')],
      ['collections', '/collections', (f) => expect(f.text).to.contain(s.config.collections[0]!.title)],
      ...['parquet-lake', 'raster-url', 'stac', 'ogc-features'].map((k): [string, string, (f: PageFacts) => void] => [
        `collection-${k}`,
        `/collections/${id(k)}`,
        (f) => {
          oneMap(f);
          expect(f.text).to.match(/Source/);
        },
      ]),
      ['queryables', `/collections/${id('parquet-lake')}/queryables`, (f) => expect(f.text).to.contain('temperature')],
      ['schema', `/collections/${id('raster-url')}/schema`, (f) => expect(f.text).to.contain('elevation')],
      ['grids', '/dggs', (f) => expect(f.text).to.contain(g.id)],
      [
        'grid',
        `/dggs/${g.id}`,
        (f) => {
          // Level 0 of the default grid: twelve pentagons of one twelfth of the Earth each.
          expect(f.text).to.match(/Pentagon area/);
          expect(f.text).to.contain((510_065_621.7 / 12).toLocaleString('en-US', { maximumSignificantDigits: 6 }));
        },
      ],
      ['collection-grids', `/collections/${id('raster-url')}/dggs`, (f) => expect(f.text).to.contain(g.id)],
      ['zones-world', `/dggs/${g.id}/zones`, oneMap],
      ['zones-world-level1', `/dggs/${g.id}/zones?zone-level=1`, (f) => {
        oneMap(f);
        expect(f.maps[0]!.shapes).to.be.greaterThan(60);
      }],
      ['zones-collection', `/collections/${id('raster-url')}/dggs/${g.id}/zones`, oneMap],
      ['sub-zones', `/dggs/${g.id}/zones?parent-zone=${zone}`, oneMap],
      ['zone', `/dggs/${g.id}/zones/${zone}`, oneMap],
      ['zone-raster', `/collections/${id('raster-url')}/dggs/${g.id}/zones/${zone}`, (f) => {
        oneMap(f);
        expect(f.text).to.match(/Statistics[\s\S]*elevation/);
      }],
      ['zone-lake', `/collections/${id('parquet-lake')}/dggs/${g.id}/zones/${zone}`, (f) => expect(f.text).to.match(/Statistics[\s\S]*temperature/)],
      ['zone-data-raster', `/collections/${id('raster-url')}/dggs/${g.id}/zones/${zone}/data`, oneMap],
      ['zone-data-stac', `/collections/${id('stac')}/dggs/${g.id}/zones/${zone}/data?zone-depth=1`, oneMap],
      ['zone-data-lake', `/collections/${id('parquet-lake')}/dggs/${g.id}/zones/${zone}/data?zone-depth=1`, oneMap],
      ['items', `/collections/${id('parquet-lake')}/items?bbox=5,44,12,48&limit=25`, (f) => {
        oneMap(f);
        expect(f.text).to.match(/POINT \(-?\d/);
        expect(f.text).to.not.match(/0101000000/);
      }],
      ['item', `/collections/${id('parquet-lake')}/items/0`, (f) => {
        oneMap(f);
        expect(f.text).to.match(/POINT \(-?\d/);
        expect(f.text).to.not.match(/0101000000/);
      }],
      ['concepts', '/concepts', (f) => expect(f.h1).to.equal('Concepts')],
      ['concept', '/concepts/1', (f) => expect(f.text).to.contain('Processing')],
    ];
  };

  for (const width of [1280, 640]) {
    it(`renders every page kind with its content at ${width} px`, async () => {
      for (const [name, p, check] of pages()) {
        const url = `${s.base}${p}${p.includes('?') ? '&' : '?'}f=html`;
        await browser.open(url, width);
        const f = await browser.evaluate(facts);
        const where = `${name} (${width} px)`;
        expect(f.title, where).to.match(/· dggs-api$/);
        expect(f.icon, where).to.match(/^data:image\/svg\+xml,/);
        expect(f.h1, where).to.not.equal('');
        if (f.mapState !== null) expect(f.mapState, `${where}: map without WebGL`).to.equal('failed');
        try {
          check(f);
        } catch (err) {
          (err as Error).message = `${where}: ${(err as Error).message}`;
          throw err;
        }
        // Nothing pushes the page wider than the window (wide tables scroll inside the page).
        expect(f.pageWidth, `${where}: page wider than the window`).to.be.at.most(width);
        // The format links share the breadcrumb bar without covering the trail, and stay inside it.
        if (f.formatLinks) {
          expect(overlap(f.trail!, f.formats!), `${where}: format links overlap the breadcrumb trail`).to.equal(false);
          expect(f.formats!.bottom, `${where}: format links leave the bar`).to.be.at.most(f.nav!.bottom);
          expect(f.formats!.right, where).to.be.at.most(width);
        }
        // Every kind of link a page has, without fetching each of a world list's thousands of zones.
        for (const href of f.links.filter((h) => h.startsWith(s.base)).slice(0, 150)) if (!links.has(href)) links.set(href, where);
        const png = await browser.screenshot();
        expect(png.subarray(1, 4).toString(), where).to.equal('PNG');
        writeFileSync(path.join(shots, `${name}-${width}.png`), png);
      }
    });
  }

  it('answers every link of those pages (none 404 or 5xx)', async () => {
    expect(links.size).to.be.greaterThan(100);
    const failures: string[] = [];
    for (const [href, from] of links) {
      const res = await fetch(href, { headers: { Accept: 'text/html' } });
      await res.arrayBuffer();
      if (res.status === 404 || res.status >= 500) failures.push(`${res.status} ${href} (from ${from})`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('renders the API document in the offline viewer, one block per operation', async () => {
    const doc = (await (await s.get('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    await browser.open(`${s.base}/api`);
    const rendered = await browser.evaluate(async () => {
      for (let i = 0; i < 100 && document.querySelectorAll('.opblock').length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      return document.querySelectorAll('.opblock').length;
    });
    expect(rendered).to.equal(operations);
    writeFileSync(path.join(shots, 'api-1280.png'), await browser.screenshot());
  });
});
