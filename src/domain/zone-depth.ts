/**
 * The `zone-depth` parameter: a single depth (`2`), a list (`1,3,5`) or an OGC range (`1-3`),
 * or a mix (`0,2-4`). Returns the distinct depths ascending.
 */
export class InvalidZoneDepthError extends Error {
  constructor(readonly text: string, reason: string) {
    super(`zone-depth "${text}": ${reason}`);
    this.name = 'InvalidZoneDepthError';
  }
}

export function parseZoneDepth(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const out = new Set<number>();
  for (const part of parts) {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const lo = Number(range[1]), hi = Number(range[2]);
      if (lo > hi) throw new InvalidZoneDepthError(text, `range "${part}" has its low end above its high end`);
      if (hi - lo > 64) throw new InvalidZoneDepthError(text, `range "${part}" is too wide`);
      for (let d = lo; d <= hi; d++) out.add(d);
    } else if (/^\d+$/.test(part)) {
      out.add(Number(part));
    } else {
      throw new InvalidZoneDepthError(text, 'use a depth (2), a list (1,3) or a range (1-3) of non-negative integers');
    }
  }
  return [...out].sort((a, b) => a - b);
}
