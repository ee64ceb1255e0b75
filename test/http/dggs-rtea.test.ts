/**
 * The RTEA grids (DGGAL's Rhombic Triacontahedron Equal-Area projection) on every route and in every
 * encoding; the unit oracle (test/unit/dggrs/rtea-oracle.test.ts) holds them to DGGAL.
 */
import { describeGridRoutes, type GridRouteCase } from './grid-routes-suite.js';

const RTEA_GRIDS: Record<string, GridRouteCase> = {
  RTEA7H: { uri: 'https://github.com/ecere/dggal', listLevel: 7, dataLevel: 3, depth: 2 },
  RTEA7H_Z7: { uri: 'https://github.com/ecere/dggal', listLevel: 7, dataLevel: 3, depth: 2, sibling: 'RTEA7H' },
  RTEA3H: { uri: 'https://github.com/ecere/dggal', listLevel: 12, dataLevel: 8, depth: 4 },
  RTEA9R: { uri: 'https://github.com/ecere/dggal', listLevel: 6, dataLevel: 3, depth: 2 },
  RTEA4R: { uri: 'https://github.com/ecere/dggal', listLevel: 10, dataLevel: 5, depth: 3 },
};

describeGridRoutes('RTEA grids on every route and encoding', RTEA_GRIDS);
