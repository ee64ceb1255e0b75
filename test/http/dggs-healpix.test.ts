/** rHEALPix and HEALPix on every HTTP route and in every encoding (the shared grid-routes suite). */
import { describeGridRoutes } from './grid-routes-suite.js';

describeGridRoutes('HEALPix-family grids on every route and encoding', {
  rHEALPix: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/rHEALPix', listLevel: 7, dataLevel: 4, depth: 2 },
  HEALPix: { uri: 'https://www.opengis.net/def/dggrs/OGC/1.0/HEALPix', listLevel: 10, dataLevel: 7, depth: 3 },
});
