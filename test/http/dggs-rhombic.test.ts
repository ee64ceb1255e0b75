/**
 * The rhombic grids (ISEA9R, IVEA9R, ISEA4R, IVEA4R) on every route and in every encoding. The unit tests
 * (test/unit/dggrs/rhombic-oracle.test.ts) hold the grids themselves to DGGAL.
 */
import { describeGridRoutes, type GridRouteCase } from './grid-routes-suite.js';

/**
 * List levels give about 80 (9R level 6) and 150 (4R level 10) zones in the suite's 1 x 1 degree box; the
 * data levels' zones hold over a hundred demo stations.
 */
const RHOMBIC: Record<string, GridRouteCase> = {
  ISEA9R: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/ISEA9R', listLevel: 6, dataLevel: 3, depth: 2 },
  IVEA9R: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/IVEA9R', listLevel: 6, dataLevel: 3, depth: 2 },
  ISEA4R: { uri: 'https://github.com/ecere/dggal#icosahedral-snyder-equal-area-isea-projection', listLevel: 10, dataLevel: 5, depth: 3 },
  IVEA4R: { uri: 'https://github.com/ecere/dggal#icosahedral-vertex-oriented-great-circle-equal-area-ivea-projection', listLevel: 10, dataLevel: 5, depth: 3 },
};

describeGridRoutes('rhombic grids on every route and encoding', RHOMBIC);
