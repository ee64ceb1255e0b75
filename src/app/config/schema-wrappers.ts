import type { z } from 'zod';

/**
 * zod 4's schema definitions (`_zod.def`) as the config code walks them: the env-override and
 * unknown-key checks (load-config.ts) and the configuration reference (config-reference.ts) see
 * a key's schema under its wrappers (optional, default, prefault, nullable, pipe...) alike.
 */

export interface Def {
  type: string;
  innerType?: Schema;
  defaultValue?: unknown;
  shape?: Record<string, Schema>;
  options?: Schema[];
  discriminator?: string;
  element?: Schema;
  items?: Schema[];
  valueType?: Schema;
  entries?: Record<string, string | number>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: CheckDef } }>;
  in?: Schema;
  getter?: () => Schema;
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}
export type Schema = z.ZodType | { _zod: { def: Def }; description?: string };

export const defOf = (s: Schema): Def => (s as { _zod: { def: Def } })._zod.def;

/** The schema under its wrappers, with what the wrappers say. */
export interface Unwrapped {
  core: Schema;
  description: string | undefined;
  optional: boolean;
  nullable: boolean;
  defaultValue?: { value: unknown };
}

export function unwrapSchema(schema: Schema): Unwrapped {
  const out: Unwrapped = { core: schema, description: undefined, optional: false, nullable: false };
  let s: Schema = schema;
  for (let i = 0; i < 20; i++) {
    out.description ??= (s as { description?: string }).description;
    const def = defOf(s);
    if (def.type === 'optional') out.optional = true;
    else if (def.type === 'nullable') out.nullable = true;
    else if ((def.type === 'default' || def.type === 'prefault') && out.defaultValue === undefined) out.defaultValue = { value: def.defaultValue };
    else if (!['readonly', 'catch', 'nonoptional', 'pipe', 'lazy', 'default', 'prefault'].includes(def.type)) break;
    const next = def.type === 'pipe' ? def.in : def.type === 'lazy' ? def.getter?.() : def.innerType;
    if (!next) break;
    s = next;
  }
  out.core = s;
  return out;
}
