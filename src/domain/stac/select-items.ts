import type { LonLat } from '../dggrs/dggrs.js';
import { ZoneCoverage } from './coverage.js';
import { itemInTime, type StacItemDescriptor, type TimeBounds } from './stac-item.js';

export type StacStrategy = 'single' | 'latest' | 'mosaic';

export interface SelectionOptions {
  strategy: StacStrategy;
  /** single: minimum share one item must cover (default 0: no check); mosaic: total target (default 100); latest: ignored. */
  intersectionPercent?: number;
  /** Maximum `eo:cloud_cover`; no filter when undefined. Items that do not state a cloud cover are dropped by the filter. */
  cloudCoverPercent?: number;
  datetime?: TimeBounds;
}

export interface SelectedItem {
  item: StacItemDescriptor;
  /** Share of the zone this item's footprint covers on its own, 0-100. */
  coveragePercent: number;
}

export interface StacSelection {
  /** Chosen items in priority order (newest first): a mosaic reads the first, then fills gaps from the next. */
  items: SelectedItem[];
  /** Share of the zone the chosen items cover together, 0-100. */
  coveragePercent: number;
}

export type StacSelectionProblem = 'mosaic-needs-datetime' | 'invalid-percent';

export class StacSelectionError extends Error {
  constructor(readonly problem: StacSelectionProblem, message: string) {
    super(message);
    this.name = 'StacSelectionError';
  }
}

/**
 * Picks the items that supply a zone's data (the contract's "STAC strategies"):
 * - latest: the newest item, no coverage check;
 * - single: the newest item that alone covers at least `intersectionPercent` of the zone (0, the
 *   default, disables the check: then it is the newest item, as latest);
 * - mosaic: items newest first, each adding footprint the earlier ones lack, until together they
 *   cover `intersectionPercent` (default 100); needs a datetime so the mosaic has a time window.
 *   When the target is never reached every contributing item is used (best effort).
 * Filters first: datetime overlap, then cloud cover. "Newest" is the latest end of the item's
 * time (its datetime, or end_datetime); ties go to the lower cloud cover (unknown last), then
 * to the smaller id, so the answer never depends on catalog order.
 * Nothing matching gives no items (the caller answers with null values).
 */
export function selectItems(items: readonly StacItemDescriptor[], zoneFootprint: readonly LonLat[], options: SelectionOptions): StacSelection {
  checkPercent('intersection_percent', options.intersectionPercent);
  checkPercent('cloud_cover_percent', options.cloudCoverPercent);
  if (options.strategy === 'mosaic' && !options.datetime) {
    throw new StacSelectionError('mosaic-needs-datetime', 'The mosaic strategy needs a datetime interval to choose the scenes from.');
  }
  const max = options.cloudCoverPercent;
  const candidates = items
    .filter((it) => !options.datetime || itemInTime(it, options.datetime))
    .filter((it) => max === undefined || (it.cloudCover !== undefined && it.cloudCover <= max))
    .sort(newestFirst);
  const zone = new ZoneCoverage(zoneFootprint);

  if (options.strategy === 'latest' || (options.strategy === 'single' && (options.intersectionPercent ?? 0) === 0)) {
    const first = candidates[0];
    if (!first) return { items: [], coveragePercent: 0 };
    const pct = zone.percent([zone.mask(first.footprint)]);
    return { items: [{ item: first, coveragePercent: pct }], coveragePercent: pct };
  }

  if (options.strategy === 'single') {
    const threshold = options.intersectionPercent ?? 0;
    for (const item of candidates) {
      const pct = zone.percent([zone.mask(item.footprint)]);
      if (pct >= threshold) return { items: [{ item, coveragePercent: pct }], coveragePercent: pct };
    }
    return { items: [], coveragePercent: 0 };
  }

  const target = options.intersectionPercent ?? 100;
  const chosen: SelectedItem[] = [];
  const masks: Uint8Array[] = [];
  let total = 0;
  for (const item of candidates) {
    const mask = zone.mask(item.footprint);
    const after = zone.percent([...masks, mask]);
    // An item inside the footprint already chosen adds no coverage: it is not read.
    if (after <= total) continue;
    masks.push(mask);
    chosen.push({ item, coveragePercent: zone.percent([mask]) });
    total = after;
    if (total >= target) break;
  }
  return { items: chosen, coveragePercent: total };
}

function newestFirst(a: StacItemDescriptor, b: StacItemDescriptor): number {
  const ta = a.end ?? a.start ?? -Infinity, tb = b.end ?? b.start ?? -Infinity;
  if (ta !== tb) return tb - ta;
  const ca = a.cloudCover ?? Infinity, cb = b.cloudCover ?? Infinity;
  if (ca !== cb) return ca - cb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function checkPercent(name: string, v: number | undefined): void {
  if (v !== undefined && !(Number.isFinite(v) && v >= 0 && v <= 100)) {
    throw new StacSelectionError('invalid-percent', `${name} must be a number from 0 to 100; got ${v}.`);
  }
}
