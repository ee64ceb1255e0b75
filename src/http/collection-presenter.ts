import type { Links } from './links.js';
import type { Collection as CollectionSchema } from './schemas/collections.js';
import { publicSourceHref } from './source-files.js';
import { collectionScope, TILE_REL, tilesPath } from './grid-scope.js';
import { frameAround, svgMap } from './html/svg-map.js';
import { offeredBy, type Format } from '../formats/registry.js';
import type { Collection } from '../domain/collection.js';

/** The formats a collection's description is offered in. */
export const COLLECTION_FORMATS = offeredBy('resource');
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

export const KIND_LABEL: Record<Collection['backing']['kind'], string> = {
  'parquet-lake': 'parquet lake',
  'raster-url': 'raster (COG)',
  stac: 'STAC catalog',
  'ogc-features': 'OGC API Features',
  'clickhouse-pyramid': 'zone pyramid (ClickHouse)',
};

/**
 * The contract's Collection body with its links; `tilesGrid`: the grid whose vector tiles of the
 * collection's data it links to (OGC API Tiles `tilesets-vector`).
 */
export function collectionBody(c: Collection, links: Links, format: Format, tilesGrid: string): CollectionSchema {
  const base = `/collections/${encodeURIComponent(c.id)}`;
  const list = [
    ...links.selfAndAlternates(base, format, COLLECTION_FORMATS, {}, c.title),
    links.link('http://www.opengis.net/def/rel/ogc/1.0/queryables', `${base}/queryables`, { type: 'application/schema+json', title: 'Queryables' }),
    links.link('describedby', `${base}/schema`, { type: 'application/schema+json', title: 'Schema' }),
    links.link('https://www.opengis.net/def/rel/ogc/1.0/dggrs-list', `${base}/dggs`, { type: 'application/json', title: 'Grids of this collection' }),
  ];
  list.push(links.link(TILE_REL.tilesetsVector, tilesPath(collectionScope(c), { id: tilesGrid }), { type: 'application/json', title: `Vector tiles of the data on ${tilesGrid}` }));
  const hasItems = c.backing.kind === 'parquet-lake';
  if (hasItems) list.push(links.link('items', `${base}/items`, { type: 'application/geo+json', title: 'Raw rows' }));
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    attribution: c.attribution,
    item_type: c.backing.kind === 'parquet-lake' || c.backing.kind === 'ogc-features' ? 'feature' : 'coverage',
    // What OGC API clients read: `itemType` (Common, Features) promises an items endpoint, so only
    // collections with one carry it; GDAL's OAPIF driver skips `layerDataType` Coverage (it reads
    // neither itemType nor the items link). Without items, a collection is served here only as
    // zone data, i.e. values over zones: a coverage, whatever its source records are.
    ...(hasItems ? { itemType: 'feature', layerDataType: 'Vector' as const } : { layerDataType: 'Coverage' as const }),
    crs: [CRS84],
    extent: c.extent,
    links: list,
  };
}

/** Where the collection's data is read from, as a link a browser can follow; undefined for a local file that is not served. */
export function sourceOf(c: Collection, links: Links): { href: string; title: string } | undefined {
  const b = c.backing;
  const local = (href: string, title: string) => {
    const url = publicSourceHref([c], href, (p) => links.href(p));
    return url ? { href: url, title } : undefined;
  };
  switch (b.kind) {
    case 'raster-url':
      return local(b.url, `Raster file ${b.url.split('/').pop()}`);
    case 'stac':
      return local(b.catalog, 'STAC catalog');
    case 'parquet-lake':
      return { href: links.href(`/collections/${encodeURIComponent(c.id)}/items`, { f: 'html' }), title: 'Rows (items)' };
    case 'ogc-features':
      return { href: `${b.url.replace(/\/+$/, '')}/collections/${encodeURIComponent(b.collection)}`, title: `OGC API Features collection ${b.collection}` };
    case 'clickhouse-pyramid':
      return { href: links.href(`/collections/${encodeURIComponent(b.source)}`, { f: 'html' }), title: `Aggregates of the lake collection ${b.source}` };
  }
}

/** The spatial extent over a labelled graticule, framed with room around it (the whole globe for wide extents). */
export function extentMap(c: Collection) {
  const boxes = c.extent?.spatial?.bbox ?? [];
  if (!boxes.length) return undefined;
  // A box crossing the antimeridian (west > east) is drawn east of its west edge.
  const rings = boxes.map(([w, s, e, n]) => {
    const east = e < w ? e + 360 : e;
    return [[w, s], [east, s], [east, n], [w, n], [w, s]];
  });
  const xs = rings.flatMap((r) => r.map((p) => p[0]!)), ys = rings.flatMap((r) => r.map((p) => p[1]!));
  const [fw, fs, fe, fn] = frameAround(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), 0.5, 10);
  const frame: [number, number, number, number] = fe - fw >= 300 ? [-180, -90, 180, 90] : [fw, fs, fe, fn];
  return svgMap({ polygons: rings.map((ring, i) => ({ rings: [ring], cls: 'ext', title: `Extent ${boxes[i]!.join(', ')}` })), frame, graticule: true, width: 560 });
}
