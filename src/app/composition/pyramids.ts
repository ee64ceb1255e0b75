import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { ClickHouseZonePyramidStore } from '../../adapters/clickhouse/clickhouse-pyramid-store.js';
import type { ZonePyramidStore } from '../../ports/zone-pyramid-store.js';

/**
 * The zone pyramid store of `clickhouse-pyramid` collections: the ClickHouse cluster of the
 * `clickhouse` section. Building it opens nothing (connections open on the first statement), so
 * a config without pyramids costs nothing; with no shards configured, each use answers an
 * UnavailableError naming `clickhouse.shards`.
 */
export function createPyramidStore(config: Config): ZonePyramidStore {
  return new ClickHouseZonePyramidStore({ ...config.clickhouse });
}

export function bindPyramids(c: Container, config: Config): void {
  c.bind(TOKENS.ZonePyramidStore).toDynamicValue(() => createPyramidStore(config));
}
