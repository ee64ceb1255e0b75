/**
 * Reads the service's GeoTIFF answers back with the `geotiff` npm package (an independent TIFF reader)
 * and checks them against the grid and the DGGS-JSON of the same request: every sub-zone's value at one
 * pixel at least whose centre the grid places in that sub-zone, each pixel the value of the zone its
 * centre lies in (NoData off the listed zones), and the georeference the zone's bounding box.
 */
import { expect } from 'chai';
import { inflateSync } from 'node:zlib';
import { fromArrayBuffer, type GeoTIFFImage } from 'geotiff';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';

export interface TiffRaster {
  width: number;
  height: number;
  /** [west, south, east, north] from the ModelTiepoint and ModelPixelScale. */
  bbox: [number, number, number, number];
  /** One array per band, row-major; UInt64 bands as bigint arrays. */
  bands: Array<ArrayLike<number> | BigUint64Array>;
  reducedResolution: boolean;
  nodata: string | undefined;
  metadata: Record<string, unknown> | null;
  bandDescriptions: string[];
  /** GTRasterTypeGeoKey: 1 pixel-is-area. */
  rasterType: number | undefined;
  geographicType: number | undefined;
}

export async function readGeoTiff(bytes: Buffer): Promise<TiffRaster[]> {
  const tiff = await fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  const count = await tiff.getImageCount();
  const out: TiffRaster[] = [];
  for (let i = 0; i < count; i++) {
    const image = await tiff.getImage(i);
    const [west, north] = image.getOrigin() as [number, number];
    const [dx, dy] = image.getResolution() as [number, number];
    const width = image.getWidth(), height = image.getHeight();
    const spp = image.getSamplesPerPixel();
    const bands = image.getBitsPerSample() === 64 && image.getSampleFormat() === 1 ? await uint64Bands(image, bytes, spp) : ((await image.readRasters({ interleave: false })) as unknown as ArrayLike<number>[]);
    const descriptions: string[] = [];
    for (let b = 0; b < spp; b++) descriptions.push(String(((await image.getGDALMetadata(b)) as Record<string, unknown> | null)?.DESCRIPTION ?? ''));
    const keys = image.getGeoKeys() as Record<string, number> | null;
    out.push({
      width,
      height,
      bbox: [west, north + dy * height, west + dx * width, north],
      bands,
      reducedResolution: ((image.fileDirectory.getValue('NewSubfileType') as number | undefined) ?? 0) === 1,
      nodata: (image.fileDirectory.getValue('GDAL_NODATA') as string | undefined)?.replace(/\0$/, ''),
      metadata: (await image.getGDALMetadata()) as Record<string, unknown> | null,
      bandDescriptions: descriptions,
      rasterType: keys?.GTRasterTypeGeoKey,
      geographicType: keys?.GeographicTypeGeoKey,
    });
  }
  return out;
}

/** geotiff.js reads no 64-bit integers: the strips it locates are inflated and read here. */
async function uint64Bands(image: GeoTIFFImage, bytes: Buffer, spp: number): Promise<BigUint64Array[]> {
  expect(spp).to.equal(1);
  const offsets = Array.from((await image.fileDirectory.loadValue('StripOffsets')) as ArrayLike<number>);
  const counts = Array.from((await image.fileDirectory.loadValue('StripByteCounts')) as ArrayLike<number>);
  expect(image.fileDirectory.getValue('Compression')).to.equal(8);
  const raw = Buffer.concat(offsets.map((o, k) => inflateSync(bytes.subarray(o, o + counts[k]!))));
  const out = new BigUint64Array(image.getWidth() * image.getHeight());
  for (let i = 0; i < out.length; i++) out[i] = raw.readBigUInt64LE(8 * i);
  return [out];
}

/** The lon/lat of a pixel's centre (longitudes past 180 wrapped). */
export function pixelCentre(r: TiffRaster, pixel: number): [number, number] {
  const col = pixel % r.width, row = Math.floor(pixel / r.width);
  const lon = r.bbox[0] + ((col + 0.5) * (r.bbox[2] - r.bbox[0])) / r.width;
  return [lon > 180 ? lon - 360 : lon, r.bbox[3] - ((row + 0.5) * (r.bbox[3] - r.bbox[1])) / r.height];
}

const same = (a: number, b: number | null): boolean => (b === null ? Number.isNaN(a) : a === b);

/**
 * The image of one depth against the sub-zones and their values per band: each pixel holds the values
 * of the sub-zone its centre lies in (NaN where none), and each sub-zone has such a pixel.
 */
export function expectDepthImage(grid: Dggrs, r: TiffRaster, zones: readonly string[], values: ReadonlyArray<ReadonlyArray<number | null>>): void {
  expect(r.bands).to.have.length(values.length);
  const level = grid.zoneLevel(zones[0]!);
  const position = new Map(zones.map((z, i) => [z, i]));
  const seen = new Set<number>();
  const mismatches: string[] = [];
  for (let p = 0; p < r.width * r.height; p++) {
    const [lon, lat] = pixelCentre(r, p);
    const i = position.get(grid.zoneFromPoint(lon, lat, level));
    const ok = r.bands.every((band, b) => same(Number(band[p]), i === undefined ? null : values[b]![i]!));
    if (!ok) mismatches.push(`pixel ${p} (${lon.toFixed(4)}, ${lat.toFixed(4)}): ${r.bands.map((band) => band[p]).join(',')} for ${i === undefined ? 'no sub-zone' : zones[i]}`);
    else if (i !== undefined) seen.add(i);
  }
  expect(mismatches.slice(0, 5), 'pixels not holding the values of the sub-zone their centre lies in').to.deep.equal([]);
  expect(zones.filter((_, i) => !seen.has(i)), 'sub-zones with no pixel').to.deep.equal([]);
}

/** A zone list's raster: each pixel the 64-bit id of the zone its centre lies in (NoData 2^64-1 elsewhere), each zone on a pixel. */
export function expectZoneIdImage(grid: Dggrs, r: TiffRaster, zones: readonly string[]): void {
  const band = r.bands[0] as BigUint64Array;
  expect(band).to.be.instanceOf(BigUint64Array);
  const level = grid.zoneLevel(zones[0]!);
  const listed = new Set(zones);
  const seen = new Set<bigint>();
  const mismatches: string[] = [];
  for (let p = 0; p < band.length; p++) {
    const [lon, lat] = pixelCentre(r, p);
    const z = grid.zoneFromPoint(lon, lat, level);
    const want = listed.has(z) ? grid.zoneToUint64!(z) : 0xffff_ffff_ffff_ffffn;
    if (band[p] !== want) mismatches.push(`pixel ${p}: ${band[p]} for ${listed.has(z) ? z : 'no listed zone'}`);
    seen.add(band[p]!);
  }
  expect(mismatches.slice(0, 5)).to.deep.equal([]);
  for (const z of zones) expect(seen.has(grid.zoneToUint64!(z)), z).to.equal(true);
}
