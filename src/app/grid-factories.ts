import type { Dggrs } from '../ports/grid-registry.js';
import { H3Dggrs } from '../adapters/grids/h3-dggrs.js';
import { createIvea7h } from '../domain/dggrs/ivea7h.js';
import { createIsea7h } from '../domain/dggrs/isea7h.js';

/** Every grid the service knows, by id; config enables a subset. */
export const GRID_FACTORIES: Record<string, () => Dggrs> = {
  IVEA7H: createIvea7h,
  ISEA7H: createIsea7h,
  H3: () => new H3Dggrs(),
};
