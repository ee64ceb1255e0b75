import type { Dggrs } from '../dggrs.js';
import { createHealpix } from '../lattices/healpix/healpix-grid.js';
import { createRhealpix } from '../lattices/healpix/rhealpix-grid.js';

/** The healpix family's grids by id (DGGAL's ids), each held to its DGGAL oracle. */
export const HEALPIX_GRIDS: Record<string, () => Dggrs> = {
  rHEALPix: createRhealpix,
  HEALPix: createHealpix,
};
