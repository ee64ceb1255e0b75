/**
 * The GeoTIFF and GDAL tags of the GeoTIFF encodings (zone data, zone lists): a raster of zones in
 * CRS84 (RasterFrame) georeferenced as EPSG:4326 with longitude first, as GDAL reads a geographic
 * GeoTIFF, and GDAL's metadata and nodata tags.
 */
import type { RasterFrame } from '../domain/raster/zone-raster.js';
import type { TiffTag } from './tiff-writer.js';

/** GeoTIFF 1.1 (OGC 19-008r4) tags and keys written. */
const TAG = { modelPixelScale: 33550, modelTiepoint: 33922, geoKeyDirectory: 34735, gdalMetadata: 42112, gdalNodata: 42113 } as const;
const KEY = { modelType: 1024, rasterType: 1025, geographicType: 2048, geogAngularUnits: 2054 } as const;
const MODEL_TYPE_GEOGRAPHIC = 2;
const RASTER_PIXEL_IS_AREA = 1;
const EPSG_WGS84 = 4326;
const ANGULAR_UNIT_DEGREE = 9102;

/**
 * Georeference of a frame: its north-west corner tied to pixel (0, 0) and the pixel size in degrees
 * (ModelTiepoint, ModelPixelScale), and the GeoKey directory: geographic model, EPSG:4326,
 * degrees, pixel-is-area (a pixel value holds for the pixel's square, as a zone's value does).
 */
export function georeferenceTags(frame: RasterFrame): TiffTag[] {
  const keys: Array<[number, number]> = [
    [KEY.modelType, MODEL_TYPE_GEOGRAPHIC],
    [KEY.rasterType, RASTER_PIXEL_IS_AREA],
    [KEY.geographicType, EPSG_WGS84],
    [KEY.geogAngularUnits, ANGULAR_UNIT_DEGREE],
  ];
  // Directory header: version 1, revision 1.0, key count; then per key: id, location 0 (value in place), count 1, value.
  const directory = [1, 1, 0, keys.length, ...keys.flatMap(([id, value]) => [id, 0, 1, value])];
  return [
    { tag: TAG.modelPixelScale, type: 'double', values: [(frame.east - frame.west) / frame.width, (frame.north - frame.south) / frame.height, 0] },
    { tag: TAG.modelTiepoint, type: 'double', values: [0, 0, 0, frame.west, frame.north, 0] },
    { tag: TAG.geoKeyDirectory, type: 'short', values: directory },
  ];
}

const escapeXml = (s: string): string => s.replace(/[<>&"\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? '');

/**
 * GDAL_METADATA: dataset items (gdalinfo's Metadata), and band descriptions (gdalinfo's band
 * Description, rasterio's `descriptions`), band k for sample k.
 */
export function gdalMetadataTag(items: ReadonlyArray<readonly [string, string]>, bandDescriptions: readonly string[]): TiffTag {
  const lines = [
    ...items.map(([name, value]) => `  <Item name="${escapeXml(name)}">${escapeXml(value)}</Item>`),
    ...bandDescriptions.map((d, k) => `  <Item name="DESCRIPTION" sample="${k}" role="description">${escapeXml(d)}</Item>`),
  ];
  return { tag: TAG.gdalMetadata, type: 'ascii', value: `<GDALMetadata>\n${lines.join('\n')}\n</GDALMetadata>` };
}

/** GDAL_NODATA: the one value of every band that means no value, as text ("nan" for floats). */
export function gdalNodataTag(value: string): TiffTag {
  return { tag: TAG.gdalNodata, type: 'ascii', value };
}
