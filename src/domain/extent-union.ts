import type { Extent } from './collection.js';

type Box = [number, number, number, number];

/**
 * The one box covering all `boxes` ([west, south, east, north] in degrees): a box crossing the
 * antimeridian (west > east) widens the union to every longitude, as one box cannot say more.
 * Undefined for none.
 */
export function unionBox(boxes: readonly Box[]): Box | undefined {
  const valid = boxes.filter((b) => b.every(Number.isFinite));
  if (valid.length === 0) return undefined;
  // A loop, not Math.min(...): a catalog may have more items than a call takes arguments.
  const out: Box = [Infinity, Infinity, -Infinity, -Infinity];
  let crosses = false;
  for (const [w, s, e, n] of valid) {
    crosses ||= w > e;
    out[0] = Math.min(out[0], w);
    out[1] = Math.min(out[1], s);
    out[2] = Math.max(out[2], e);
    out[3] = Math.max(out[3], n);
  }
  return crosses ? [-180, out[1], 180, out[3]] : out;
}

/** An extent of a box and a time span (epoch ms; null for an open end), parts left out when unknown. */
export function extentOf(box: Box | undefined, start: number | null | undefined, end: number | null | undefined): Extent {
  const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));
  const hasTime = (start ?? null) !== null || (end ?? null) !== null;
  return {
    ...(box ? { spatial: { bbox: [box] } } : {}),
    ...(hasTime ? { temporal: { interval: [[iso(start), iso(end)]] } } : {}),
  };
}
