import type { Dggrs, Stepped } from '../../../domain/dggrs/dggrs.js';
import { outlineToGeoJson, type ZonePolygon } from '../../../domain/geometry/rfc7946.js';
import type { Link } from '../schemas/common.js';

/** Zone lists and zone info as GeoJSON (RFC 7946): one Feature per zone, `zoneID` property. */
export function zoneGeometry(grid: Dggrs, zoneId: string, refined: boolean): ZonePolygon {
  return outlineToGeoJson(grid.zoneOutline(zoneId, refined));
}

export interface ZoneFeature {
  type: 'Feature';
  id: string;
  geometry: ZonePolygon;
  properties: Record<string, unknown>;
  links?: Link[];
}

export function zoneFeature(grid: Dggrs, zoneId: string, refined: boolean, properties: Record<string, unknown> = {}, links?: Link[]): ZoneFeature {
  return {
    type: 'Feature',
    id: zoneId,
    geometry: zoneGeometry(grid, zoneId, refined),
    properties: { zoneID: zoneId, ...properties },
    ...(links ? { links } : {}),
  };
}

/** Features encoded between two pauses of a stepped encoding. */
export const FEATURES_PER_STEP = 50;

/**
 * A page of zones as GeoJSON FeatureCollection bytes, encoded a few features at a time (pausing in
 * between) rather than built as one object and stringified at once.
 */
export function* zoneFeatureCollectionBytes(grid: Dggrs, zones: readonly string[], refined: boolean, links: Link[], extra: Record<string, unknown> = {}): Stepped<Buffer> {
  const chunks: Buffer[] = [Buffer.from('{"type":"FeatureCollection","features":[')];
  for (let i = 0; i < zones.length; i += FEATURES_PER_STEP) {
    const part = zones.slice(i, i + FEATURES_PER_STEP).map((z) => JSON.stringify(zoneFeature(grid, z, refined, { level: grid.zoneLevel(z) })));
    chunks.push(Buffer.from((i > 0 ? ',' : '') + part.join(',')));
    yield;
  }
  chunks.push(Buffer.from('],' + JSON.stringify({ numberReturned: zones.length, ...extra, links }).slice(1)));
  return Buffer.concat(chunks);
}
