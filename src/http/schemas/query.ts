import { z } from './zod.js';
import { CRS84_BOX_RULE, crs84BoxProblem } from '../../domain/geometry/crs84.js';

/**
 * Query-string building blocks. Query values arrive as strings; these parse them strictly
 * (`true`/`false` only, finite numbers only) so a typo is a validation error, not a silent default.
 */
export const queryBoolean = (description: string) =>
  z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .openapi({ type: 'boolean', description });

/** The bounds the parser enforces, stated in the API document too (the string-to-number pipe hides them). */
const bounds = (opts: { min?: number; max?: number }) => ({
  ...(opts.min !== undefined ? { minimum: opts.min } : {}),
  ...(opts.max !== undefined ? { maximum: opts.max } : {}),
});

export const queryNumber = (description: string, opts: { min?: number; max?: number } = {}) => {
  let n = z.coerce.number<string>().refine(Number.isFinite, 'must be a finite number');
  if (opts.min !== undefined) n = n.refine((v) => v >= opts.min!, `must be >= ${opts.min}`);
  if (opts.max !== undefined) n = n.refine((v) => v <= opts.max!, `must be <= ${opts.max}`);
  return z.string().regex(/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/, 'must be a number').pipe(n).optional().openapi({ type: 'number', description, ...bounds(opts) });
};

export const queryInteger = (description: string, opts: { min?: number; max?: number } = {}) => {
  let n = z.coerce.number<string>().int();
  if (opts.min !== undefined) n = n.min(opts.min);
  if (opts.max !== undefined) n = n.max(opts.max);
  return z.string().regex(/^\s*[-+]?\d+\s*$/, 'must be an integer').pipe(n).optional().openapi({ type: 'integer', description, ...bounds(opts) });
};

export const formatParam = (formats: readonly string[], description = 'Response format; when omitted the Accept header decides') =>
  z.string().optional().openapi({ description: `${description}. One of: ${formats.join(', ')}`, example: formats[0] });

/**
 * `min_lon,min_lat,max_lon,max_lat` in CRS84, or the six numbers of a 3D box
 * (`min_lon,min_lat,min_h,max_lon,max_lat,max_h`, CRS84h), of which the heights are dropped.
 */
export const queryBBox = (description = 'min_lon,min_lat,max_lon,max_lat (CRS84)') =>
  z
    .string()
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => Number(p.trim()));
      if ((parts.length !== 4 && parts.length !== 6) || parts.some((p) => !Number.isFinite(p) || s.trim() === '')) {
        ctx.addIssue({ code: 'custom', message: 'bbox must be four (or, with heights, six) comma-separated numbers' });
        return z.NEVER;
      }
      const problem = crs84BoxProblem(parts);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: `${problem}; ${CRS84_BOX_RULE}` });
        return z.NEVER;
      }
      return (parts.length === 6 ? [parts[0], parts[1], parts[3], parts[4]] : parts) as [number, number, number, number];
    })
    .optional()
    .openapi({ type: 'string', description, example: '-10,40,10,50' });

/** Comma-separated list of names. */
export const queryList = (description: string) =>
  z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p.length > 0))
    .optional()
    .openapi({ type: 'string', description });
