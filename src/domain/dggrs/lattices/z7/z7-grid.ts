/**
 * An aperture-7 hexagonal DGGRS named by Z7 ids (DGGAL's RI7H_Z7): the zones, geometry, hierarchy and
 * sub-zone order of the 7H grid on the same projection, only the names differ. Every answer is the 7H
 * grid's, translated at the edges (RenamedGrid); DGGAL lists the 7H zones of a box and renames them, so
 * box lists are in the 7H grid's order.
 */
import { RenamedGrid } from '../../core/renamed-grid.js';
import { I7HGrid } from '../7h/i7h-grid.js';
import { parseZoneId, zoneId, type I7HZone } from '../7h/i7h-zone.js';
import type { SliceAndDiceProjection } from '../../projections/slice-and-dice-projection.js';
import { Z7Namer, z7Level, z7ToInt64, z7ToZone } from './z7-index.js';

export interface Z7GridOptions {
  id: string;
  title: string;
  description: string;
  /** Where the grid is defined (OGC registers no Z7 grid). */
  uri: string;
  projection: SliceAndDiceProjection;
}

export class Z7Grid extends RenamedGrid {
  readonly zoneIdForm = '{base cell 00..11}{one digit 0..6 per level}, like 0132 (level 2)';
  private readonly namer = new Z7Namer();
  /** Recently parsed ids: parsing walks down from the base cell, and one id is often asked several things. */
  private readonly parsed = new Map<string, string | null>();

  constructor(opts: Z7GridOptions) {
    const h7 = new I7HGrid({ id: opts.id, title: opts.title, description: opts.description, projection: opts.projection });
    super(opts, h7, h7.maxRefinementLevel);
  }

  /** The 7H id of a Z7 id, or null for ids that name no zone. */
  protected innerId(id: string): string | null {
    if (id.length > 21) return null;
    let h = this.parsed.get(id);
    if (h === undefined) {
      const z = z7ToZone(id);
      h = z ? zoneId(z) : null;
      if (this.parsed.size >= 10000) this.parsed.clear();
      this.parsed.set(id, h);
    }
    return h;
  }

  protected outerId(h7Id: string): string {
    return this.namer.id(parseZoneId(h7Id) as I7HZone);
  }

  protected levelOfId(id: string): number {
    return z7Level(id);
  }

  /** DGGAL's (and DGGRID's) 64-bit Z7 id: the base cell, then 3 bits per level. */
  protected uint64Of(id: string): bigint {
    return z7ToInt64(id);
  }
}
