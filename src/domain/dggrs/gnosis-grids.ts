import type { Dggrs } from './dggrs.js';

/** The gnosis family's grids by id (filled in as each grid is built and held to its DGGAL oracle). */
export const GNOSIS_GRIDS: Record<string, () => Dggrs> = {};
