import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { TilesService } from '../tiles/tiles-service.js';

/** The vector tiles' use case: zones from the grids, values from the zone-data use case, bounds from config `tiles` and `limits`. */
export function bindTiles(c: Container, config: Config): void {
  c.bind(TOKENS.TilesConfig).toConstantValue(config.tiles);
  c.bind(TOKENS.TilesService).to(TilesService);
}
