import type { Dggrs } from './dggrs.js';

/** The rtea family's grids by id (filled in as each grid is built and held to its DGGAL oracle). */
export const RTEA_GRIDS: Record<string, () => Dggrs> = {};
