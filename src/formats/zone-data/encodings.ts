import type { ZoneData } from '../../domain/zone-data.js';
import type { Format } from '../registry.js';
import type { ZoneDataContext, ZoneDataEncoding, ZoneDataPage } from './encoding.js';
import { bytesOf } from '../paced-pieces.js';
import { dggsJson, plainJson } from './dggs-json.js';
import { dggsUbjson, plainUbjson } from './ubjson.js';
import { geoJson } from './geojson.js';
import { geoParquet, parquet } from './parquet.js';
import { netcdf } from './netcdf.js';
import { coverageJson } from './coveragejson.js';
import { png } from './png.js';
import { jpegXl } from './jpegxl.js';
import { zarr } from './zarr.js';
import { geotiff } from './geotiff.js';

const HTML_PAGE: ZoneDataPage = { format: 'html', conformance: [], page: true };

/**
 * The zone-data formats, in the order routes offer them (the first is the default): a new
 * encoding is its own module and one line here.
 */
export const ZONE_DATA_ENCODINGS: readonly (ZoneDataEncoding | ZoneDataPage)[] = [dggsJson, plainJson, dggsUbjson, plainUbjson, geoJson, HTML_PAGE, parquet, geoParquet, netcdf, coverageJson, png, jpegXl, zarr, geotiff];

export const ZONE_DATA_FORMATS: readonly Format[] = ZONE_DATA_ENCODINGS.map((e) => e.format);

/** Every profile a zone-data encoding writes (the `profile` values besides DGGS-JSON-FG's). */
export const ZONE_DATA_PROFILES: readonly string[] = [...new Set(ZONE_DATA_ENCODINGS.flatMap((e) => ('encode' in e ? (e.profiles ?? []) : [])))];

export const ZONE_DATA_CONFORMANCE: readonly string[] = [...new Set(ZONE_DATA_ENCODINGS.flatMap((e) => e.conformance))];

/** The encoding of a zone-data format (HTML, a page, has none). */
export function zoneDataEncoding(format: Format): ZoneDataEncoding | undefined {
  const found = ZONE_DATA_ENCODINGS.find((e) => e.format === format);
  return found && 'encode' in found ? found : undefined;
}

/** A zone-data document in one buffer (a job's result file, a response body). */
export function encodeZoneData(encoding: ZoneDataEncoding, data: ZoneData, ctx: ZoneDataContext): Promise<Buffer> {
  return bytesOf(encoding.encode(data, ctx));
}
