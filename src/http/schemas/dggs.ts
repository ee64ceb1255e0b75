import { z } from './zod.js';
import { Link, LinkTemplate } from './common.js';

/** Contract bodies of the grid and zone routes (DggsResponse, DggrsIdResponse, ZonesResponse, ZoneIdResponse). */
export const DggrsId = z
  .object({ id: z.string(), title: z.string(), uri: z.string(), links: z.array(Link) })
  .openapi('DggrsId');

export const DggsResponse = z.object({ dggrs: z.array(DggrsId), links: z.array(Link) }).openapi('DggsResponse');
export type DggsResponse = z.infer<typeof DggsResponse>;

export const DggrsIdResponse = z
  .object({
    id: z.string(),
    title: z.string(),
    uri: z.string(),
    description: z.string().nullish(),
    crs: z.array(z.string()).nullish(),
    default_depth: z.number().int().nullish(),
    max_refinement_level: z.number().int().nullish(),
    max_relative_depth: z.number().int().nullish(),
    linkTemplates: z.array(LinkTemplate).optional(),
    links: z.array(Link).optional(),
  })
  .openapi('DggrsIdResponse');
export type DggrsIdResponse = z.infer<typeof DggrsIdResponse>;

export const ZonesResponse = z
  .object({
    zones: z.array(z.string()),
    links: z.array(Link),
    linkTemplates: z.array(LinkTemplate).optional(),
    returnedAreaMetersSquare: z.number().nullish(),
  })
  .openapi('ZonesResponse');
export type ZonesResponse = z.infer<typeof ZonesResponse>;

export const GeoJsonGeometry = z
  .object({ type: z.string(), coordinates: z.array(z.any()) })
  .openapi('GeoJsonGeometry', { description: 'GeoJSON geometry (RFC 7946): Polygon, or MultiPolygon across the antimeridian' });

const ValueItem = z
  .object({ average: z.number().nullish(), maximum: z.number().nullish(), minimum: z.number().nullish(), stdDev: z.number().nullish() })
  .openapi('ValueItem');

export const ZoneIdResponse = z
  .object({
    id: z.string(),
    links: z.array(Link),
    level: z.number().int().min(0).nullish(),
    shapeType: z.string().nullish(),
    crs: z.string().nullish(),
    centroid: z.array(z.number()).nullish().openapi({ description: '[lon, lat]' }),
    bbox: z.array(z.number()).nullish().openapi({ description: '[min_lon, min_lat, max_lon, max_lat]; min_lon > max_lon across the antimeridian' }),
    geometry: GeoJsonGeometry.optional(),
    areaMetersSquare: z.number().nullish(),
    volumeMetersCube: z.number().nullish(),
    temporalInterval: z.array(z.string()).nullish(),
    temporalDurationSeconds: z.number().nullish(),
    statistics: z.record(z.string(), ValueItem).nullish(),
  })
  .openapi('ZoneIdResponse');
export type ZoneIdResponse = z.infer<typeof ZoneIdResponse>;

export const GeoJsonFeature = z
  .object({ type: z.literal('Feature'), id: z.union([z.string(), z.number()]).optional(), geometry: GeoJsonGeometry, properties: z.record(z.string(), z.any()), links: z.array(Link).optional() })
  .openapi('ZoneFeature');

export const GeoJsonFeatureCollection = z
  .object({ type: z.literal('FeatureCollection'), features: z.array(GeoJsonFeature), links: z.array(Link).optional(), numberReturned: z.number().int().optional() })
  .openapi('ZoneFeatureCollection');

/** Path parameters. */
export const DggrsIdParam = z.string().openapi({ param: { name: 'dggrs_id', in: 'path' }, description: 'Grid identifier, e.g. IVEA7H', example: 'IVEA7H' });
export const ZoneIdParam = z.string().openapi({ param: { name: 'zone_id', in: 'path' }, description: 'Zone identifier in the textual form of the grid' });
