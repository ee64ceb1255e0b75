import type { Dggrs } from '../../../domain/dggrs/dggrs.js';
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

export function zoneFeatureCollection(grid: Dggrs, zones: readonly string[], refined: boolean, links: Link[], extra: Record<string, unknown> = {}) {
  return {
    type: 'FeatureCollection' as const,
    features: zones.map((z) => zoneFeature(grid, z, refined, { level: grid.zoneLevel(z) })),
    numberReturned: zones.length,
    ...extra,
    links,
  };
}
