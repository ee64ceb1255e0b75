import type { Dggrs, GridRegistry } from '../ports/grid-registry.js';
import { UnknownGridError } from '../ports/errors.js';

/** The enabled grids, in config order; the configured default must be among them. */
export class EnabledGridRegistry implements GridRegistry {
  private readonly byId: Map<string, Dggrs>;
  readonly defaultGrid: Dggrs;

  constructor(grids: Dggrs[], defaultId: string) {
    this.byId = new Map(grids.map((g) => [g.id, g]));
    const d = this.byId.get(defaultId);
    if (!d) throw new Error(`default grid "${defaultId}" is not among the enabled grids ${[...this.byId.keys()].join(', ')}`);
    this.defaultGrid = d;
  }

  list(): Dggrs[] {
    return [...this.byId.values()];
  }

  get(id: string): Dggrs | undefined {
    return this.byId.get(id);
  }

  require(id: string): Dggrs {
    const grid = this.byId.get(id);
    if (!grid) throw new UnknownGridError(id, [...this.byId.keys()]);
    return grid;
  }
}
