import type { Dggrs } from './dggrs.js';

/** The healpix family's grids by id (filled in as each grid is built and held to its DGGAL oracle). */
export const HEALPIX_GRIDS: Record<string, () => Dggrs> = {};
