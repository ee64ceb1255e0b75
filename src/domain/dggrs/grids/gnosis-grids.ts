import type { Dggrs } from '../dggrs.js';
import { GnosisGlobalGrid } from '../lattices/gnosis/gnosis-grid.js';

/** The gnosis family's grids by id (DGGAL's DGGRS ids), each held to its DGGAL oracle. */
export const GNOSIS_GRIDS: Record<string, () => Dggrs> = {
  GNOSISGlobalGrid: () => new GnosisGlobalGrid(),
};
