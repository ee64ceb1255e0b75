import { geoJSONToTile, type GeoJSONVTFeature } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { ZonePolygon } from '../domain/geometry/rfc7946.js';

/** The one layer of a zone tile. */
export const MVT_LAYER = 'zones';
/** Tile coordinates per side, and the buffer kept around the tile (MapLibre's own defaults). */
export const MVT_EXTENT = 4096;
export const MVT_BUFFER = 64;

export interface MvtZone {
  zoneId: string;
  geometry: ZonePolygon;
  /** Attributes besides `zoneId`, each a number (absent where the value is null). */
  values: Record<string, number>;
}

/**
 * One Mapbox Vector Tile (spec 2.1) of zones: layer `zones`, one polygon feature per zone with the
 * attributes `zoneId` (string) and its values (numbers). geojson-vt projects the RFC 7946
 * polygons to Web Mercator, wraps them across the antimeridian, clamps latitudes to the matrix,
 * clips them to the tile and its buffer and simplifies them for zoom z (one tile cut, no index);
 * vt-pbf writes the protobuf. Undefined when nothing is left in the tile.
 */
export function encodeZoneTile(zones: readonly MvtZone[], z: number, x: number, y: number): Uint8Array | undefined {
  if (zones.length === 0) return undefined;
  const collection = {
    type: 'FeatureCollection' as const,
    features: zones.map((zone) => ({ type: 'Feature' as const, geometry: zone.geometry, properties: { zoneId: zone.zoneId, ...zone.values } })),
  };
  const tile = geoJSONToTile(collection, z, x, y, { maxZoom: z, extent: MVT_EXTENT, buffer: MVT_BUFFER, wrap: true, clip: true });
  if (!tile) return undefined;
  tile.features = tile.features.flatMap((f: GeoJSONVTFeature): GeoJSONVTFeature[] => {
    if (f.type !== 3) return [f];
    // Zones beyond the matrix's 85.05° are clamped onto its edge: rings of no area, which MVT 2.1
    // forbids (4.3.4.4) and GDAL reports as invalid.
    const rings = f.geometry.filter((ring: [number, number][]) => ringArea(ring) !== 0);
    return rings.length > 0 ? [{ ...f, geometry: rings }] : [];
  });
  if (tile.features.length === 0) return undefined;
  return fromGeojsonVt({ [MVT_LAYER]: tile }, { version: 2, extent: MVT_EXTENT });
}

/** Twice the signed area of a ring in tile coordinates. */
function ringArea(ring: readonly (readonly [number, number])[]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += ring[j]![0] * ring[i]![1] - ring[i]![0] * ring[j]![1];
  return a;
}
