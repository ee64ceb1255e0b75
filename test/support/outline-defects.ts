/**
 * Zone outlines known to be invalid (GEOS IsValid false), each with its cause. The validity tests over
 * the special zones of every grid (test/support/special-zones.ts) allow exactly these: the GEOS client
 * test asserts that GEOS finds these and no others, so the list shrinks when a cause is fixed. All are
 * refined outlines; their plain outlines are valid.
 */
export interface OutlineDefect {
  /** Zone ids by grid id. */
  zones: Readonly<Record<string, readonly string[]>>;
  reason: string;
}

const each = (grids: readonly string[], zones: readonly string[]): Record<string, readonly string[]> =>
  Object.fromEntries(grids.map((g) => [g, zones]));

export const KNOWN_INVALID_OUTLINES: readonly OutlineDefect[] = [
  {
    zones: each(['IVEA3H', 'ISEA3H', 'RTEA3H'], ['Q0-1486BA0-C', 'Q3-6954FE0D5D2E0-D', 'Q5-34AA7EFC6B3A0-D', 'Q8-34AA7F2578AE0-C']),
    reason: '3H level-33 zones with a corner on a pole: the refined outline crosses itself beside the pole (lattices/3h, not yet changed)',
  },
];

/** `grid zone` keys of the known invalid refined outlines. */
export const KNOWN_INVALID_KEYS: ReadonlySet<string> = new Set(
  KNOWN_INVALID_OUTLINES.flatMap((d) => Object.entries(d.zones).flatMap(([grid, zones]) => zones.map((z) => `${grid} ${z}`))),
);
