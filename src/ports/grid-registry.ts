import type { Dggrs } from '../domain/dggrs/dggrs.js';

export type { Dggrs } from '../domain/dggrs/dggrs.js';

/** The grids this service serves, as enabled by config. */
export interface GridRegistry {
  list(): Dggrs[];
  /** Case-sensitive lookup by id; undefined when the grid is not enabled. */
  get(id: string): Dggrs | undefined;
  /** The enabled grid `id`; UnknownGridError, the one answer for an unknown grid, when there is none. */
  require(id: string): Dggrs;
  readonly defaultGrid: Dggrs;
}
