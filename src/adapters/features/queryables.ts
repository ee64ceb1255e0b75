/**
 * Field metadata from a backend's JSON Schema (OGC API Features Part 3 queryables, or the
 * Part 5 schema), and, for backends with neither, from a sample of features.
 */
import type { FieldMeta, PropertyType } from '../../domain/collection.js';

const TYPES: PropertyType[] = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];
const GEOJSON_REF = /geojson\.org\/schema\/(\w+)\.json/i;

export interface SchemaFields {
  fields: Record<string, FieldMeta>;
  /** Properties that hold the geometry (`format: geometry-*`, GeoJSON `$ref`, `x-ogc-role: primary-geometry`). */
  geometry: string[];
  /** The temporal property (`x-ogc-role: primary-instant`, or `format: date-time` named `datetime`). */
  datetime?: string;
}

/** Reads `properties` of a JSON Schema; throws with a reason when it is not one. */
export function fieldsFromSchema(doc: unknown): SchemaFields {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('the schema is not a JSON object');
  const props = (doc as { properties?: unknown }).properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw new Error('the schema has no "properties" object');
  const out: SchemaFields = { fields: {}, geometry: [] };
  let instant: string | undefined;
  for (const [name, raw] of Object.entries(props as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null) continue;
    const p = raw as Record<string, unknown>;
    const ref = typeof p.$ref === 'string' ? GEOJSON_REF.exec(p.$ref) : null;
    const format = typeof p.format === 'string' ? p.format : undefined;
    const role = p['x-ogc-role'];
    if (ref || format?.startsWith('geometry') || role === 'primary-geometry') {
      out.geometry.push(name);
      out.fields[name] = { title: str(p.title) ?? name, type: 'object', format: format ?? (ref ? `geometry-${ref[1]!.toLowerCase()}` : 'geometry-any') };
      continue;
    }
    const type = schemaType(p.type);
    if (!type) continue;
    const meta: FieldMeta = { title: str(p.title) ?? name, type };
    if (str(p.description)) meta.description = str(p.description);
    if (format) meta.format = format;
    if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === 'string')) meta.enum = p.enum as string[];
    if (typeof p.minimum === 'number') meta.minimum = p.minimum;
    if (typeof p.maximum === 'number') meta.maximum = p.maximum;
    if (typeof p.pattern === 'string') meta.pattern = p.pattern;
    out.fields[name] = meta;
    if (role === 'primary-instant' || role === 'primary-interval-start') instant ??= name;
    if (!instant && name === 'datetime' && (format === 'date-time' || format === 'date')) instant = name;
  }
  if (instant) out.datetime = instant;
  return out;
}

function schemaType(t: unknown): PropertyType | undefined {
  const list = Array.isArray(t) ? t : [t];
  const named = list.filter((x): x is PropertyType => typeof x === 'string' && (TYPES as string[]).includes(x) && x !== 'null');
  return named[0] ?? (list.includes('null') ? 'null' : undefined);
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Field metadata inferred from features, for backends without queryables or schema: a property
 * is `integer` when every non-null, non-empty value is an integer, `number` when numeric, a date-time
 * `string` when every value is an RFC 3339 instant, else the JSON type of its values.
 */
export function fieldsFromSample(features: { properties: Record<string, unknown> }[]): SchemaFields {
  const seen = new Map<string, unknown[]>();
  // An empty string is a missing value here: MapServer writes null numbers as "".
  for (const f of features) for (const [k, v] of Object.entries(f.properties)) if (v !== null && v !== undefined && v !== '') (seen.get(k) ?? seen.set(k, []).get(k)!).push(v);
  const out: SchemaFields = { fields: {}, geometry: ['geometry'] };
  for (const [name, values] of [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let meta: FieldMeta;
    if (values.every((v) => typeof v === 'number')) meta = { title: name, type: values.every((v) => Number.isInteger(v)) ? 'integer' : 'number' };
    else if (values.every((v) => typeof v === 'string' && INSTANT.test(v))) meta = { title: name, type: 'string', format: 'date-time' };
    else if (values.every((v) => typeof v === 'boolean')) meta = { title: name, type: 'boolean' };
    else if (values.every((v) => typeof v === 'string')) meta = { title: name, type: 'string' };
    else if (values.every((v) => Array.isArray(v))) meta = { title: name, type: 'array' };
    else meta = { title: name, type: 'object' };
    out.fields[name] = meta;
  }
  const instants = Object.entries(out.fields).filter(([, m]) => m.format === 'date-time').map(([k]) => k);
  if (instants.length === 1) out.datetime = instants[0];
  out.fields.geometry = { title: 'geometry', type: 'object', format: 'geometry-any' };
  return out;
}
