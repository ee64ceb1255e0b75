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

export const KNOWN_INVALID_OUTLINES: readonly OutlineDefect[] = [];

/** `grid zone` keys of the known invalid refined outlines. */
export const KNOWN_INVALID_KEYS: ReadonlySet<string> = new Set(
  KNOWN_INVALID_OUTLINES.flatMap((d) => Object.entries(d.zones).flatMap(([grid, zones]) => zones.map((z) => `${grid} ${z}`))),
);
