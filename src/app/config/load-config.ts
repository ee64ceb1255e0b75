import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { configSchema, type Config } from './config-schema.js';
import { nearest } from './near-key.js';
import { unwrapSchema } from './schema-wrappers.js';

export class ConfigError extends Error {}

export const DEFAULT_CONFIG_PATH = 'config/default.json';

/** A key path as zod reports it: object keys, and array indexes as numbers. */
type KeyPath = readonly (string | number)[];

/**
 * Where each part of the raw config came from, so an error names what the operator must fix: the
 * file, `PORT`/`HOST`, the exact `DGGS__...` variable, or the code's own overrides.
 */
class Origins {
  private readonly set: { path: string[]; source: string }[] = [];

  constructor(private readonly file: string) {}

  add(keys: string[], source: string): void {
    this.set.push({ path: keys, source });
  }

  /** The source that last set `p` or one of its ancestors (the deepest such), else the file. */
  of(p: KeyPath): string {
    let best: { path: string[]; source: string } | undefined;
    for (const o of this.set) {
      if (o.path.length <= p.length && o.path.every((k, i) => k === String(p[i])) && (!best || o.path.length >= best.path.length)) best = o;
    }
    return best?.source ?? this.file;
  }
}

/**
 * Reads the config file (`DGGS_CONFIG` overrides its path), applies environment overrides and
 * validates. Overrides: `PORT`, `HOST`, and `DGGS__<key>__<key>=<value>` for any key
 * (case-insensitive; the value is parsed as JSON when it parses, else taken as a string).
 * Unknown keys, invalid values and repeated collection ids stop the start, named with the key path
 * and where the value came from.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: unknown = undefined): Config {
  const file = env.DGGS_CONFIG ?? DEFAULT_CONFIG_PATH;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path.resolve(file), 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  const origins = new Origins(`config file ${file}`);
  applyEnv(raw, env, origins);
  if (overrides !== undefined) deepMerge(raw, overrides as Record<string, unknown>, [], origins);
  return checkedParse(raw, origins);
}

/** Validates a config given as a value (no file); errors name `source`. */
export function parseConfig(raw: unknown, source = 'config'): Config {
  return checkedParse(raw, new Origins(source));
}

function checkedParse(raw: unknown, origins: Origins): Config {
  // Unknown keys first: a misspelt key often also leaves a required one missing, and the misspelling is the news.
  const unknown = unknownKeys(configSchema, raw, [], origins);
  if (unknown.length > 0) {
    throw new ConfigError(unknown.map((u) => `unknown config key "${formatPath(u.path)}" in ${origins.of(u.path)}${u.suggestion ? `; did you mean "${u.suggestion}"?` : `; known keys here: ${u.known.join(', ')}`}`).join('\n'));
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = formatPath(issue.path as KeyPath) || '(root)';
    throw new ConfigError(`invalid config in ${origins.of(issue.path as KeyPath)}: key "${key}": ${issue.message}`);
  }
  const seen = new Map<string, number>();
  result.data.collections.forEach((c, i) => {
    const first = seen.get(c.id);
    if (first !== undefined) throw new ConfigError(`invalid config in ${origins.of(['collections', i, 'id'])}: key "collections[${i}].id": collection id "${c.id}" is already the id of collections[${first}]; ids must be unique`);
    seen.set(c.id, i);
  });
  return result.data;
}

/** `collections[2].backing.noDta`: how a key is written in error messages. */
export function formatPath(p: KeyPath): string {
  return p.reduce<string>((s, k) => (typeof k === 'number' || /^\d+$/.test(k) ? `${s}[${k}]` : s ? `${s}.${k}` : k), '');
}

interface UnknownKey {
  path: KeyPath;
  suggestion?: string;
  known: string[];
}

/**
 * Keys of `value` the schema does not have, found by walking the value along the schema (zod's
 * objects would drop them silently). Records take any key (their keys are the operator's names);
 * a discriminated union is walked along the variant its discriminator names.
 */
function unknownKeys(schema: z.ZodType | undefined, value: unknown, at: (string | number)[], origins: Origins, otherVariant: ReadonlySet<string> = new Set()): UnknownKey[] {
  const s = unwrap(schema);
  if (typeof value !== 'object' || value === null) return [];
  if (s instanceof z.ZodObject && !Array.isArray(value)) {
    const shape = s.shape as Record<string, z.ZodType>;
    const known = Object.keys(shape);
    return Object.entries(value).flatMap(([k, v]) => {
      if (!(k in shape)) {
        if (otherVariant.has(k)) return [];
        const suggestion = nearest(k, known);
        return [{ path: [...at, k], known, ...(suggestion ? { suggestion } : {}) }];
      }
      return unknownKeys(shape[k], v, [...at, k], origins);
    });
  }
  if (s instanceof z.ZodArray && Array.isArray(value)) return value.flatMap((v, i) => unknownKeys(s.element as z.ZodType, v, [...at, i], origins));
  if (s instanceof z.ZodRecord && !Array.isArray(value)) return Object.entries(value).flatMap(([k, v]) => unknownKeys(s.valueType as z.ZodType, v, [...at, k], origins));
  if (s instanceof z.ZodUnion) {
    const option = variantOf(s, value as Record<string, unknown>);
    if (!option) return [];
    // An override that switches the variant (DGGS__datastore__kind=postgres over a file's sqlite
    // datastore) leaves the file's keys of the other variant behind: those are not mistakes.
    const disc = (s._zod.def as { discriminator?: string }).discriminator!;
    const switchedBy = origins.of([...at, disc]);
    const others = new Set(Object.keys(value).filter((k) => keysOf(s).includes(k) && origins.of([...at, k]) !== switchedBy));
    return unknownKeys(option, value, at, origins, others);
  }
  return [];
}

/** The variant of a discriminated union the value's discriminator names; undefined when none does (zod reports that). */
function variantOf(union: z.ZodUnion, value: Record<string, unknown>): z.ZodType | undefined {
  const disc = (union._zod.def as { discriminator?: string }).discriminator;
  if (disc === undefined) return undefined;
  return (union.options as z.ZodType[]).find((o) => {
    const s = unwrap(o);
    const lit = s instanceof z.ZodObject ? unwrap((s.shape as Record<string, z.ZodType>)[disc]) : undefined;
    return lit instanceof z.ZodLiteral && lit.values.has(value[disc] as never);
  });
}

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, origins: Origins): void {
  if (env.PORT) {
    setPath(raw, ['server', 'port'], Number(env.PORT));
    origins.add(['server', 'port'], `environment variable PORT (${JSON.stringify(env.PORT)})`);
  }
  if (env.HOST) {
    setPath(raw, ['server', 'host'], env.HOST);
    origins.add(['server', 'host'], `environment variable HOST (${JSON.stringify(env.HOST)})`);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('DGGS__') || value === undefined) continue;
    const segments = name.slice('DGGS__'.length).split('__');
    const keys = resolveKeys(segments, name);
    setPath(raw, keys, parseValue(value));
    origins.add(keys, `environment variable ${name}`);
  }
}

/**
 * Maps case-insensitive env segments onto the schema's camelCase keys, walking through wrappers
 * (default, optional), unions (datastore: a key of any variant), arrays (a numeric index) and
 * records (the segment as written, since record keys are the operator's own names).
 */
function resolveKeys(segments: string[], envName: string): string[] {
  let schema: z.ZodType | undefined = configSchema;
  const keys: string[] = [];
  for (const segment of segments) {
    const step = childOf(schema, segment);
    if (!step) {
      const suggestion = nearest(segment, keysOf(schema));
      throw new ConfigError(`unknown config key "${formatPath([...keys, segment])}" in environment variable ${envName}: no config key "${segment}" there${suggestion ? `; did you mean "${suggestion}"?` : ''}`);
    }
    schema = step.schema;
    keys.push(step.key);
  }
  return keys;
}

function childOf(schema: z.ZodType | undefined, segment: string): { key: string; schema: z.ZodType | undefined } | undefined {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    const key = Object.keys(shape).find((k) => k.toLowerCase() === segment.toLowerCase());
    return key === undefined ? undefined : { key, schema: shape[key] };
  }
  if (s instanceof z.ZodUnion) {
    for (const option of s.options as z.ZodType[]) {
      const step = childOf(option, segment);
      if (step) return step;
    }
    return undefined;
  }
  if (s instanceof z.ZodArray) return /^\d+$/.test(segment) ? { key: segment, schema: s.element as z.ZodType } : undefined;
  if (s instanceof z.ZodRecord) return { key: segment, schema: s.valueType as z.ZodType };
  return undefined;
}

/** The keys an object schema (or any variant of a union) has, for "did you mean". */
function keysOf(schema: z.ZodType | undefined): string[] {
  const s = unwrap(schema);
  if (s instanceof z.ZodObject) return Object.keys(s.shape as object);
  if (s instanceof z.ZodUnion) return [...new Set((s.options as z.ZodType[]).flatMap(keysOf))];
  return [];
}

/** The schema under its wrappers (optional, default, prefault...), as the configuration reference sees it too. */
function unwrap(schema: z.ZodType | undefined): unknown {
  return schema && unwrapSchema(schema).core;
}

function parseValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>, at: string[], origins: Origins): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object' && !Array.isArray(current)) {
      deepMerge(current as Record<string, unknown>, value as Record<string, unknown>, [...at, key], origins);
    } else {
      target[key] = value;
      origins.add([...at, key], 'the overrides given to loadConfig');
    }
  }
}
