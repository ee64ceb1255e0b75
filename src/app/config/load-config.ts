import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { configSchema, type Config } from './config-schema.js';

export class ConfigError extends Error {}

export const DEFAULT_CONFIG_PATH = 'config/default.json';

/**
 * Reads the config file (`DGGS_CONFIG` overrides its path), applies environment overrides and
 * validates. Overrides: `PORT`, `HOST`, and `DGGS__<key>__<key>=<value>` for any key
 * (case-insensitive; the value is parsed as JSON when it parses, else taken as a string).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: unknown = undefined): Config {
  const file = env.DGGS_CONFIG ?? DEFAULT_CONFIG_PATH;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path.resolve(file), 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  applyEnv(raw, env);
  if (overrides !== undefined) deepMerge(raw, overrides as Record<string, unknown>);
  return parseConfig(raw, file);
}

export function parseConfig(raw: unknown, source = 'config'): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = issue.path.map(String).join('.') || '(root)';
    throw new ConfigError(`invalid config in ${source}: key "${key}": ${issue.message}`);
  }
  return result.data;
}

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  if (env.PORT) setPath(raw, ['server', 'port'], Number(env.PORT));
  if (env.HOST) setPath(raw, ['server', 'host'], env.HOST);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('DGGS__') || value === undefined) continue;
    const segments = name.slice('DGGS__'.length).split('__');
    setPath(raw, resolveKeys(segments, name), parseValue(value));
  }
}

/**
 * Maps case-insensitive env segments onto the schema's camelCase keys, walking through wrappers
 * (default, optional), unions (datastore: a key of any variant), arrays (a numeric index) and
 * records (the segment as written, since record keys are the operator's own names).
 */
function resolveKeys(segments: string[], envName: string): string[] {
  let schema: z.ZodType | undefined = configSchema;
  return segments.map((segment) => {
    const step = childOf(schema, segment);
    if (!step) throw new ConfigError(`environment variable ${envName}: no config key "${segment}"`);
    schema = step.schema;
    return step.key;
  });
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

function unwrap(schema: z.ZodType | undefined): unknown {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    const inner = (s as { _zod?: { def?: { innerType?: unknown } } })._zod?.def?.innerType;
    if (!inner) return s;
    s = inner;
  }
  return s;
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

function deepMerge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object' && !Array.isArray(current)) {
      deepMerge(current as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}
