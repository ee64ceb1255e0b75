import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { zoneRasterFrame, zonesBBox, type RasterFrame } from '../../domain/raster/zone-raster.js';
import { checkRasterCells, rasterizeOnFrame } from '../../formats/raster-frames.js';
import { gdalMetadataTag, gdalNodataTag, georeferenceTags } from '../../formats/geotiff-tags.js';
import { writeTiff, type TiffImage } from '../../formats/tiff-writer.js';

/**
 * A zone list as GeoTIFF (OGC 21-038r1 /req/zone-geotiff/content): the page's zones drawn on their
 * union's bounding rectangle in CRS84 (EPSG:4326, pixel-is-area), each zone on at least one pixel.
 * A pixel holds its zone's 64-bit id (/rec/zone-geotiff/values: the same integer as `f=uint64`) in a
 * UInt64 band; NoData is 2^64 - 1, which no grid here uses as an id (DGGAL's null zone; H3 indexes keep
 * their top bit 0; A5's top six bits number 60 segments, at most 59). A grid without 64-bit ids gets a UInt32
 * band of list positions 1..n (0 NoData) and the table position -> zone id as GDAL metadata items
 * ZONE_<n>.
 */

/** 2^64 - 1: NoData of the UInt64 band. */
export const ZONE_ID_NODATA = 0xffff_ffff_ffff_ffffn;

/** The raster a zone list gets: the zones' union box at their level; an empty list gets one NoData pixel over the world. */
export function zoneListFrame(grid: Dggrs, zones: readonly string[], level: number): RasterFrame {
  if (zones.length === 0) return { west: -180, south: -90, east: 180, north: 90, width: 1, height: 1 };
  return zoneRasterFrame(grid, zonesBBox(grid, zones), level);
}

/**
 * The zone list's GeoTIFF, refused (422) before any pixel is located when its raster passes
 * `maxRasterCells`; stops when `signal` aborts (the client left).
 */
export async function zoneListGeotiff(grid: Dggrs, zones: readonly string[], level: number, maxRasterCells: number, signal?: AbortSignal): Promise<Buffer> {
  const frame = zoneListFrame(grid, zones, level);
  checkRasterCells(`The GeoTIFF of these ${zones.length} zones`, [{ label: '', frame }], 1, maxRasterCells, 'ask fewer zones (limit), a smaller bbox or a coarser zone-level.');
  const raster = await rasterizeOnFrame(grid, zones, frame, signal);
  const toUint64 = grid.zoneToUint64?.bind(grid);
  const items: Array<[string, string]> = [
    ['DGGRS', grid.uri],
    ['DGGRS_ID', grid.id],
    ['ZONE_LEVEL', String(level)],
    ['ZONES', String(zones.length)],
    ['PIXEL_VALUE', toUint64 ? 'the 64-bit integer id of the zone' : 'the position of the zone in the list (ZONE_<n> items)'],
    ...(toUint64 ? [] : zones.map((z, i) => [`ZONE_${i + 1}`, z] as [string, string])),
  ];
  const tags = [...georeferenceTags(raster), gdalMetadataTag(items, ['zone']), gdalNodataTag(toUint64 ? ZONE_ID_NODATA.toString() : '0')];
  const { width, index } = raster;
  const image: TiffImage = {
    width,
    height: raster.height,
    samplesPerPixel: 1,
    sample: { format: 'uint', bits: toUint64 ? 64 : 32 },
    reducedResolution: false,
    tags,
    fillRows: toUint64
      ? (() => {
          const ids = BigUint64Array.from(zones, (z) => toUint64(z));
          return (row0: number, row1: number, out: DataView) => {
            for (let p = row0 * width, at = 0; p < row1 * width; p++, at += 8) {
              const zone = index[p]!;
              out.setBigUint64(at, zone >= 0 ? ids[zone]! : ZONE_ID_NODATA, true);
            }
          };
        })()
      : (row0, row1, out) => {
          for (let p = row0 * width, at = 0; p < row1 * width; p++, at += 4) out.setUint32(at, index[p]! + 1, true);
        },
  };
  return Buffer.concat(await writeTiff([image], signal));
}
