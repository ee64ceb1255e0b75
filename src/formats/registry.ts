import { CONF } from './conformance-classes.js';

/**
 * The response formats, each declared once: its media type, the `f` value links write, what else
 * asks for it (`f` values and media types), whether its bodies are bytes, and the resources that
 * offer it with the conformance classes it brings there. HTTP negotiation, the API document's `f`
 * enums and response media types, and the conformance declaration all read this table. Zone data
 * is offered through its own list of encodings (zone-data/encodings.ts), which carries its encoders.
 */
export type Resource =
  /** A plain JSON resource with its HTML page: landing, conformance, collections, grids, concepts. */
  | 'resource'
  | 'zone-list'
  | 'zone-info'
  | 'items'
  /** A tileset description (OGC API Tiles TileSet, its page, its TileJSON) and tilesets lists. */
  | 'tileset'
  /** One vector tile of zones. */
  | 'vector-tile';

export interface FormatRecord {
  /** Its short name, as the HTML pages' format links show it. */
  label: string;
  mediaType: string;
  /** The `f` value a client would write (used in links and hints). */
  f: string;
  /** What else asks for it besides its id, `f` value and media type (other `f` values and media types). */
  aliases: readonly string[];
  /** Bodies are bytes, not JSON or text (documented as binary strings). */
  binary: boolean;
  /** The file name extension of a download in this format (file-names.ts), without its dot. */
  extension: string;
  /** Resources offering the format, each with the conformance classes the format brings there. */
  offeredBy: Partial<Record<Resource, readonly string[]>>;
}

/** In the order resources list them after their default format. */
const RECORDS = {
  json: { label: 'JSON', mediaType: 'application/json', f: 'json', aliases: [], binary: false, extension: 'json', offeredBy: { resource: [], 'zone-list': [], 'zone-info': [], items: [], tileset: [] } },
  html: { label: 'HTML', mediaType: 'text/html', f: 'html', aliases: [], binary: false, extension: 'html', offeredBy: { resource: [], 'zone-list': [CONF.dggsZoneHtml], 'zone-info': [CONF.dggsZoneHtml], items: [CONF.featuresHtml], tileset: [] } },
  'dggs-json': { label: 'DGGS-JSON', mediaType: 'application/vnd.ogc.dggs+json', f: 'dggs+json', aliases: ['dggsjson'], binary: false, extension: 'json', offeredBy: {} },
  /** DGGS-UBJSON: the DGGS-JSON document in Universal Binary JSON, under the OGC media type and the plain one the standard's table names. */
  'dggs-ubjson': { label: 'DGGS-UBJSON', mediaType: 'application/vnd.ogc.dggs+ubjson', f: 'dggs+ubjson', aliases: [], binary: true, extension: 'ubj', offeredBy: {} },
  ubjson: { label: 'UBJSON', mediaType: 'application/ubjson', f: 'ubjson', aliases: [], binary: true, extension: 'ubj', offeredBy: {} },
  geojson: { label: 'GeoJSON', mediaType: 'application/geo+json', f: 'geo+json', aliases: [], binary: false, extension: 'geojson', offeredBy: { 'zone-list': [CONF.dggsZoneGeojson], 'zone-info': [CONF.dggsZoneGeojson], items: [CONF.featuresGeojson] } },
  parquet: { label: 'Parquet', mediaType: 'application/vnd.apache.parquet', f: 'parquet', aliases: [], binary: true, extension: 'parquet', offeredBy: { 'zone-list': [], items: [] } },
  geoparquet: { label: 'GeoParquet', mediaType: 'application/vnd.geo+parquet', f: 'geoparquet', aliases: [], binary: true, extension: 'parquet', offeredBy: { 'zone-list': [], items: [] } },
  /** Zone data as classic netCDF-3 (zone-data/netcdf.ts); `application/x-netcdf` is the type the standard's profile parameter names. */
  netcdf: { label: 'netCDF', mediaType: 'application/netcdf', f: 'netcdf', aliases: ['nc', 'application/x-netcdf'], binary: true, extension: 'nc', offeredBy: {} },
  /** Zone data as CoverageJSON (zone-data/coveragejson.ts). */
  coveragejson: { label: 'CoverageJSON', mediaType: 'application/prs.coverage+json', f: 'covjson', aliases: ['coveragejson'], binary: false, extension: 'covjson', offeredBy: {} },
  /** Zone data as one 16-bit image of one zone-depth (zone-data/png.ts). */
  png: { label: 'PNG', mediaType: 'image/png', f: 'png', aliases: [], binary: true, extension: 'png', offeredBy: {} },
  /** Zone data as one lossless 8-bit JPEG-XL image of one zone-depth (zone-data/jpegxl.ts). */
  jpegxl: { label: 'JPEG-XL', mediaType: 'image/jxl', f: 'jxl', aliases: ['jpegxl'], binary: true, extension: 'jxl', offeredBy: {} },
  /** Zone lists as little-endian 64-bit integers (OGC 21-038r1 /req/zone-uint64). */
  uint64: { label: 'uint64', mediaType: 'application/x-binary', f: 'uint64', aliases: ['x-binary'], binary: true, extension: 'bin', offeredBy: { 'zone-list': [CONF.dggsZoneUint64] } },
  /** GeoTIFF: zone data as a raster per depth (OGC 21-038r1 data-geotiff), zone lists as a raster of zone ids (zone-geotiff). */
  geotiff: { label: 'GeoTIFF', mediaType: 'image/tiff', f: 'geotiff', aliases: ['tiff', 'tif'], binary: true, extension: 'tif', offeredBy: { 'zone-list': [CONF.dggsZoneGeotiff] } },
  /**
   * TileJSON 3.0.0 of a tileset, for MapLibre and other web maps. No media type is registered for
   * it; this is the one Mapbox used, and its body is plain JSON (clients parse it as JSON whatever
   * the type says).
   */
  tilejson: { label: 'TileJSON', mediaType: 'application/vnd.mapbox.tile+json', f: 'tilejson', aliases: [], binary: false, extension: 'json', offeredBy: { tileset: [] } },
  /** Mapbox Vector Tile 2.1 (protobuf); compressed in transit like any other answer (src/http/compression.ts). */
  mvt: { label: 'MVT', mediaType: 'application/vnd.mapbox-vector-tile', f: 'mvt', aliases: ['pbf', 'application/x-protobuf'], binary: true, extension: 'pbf', offeredBy: { 'vector-tile': [CONF.tilesMvt] } },
  /** Zipped Zarr 2 zone data (OGC 21-038r1 /req/data-zarr), one group per depth (zone-data/zarr.ts). */
  zarr: { label: 'Zarr', mediaType: 'application/zarr+zip', f: 'zarr', aliases: ['zarr+zip'], binary: true, extension: 'zarr.zip', offeredBy: {} },
  /**
   * DGGS-UBJSON-FG (OGC 21-038r1 /req/data-dggs-ubjsonfg): the DGGS-JSON-FG features of a lake
   * collection's zone in UBJSON. Not a zone-data encoding (it writes features, not values): the
   * collection zone-data route offers it beside them where it has features (routes/zone-data-collection.ts).
   */
  'geo-ubjson': { label: 'UBJSON-FG', mediaType: 'application/geo+ubjson', f: 'geo+ubjson', aliases: [], binary: true, extension: 'ubj', offeredBy: {} },
  openapi: { label: 'OpenAPI', mediaType: 'application/vnd.oai.openapi+json;version=3.1', f: 'json', aliases: ['application/vnd.oai.openapi+json'], binary: false, extension: 'json', offeredBy: {} },
} as const satisfies Record<string, FormatRecord>;

export type Format = keyof typeof RECORDS;
export const FORMAT_RECORDS: Readonly<Record<Format, FormatRecord>> = RECORDS;
const ids = Object.keys(RECORDS) as Format[];

export const mediaType = (format: Format): string => RECORDS[format].mediaType;

/** The `f` value a client would write for each format. */
export const F_VALUE = Object.fromEntries(ids.map((id) => [id, RECORDS[id].f])) as Record<Format, string>;

/**
 * Format asked by an `f` value or a media type (lower case). The `f` value `json` is plain JSON,
 * never the API document, which is asked by its media type.
 */
export const FORMAT_BY_NAME: ReadonlyMap<string, Format> = new Map(
  ids.flatMap((id) => [...(id === 'openapi' ? [] : [id, RECORDS[id].f]), RECORDS[id].mediaType, ...RECORDS[id].aliases].map((name) => [name, id] as const)),
);

/** The formats a resource offers: its default first, then the others in table order. */
export function offeredBy(resource: Resource, defaultFormat: Format = 'json'): Format[] {
  return [defaultFormat, ...ids.filter((id) => id !== defaultFormat && resource in RECORDS[id].offeredBy)];
}

/** The conformance classes the formats a resource offers bring there. */
export function formatConformance(resource: Resource): string[] {
  return ids.flatMap((id) => (RECORDS[id].offeredBy as FormatRecord['offeredBy'])[resource] ?? []);
}
