import type { Dggrs } from '../ports/grid-registry.js';
import { H3Dggrs } from '../adapters/grids/h3-dggrs.js';

/** Every grid the service knows, by id; config enables a subset. */
export const GRID_FACTORIES: Record<string, () => Dggrs> = {
  H3: () => new H3Dggrs(),
};
