import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { valuesAsDoubles, type DepthValues, type ZoneData } from '../../domain/zone-data.js';
import type { RasterFrame, ZoneRaster } from '../../domain/raster/zone-raster.js';
import { checkRasterCells, depthFrame, rasterizeOnFrame } from '../raster-frames.js';
import { CONF } from '../conformance-classes.js';
import { fileName } from '../file-names.js';
import { gdalMetadataTag, gdalNodataTag, georeferenceTags } from '../geotiff-tags.js';
import { writeTiff, type TiffImage, type TiffTag } from '../tiff-writer.js';
import type { ZoneDataContext, ZoneDataEncoding, ZoneDataPlan } from './encoding.js';

/**
 * Zone data as GeoTIFF (OGC 21-038r1 /req/data-geotiff/content): the sub-zones of each requested depth
 * drawn on the zone's bounding rectangle in CRS84 (EPSG:4326, pixel-is-area), one Float64 band per field
 * (the DGGS-JSON values exactly; NaN where a sub-zone has no value and outside the sub-zones, GDAL_NODATA
 * "nan"). Each depth is an image of its own: the deepest the full-resolution one, the shallower ones
 * reduced-resolution subfiles after it, finest first, which GDAL lists as overviews of the same extent.
 * Every sub-zone gets at least one pixel (zone-raster.ts). GDAL_METADATA names the bands after the fields
 * and says which zone, grid and depths the file holds.
 */

/** The images of a zone's depths, deepest first (the order they are written in). */
function framesOf(grid: Dggrs, zoneId: string, depths: readonly number[]): Array<{ depth: number; frame: RasterFrame }> {
  return [...depths].sort((a, b) => b - a).map((depth) => ({ depth, frame: depthFrame(grid, zoneId, depth) }));
}

/**
 * plan.columns is never 0 here (a TIFF of 0 samples per pixel would be invalid): the use cases
 * refuse a selection of no field (selectFields: "No field selected", also for a collection without
 * fields and an order job's fields), the cross-collection body asks at least one collection with at
 * least one field, and `cog-band` at least one band.
 */
function checkGeotiff(plan: ZoneDataPlan): void {
  const frames = framesOf(plan.grid, plan.zoneId, plan.depths).map((f) => ({ label: `depth ${f.depth}: `, frame: f.frame }));
  checkRasterCells(`The GeoTIFF of ${plan.zoneId}`, frames, plan.columns, plan.limits.maxRasterCells, 'ask fewer or shallower zone-depth values, fewer properties, or a finer (smaller) zone.');
}

function depthImage(raster: ZoneRaster, d: DepthValues, names: readonly string[], reduced: boolean, tags: TiffTag[]): TiffImage {
  // Per band, the value of each sub-zone as a double (NaN for null), looked up per pixel.
  const bands = names.map((n) => valuesAsDoubles(d, n));
  const { width, index } = raster;
  return {
    width,
    height: raster.height,
    samplesPerPixel: bands.length,
    sample: { format: 'float', bits: 64 },
    reducedResolution: reduced,
    tags,
    fillRows(row0, row1, out) {
      let at = 0;
      for (let p = row0 * width; p < row1 * width; p++) {
        const zone = index[p]!;
        for (const band of bands) {
          out.setFloat64(at, zone >= 0 ? band[zone]! : NaN, true);
          at += 8;
        }
      }
    },
  };
}

async function* zoneDataGeotiff(data: ZoneData, ctx: ZoneDataContext): AsyncGenerator<Uint8Array> {
  const grid = ctx.grid;
  const names = Object.keys(data.fields);
  const byDepth = new Map(data.depths.map((d) => [d.depth, d]));
  const frames = framesOf(grid, data.zoneId, data.depths.map((d) => d.depth));
  const images: TiffImage[] = [];
  for (const [k, { depth, frame }] of frames.entries()) {
    const d = byDepth.get(depth)!;
    const raster = await rasterizeOnFrame(grid, d.zones, frame, ctx.signal);
    const items: Array<[string, string]> = [
      ['DGGRS', grid.uri],
      ['DGGRS_ID', data.dggrsId],
      ['ZONE_ID', data.zoneId],
      ['ZONE_DEPTHS', data.depths.map((x) => x.depth).join(',')],
      ['ZONE_DEPTH', String(depth)],
      ['SUB_ZONES', String(d.zones.length)],
      ...(ctx.datetime ? [['DATETIME', `${ctx.datetime.start ?? '..'}/${ctx.datetime.end ?? '..'}`] as [string, string]] : []),
    ];
    const tags = [...georeferenceTags(raster), gdalMetadataTag(items, names), gdalNodataTag('nan')];
    images.push(depthImage(raster, d, names, k > 0, tags));
  }
  yield* await writeTiff(images, ctx.signal);
}

export const geotiff: ZoneDataEncoding = {
  format: 'geotiff',
  conformance: [CONF.dggsDataGeotiff],
  encode: zoneDataGeotiff,
  fileName: (data) => fileName(`${data.dggrsId}-${data.zoneId}-data`, 'geotiff'),
  check: checkGeotiff,
};
