/**
 * An aperture-3 hexagonal DGGRS named by DGGRID's Z3 ids (z3-index.ts): the zones, geometry, neighbours,
 * areas, sub-zone order and box lists of the 3H grid on the same projection, renamed (RenamedGrid), with
 * DGGRID's index hierarchy: one parent, the id without its last digit. DGGRID's own frame is a move of it
 * (grids/dggrid-grids.ts).
 */
import { RenamedGrid } from '../../core/renamed-grid.js';
import { I3HGrid } from '../3h/i3h-grid.js';
import { i3hId, parseI3HId, type I3HZone } from '../3h/i3h-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { Z3_MAX_LEVEL, z3Id, z3IndexChildren, z3IndexParent, z3Level, z3ToInt64, z3ToZone } from './z3-index.js';

export interface Z3GridOptions {
  id: string;
  title: string;
  description: string;
  uri: string;
  projection: SliceAndDiceProjection;
}

export class Z3Grid extends RenamedGrid {
  readonly zoneIdForm = '{quad 00..11}{one digit 0..2 per level}, like 0122 (level 2)';

  constructor(opts: Z3GridOptions) {
    super(opts, new I3HGrid({ id: opts.id, title: opts.title, description: opts.description, projection: opts.projection }), Z3_MAX_LEVEL);
  }

  protected innerId(id: string): string | null {
    const z = z3ToZone(id);
    return z ? i3hId(z) : null;
  }

  protected outerId(h3Id: string): string {
    return z3Id(parseI3HId(h3Id) as I3HZone);
  }

  protected levelOfId(id: string): number {
    return z3Level(id);
  }

  /** DGGRID's 64-bit Z3 index. */
  protected uint64Of(id: string): bigint {
    return z3ToInt64(id);
  }

  /** DGGRID's index parent: one, among the zone's spatial parents (the 3H grid's). */
  override parents(id: string): string[] {
    this.toInner(id);
    const p = z3IndexParent(id);
    return p === null ? [] : [p];
  }

  /** The index children (digit order, the centroid child first), then the other zones on the corners. */
  override children(id: string): string[] {
    const h = this.toInner(id);
    if (z3Level(id) >= this.maxRefinementLevel) return [];
    const own = z3IndexChildren(id);
    return [...own, ...this.inner.children(h).map(this.rename).filter((c) => !own.includes(c))];
  }
}
