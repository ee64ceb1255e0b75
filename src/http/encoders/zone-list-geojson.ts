import type { Dggrs } from '../../domain/dggrs/dggrs.js';
import { outlineToGeoJson, type ZonePolygon } from '../../domain/geometry/rfc7946.js';
import type { Link } from '../schemas/common.js';
import type { SteppedChunks } from '../stepped-stream.js';

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

/** Text gathered into one piece of the body (a streamed response sends it when the socket wants more). */
const FLUSH_CHARS = 1 << 16;

/**
 * A page of zones as GeoJSON FeatureCollection bytes, in pieces of about 64 KiB, encoded a few
 * features at a time (pausing in between) as text written directly: the exact text JSON.stringify
 * gives for zoneFeature's object, without building those objects.
 */
export function* zoneFeatureCollectionChunks(grid: Dggrs, zones: readonly string[], refined: boolean, links: Link[], extra: Record<string, unknown> = {}): SteppedChunks {
  let text = '{"type":"FeatureCollection","features":[';
  for (let i = 0; i < zones.length; i++) {
    const z = zones[i]!;
    const id = JSON.stringify(z);
    text += `${i > 0 ? ',' : ''}{"type":"Feature","id":${id},"geometry":${geometryText(zoneGeometry(grid, z, refined))},"properties":{"zoneID":${id},"level":${grid.zoneLevel(z)}}}`;
    if (text.length >= FLUSH_CHARS) {
      yield Buffer.from(text, 'utf8');
      text = '';
    }
    if (i % FEATURES_PER_STEP === FEATURES_PER_STEP - 1) yield;
  }
  text += '],' + JSON.stringify({ numberReturned: zones.length, ...extra, links }).slice(1);
  yield Buffer.from(text, 'utf8');
}

/** JSON.stringify(geometry), written directly. */
function geometryText(g: ZonePolygon): string {
  if (g.type === 'Polygon') return `{"type":"Polygon","coordinates":${ringsText(g.coordinates)}}`;
  return `{"type":"MultiPolygon","coordinates":[${g.coordinates.map(ringsText).join(',')}]}`;
}

function ringsText(rings: readonly (readonly (readonly number[])[])[]): string {
  let s = '[';
  for (let r = 0; r < rings.length; r++) {
    const ring = rings[r]!;
    s += r > 0 ? ',[' : '[';
    for (let i = 0; i < ring.length; i++) {
      const p = ring[i]!;
      s += `${i > 0 ? ',' : ''}[${num(p[0]!)},${num(p[1]!)}]`;
    }
    s += ']';
  }
  return s + ']';
}

/** A number as JSON.stringify writes it (String does the same for finite numbers, -0 included). */
const num = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');
