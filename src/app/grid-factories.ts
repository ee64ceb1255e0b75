import type { Dggrs } from '../ports/grid-registry.js';
import { H3Dggrs } from '../adapters/grids/h3-dggrs.js';
import { A5Dggrs } from '../adapters/grids/a5-dggrs.js';
import { createIvea7h } from '../domain/dggrs/grids/ivea7h.js';
import { createIsea7h } from '../domain/dggrs/grids/isea7h.js';
import { createIvea7hZ7 } from '../domain/dggrs/grids/ivea7h-z7.js';
import { createIsea7hZ7 } from '../domain/dggrs/grids/isea7h-z7.js';
import { createIvea3h } from '../domain/dggrs/grids/ivea3h.js';
import { createIsea3h } from '../domain/dggrs/grids/isea3h.js';
import { RHOMBIC_GRIDS } from '../domain/dggrs/grids/rhombic-grids.js';
import { RTEA_GRIDS } from '../domain/dggrs/grids/rtea-grids.js';
import { HEALPIX_GRIDS } from '../domain/dggrs/grids/healpix-grids.js';
import { GNOSIS_GRIDS } from '../domain/dggrs/grids/gnosis-grids.js';

/** Every grid the service knows, by id; config enables a subset. */
export const GRID_FACTORIES: Record<string, () => Dggrs> = {
  IVEA7H: createIvea7h,
  ISEA7H: createIsea7h,
  IVEA7H_Z7: createIvea7hZ7,
  ISEA7H_Z7: createIsea7hZ7,
  IVEA3H: createIvea3h,
  ISEA3H: createIsea3h,
  H3: () => new H3Dggrs(),
  A5: () => new A5Dggrs(),
  ...RHOMBIC_GRIDS,
  ...RTEA_GRIDS,
  ...HEALPIX_GRIDS,
  ...GNOSIS_GRIDS,
};
