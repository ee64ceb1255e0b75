/**
 * Reading a PNG or JPEG-XL zone-data image back (tests): the zone's bounding rectangle split in the
 * image's pixels, each pixel located with the grid's zone-from-point, compared with the DGGS-JSON
 * values of the same request.
 */
import { expect } from 'chai';
import type { Dggrs } from '../../src/domain/dggrs/dggrs.js';

export interface DecodedImage {
  width: number;
  height: number;
  channels: number;
  data: ArrayLike<number>;
}

/**
 * Checks the image of `zoneId`'s sub-zones at `depth`: every pixel whose centre lies in a sub-zone
 * decodes, channel by channel, to that sub-zone's values (within half a quantization step; 0 for
 * null), every pixel centred outside the sub-zones is 0, and every sub-zone has a pixel. The
 * rasterizer gives a sub-zone no pixel centre falls in the pixel holding its centroid: those
 * pixels are checked against that sub-zone instead.
 */
export function checkZoneImage(grid: Dggrs, zoneId: string, depth: number, image: DecodedImage, scale: number, offset: number, fields: (number | null)[][]): void {
  const subZones = grid.subZones(zoneId, depth);
  const level = grid.zoneLevel(zoneId) + depth;
  const indexOf = new Map(subZones.map((z, i) => [z, i]));
  const [west, south, rawEast, north] = grid.describeZone(zoneId).bbox;
  const east = rawEast < west ? rawEast + 360 : rawEast;
  const dx = (east - west) / image.width, dy = (north - south) / image.height;
  const pixelOf = (lon: number, lat: number): number => {
    const col = Math.min(image.width - 1, Math.max(0, Math.floor(((lon < west ? lon + 360 : lon) - west) / dx)));
    const row = Math.min(image.height - 1, Math.max(0, Math.floor((north - lat) / dy)));
    return row * image.width + col;
  };
  const zoneAt = new Int32Array(image.width * image.height);
  for (let row = 0; row < image.height; row++) {
    for (let col = 0; col < image.width; col++) {
      let lon = west + (col + 0.5) * dx;
      if (lon > 180) lon -= 360;
      zoneAt[row * image.width + col] = indexOf.get(grid.zoneFromPoint(lon, north - (row + 0.5) * dy, level)) ?? -1;
    }
  }
  const hasCentre = new Uint8Array(subZones.length);
  for (const k of zoneAt) if (k >= 0) hasCentre[k] = 1;
  subZones.forEach((z, k) => {
    if (!hasCentre[k]) zoneAt[pixelOf(...grid.describeZone(z).centroid)] = k;
  });
  const seen = new Uint8Array(subZones.length);
  const tolerance = 0.5 / Math.abs(scale);
  for (let p = 0; p < zoneAt.length; p++) {
    const k = zoneAt[p]!;
    for (let f = 0; f < fields.length; f++) {
      const sample = image.data[p * image.channels + f]!;
      if (k < 0) {
        expect(sample, `pixel ${p} outside the sub-zones`).to.equal(0);
        continue;
      }
      const v = fields[f]![k];
      if (v === null || v === undefined) expect(sample, `null of ${subZones[k]}`).to.equal(0);
      else expect((sample - offset) / scale, `field ${f} of ${subZones[k]} at pixel ${p}`).to.be.closeTo(v, tolerance * (1 + 1e-9) + Math.abs(v) * 1e-12);
    }
    if (k >= 0) seen[k] = 1;
  }
  expect(seen.every((s) => s === 1), 'every sub-zone has a pixel').to.equal(true);
}
