/**
 * Every grid the service knows, by id (config enables a subset): the domain's catalog and the grids built
 * on npm packages. The composition root reads it, and names this module to the lake binning workers, which
 * rebuild their grids from it.
 */
import { DOMAIN_GRIDS, type GridFactory } from '../../domain/dggrs/catalog.js';
import { A5Dggrs } from './a5-dggrs.js';
import { H3Dggrs } from './h3-dggrs.js';

export const GRID_FACTORIES: Readonly<Record<string, GridFactory>> = {
  ...DOMAIN_GRIDS,
  H3: () => new H3Dggrs(),
  A5: () => new A5Dggrs(),
};
