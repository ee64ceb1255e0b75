import { geoJSONToTile, type GeoJSONVTFeature, type GeoJSONVTTile } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { ZonePolygon } from '../domain/geometry/rfc7946.js';
import type { Stepped } from '../domain/dggrs/dggrs.js';
import { ringArea } from '../domain/aggregation/planar.js';

/** The one layer of a zone tile. */
export const MVT_LAYER = 'zones';
/** Zones cut at a time: a slice of work of a few milliseconds. */
const ZONES_A_STEP = 500;
/** Tile coordinates per side, and the buffer kept around the tile (MapLibre's own defaults). */
const MVT_EXTENT = 4096;
const MVT_BUFFER = 64;

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
 * vt-pbf writes the protobuf. Undefined when nothing is left in the tile. Stepped: the zones are
 * cut a few hundred at a time (each feature is cut on its own, so the pieces join into the one
 * tile); the protobuf is written at once (about 6 µs a zone).
 */
export function* encodeZoneTile(zones: readonly MvtZone[], z: number, x: number, y: number): Stepped<Uint8Array | undefined> {
  const features: GeoJSONVTFeature[] = [];
  let tile: GeoJSONVTTile | undefined;
  for (let i = 0; i < zones.length; i += ZONES_A_STEP) {
    const part = {
      type: 'FeatureCollection' as const,
      features: zones.slice(i, i + ZONES_A_STEP).map((zone) => ({ type: 'Feature' as const, geometry: zone.geometry, properties: { zoneId: zone.zoneId, ...zone.values } })),
    };
    tile = geoJSONToTile(part, z, x, y, { maxZoom: z, extent: MVT_EXTENT, buffer: MVT_BUFFER, wrap: true, clip: true });
    for (const f of tile.features) {
      if (f.type !== 3) continue;
      // Zones beyond the matrix's 85.05° are clamped onto its edge: rings of no area, which MVT 2.1
      // forbids (4.3.4.4) and GDAL reports as invalid.
      const rings = f.geometry.filter((ring: [number, number][]) => ringArea(ring) !== 0);
      if (rings.length > 0) features.push({ ...f, geometry: rings });
    }
    yield;
  }
  if (!tile || features.length === 0) return undefined;
  return fromGeojsonVt({ [MVT_LAYER]: { ...tile, features } }, { version: 2, extent: MVT_EXTENT });
}
