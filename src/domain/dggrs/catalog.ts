/**
 * Every grid of the pure domain, by id: the one place a grid is registered, one line each. Grids built on
 * npm packages (H3, A5) join them in the adapters' catalog (src/adapters/grids/catalog.ts).
 */
import type { Dggrs } from './dggrs.js';
import { createIgeo7, createIsea3hZ3 } from './grids/dggrid-grids.js';
import { createIsea3h, createIsea4r, createIsea7h, createIsea7hZ7, createIsea9r } from './grids/isea-grids.js';
import { createIvea3h, createIvea4r, createIvea7h, createIvea7hZ7, createIvea9r } from './grids/ivea-grids.js';
import { createRtea3h, createRtea4r, createRtea7h, createRtea7hZ7, createRtea9r } from './grids/rtea-grids.js';
import { GnosisGlobalGrid } from './lattices/gnosis/gnosis-grid.js';
import { HealpixGrid } from './lattices/healpix/healpix-grid.js';
import { RhealpixGrid } from './lattices/healpix/rhealpix-grid.js';

/** A grid's constructor: each call builds a grid of its own (grids keep per-instance caches). */
export type GridFactory = () => Dggrs;

/** The domain's grids by id, in the order the service lists them as known. */
export const DOMAIN_GRIDS: Readonly<Record<string, GridFactory>> = {
  IVEA7H: createIvea7h,
  ISEA7H: createIsea7h,
  IVEA7H_Z7: createIvea7hZ7,
  ISEA7H_Z7: createIsea7hZ7,
  IGEO7: createIgeo7,
  IVEA3H: createIvea3h,
  ISEA3H: createIsea3h,
  ISEA3H_Z3: createIsea3hZ3,
  ISEA9R: createIsea9r,
  IVEA9R: createIvea9r,
  ISEA4R: createIsea4r,
  IVEA4R: createIvea4r,
  RTEA3H: createRtea3h,
  RTEA7H: createRtea7h,
  RTEA7H_Z7: createRtea7hZ7,
  RTEA9R: createRtea9r,
  RTEA4R: createRtea4r,
  rHEALPix: () => new RhealpixGrid(),
  HEALPix: () => new HealpixGrid(),
  GNOSISGlobalGrid: () => new GnosisGlobalGrid(),
};
