import type { Dggrs } from './dggrs.js';

/** The rhombic family's grids by id (filled in as each grid is built and held to its DGGAL oracle). */
export const RHOMBIC_GRIDS: Record<string, () => Dggrs> = {};
