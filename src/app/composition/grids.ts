import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { EnabledGridRegistry } from '../grid-registry.js';
import { GRID_FACTORIES } from '../../adapters/grids/catalog.js';

/** The grids the config enables. */
export function bindGrids(c: Container, config: Config): void {
  c.bind(TOKENS.GridRegistry).toDynamicValue(() => {
    const grids = config.grids.enabled.map((id) => {
      const make = GRID_FACTORIES[id];
      if (!make) throw new Error(`grids.enabled: unknown grid "${id}" (known: ${Object.keys(GRID_FACTORIES).join(', ')})`);
      return make();
    });
    return new EnabledGridRegistry(grids, config.grids.default);
  });
}
