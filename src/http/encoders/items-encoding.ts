/**
 * Rows of the lake as the items formats need them: GeoJSON features (geometry decoded from
 * WKB) and raw JSON rows (bytes as a short hex preview, so a page stays small and readable).
 */
import { decodeWkb } from '../../domain/geometry/wkb.js';
import type { Geometry } from '../../domain/geometry/geojson.js';
import type { LakeRow, LakeValue } from '../../ports/lake-reader.js';

/** Bytes shown of a WKB or other blob in the raw JSON view. */
export const HEX_PREVIEW_BYTES = 24;

export function hexPreview(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HEX_PREVIEW_BYTES)).toString('hex');
  return bytes.byteLength > HEX_PREVIEW_BYTES ? `${head}… (${bytes.byteLength} bytes)` : head;
}

/** JSON-safe value: blobs become their hex preview. */
export function rawValue(v: LakeValue): unknown {
  if (v instanceof Uint8Array) return hexPreview(v);
  if (Array.isArray(v)) return v.map(rawValue);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rawValue(x)]));
  return v;
}

export function rawRow(row: LakeRow): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row.values).map(([k, v]) => [k, rawValue(v)]));
}

function geometryOf(v: LakeValue | undefined): Geometry | null {
  if (!(v instanceof Uint8Array)) return null;
  try {
    return decodeWkb(v);
  } catch {
    return null; // an undecodable geometry is reported as missing rather than failing the page
  }
}

export interface GeoJsonFeature {
  type: 'Feature';
  id: number;
  geometry: Geometry | null;
  properties: Record<string, unknown>;
  links?: { href: string; rel: string; type?: string; title?: string }[];
}

export function toFeature(row: LakeRow, geometryColumn: string | undefined): GeoJsonFeature {
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row.values)) if (k !== geometryColumn) properties[k] = rawValue(v);
  return { type: 'Feature', id: row.index, geometry: geometryColumn ? geometryOf(row.values[geometryColumn]) : null, properties };
}
