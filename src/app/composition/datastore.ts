import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Container } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Config } from '../config/config-schema.js';
import { DatastoreReadiness } from '../datastore-readiness.js';
import { KnexDatastore } from '../../adapters/datastore/knex-datastore.js';

/** The datastore the config names, behind each of its ports, and whether it is initialised. */
export function bindDatastore(c: Container, config: Config): void {
  c.bind(TOKENS.DatastoreAdmin).toDynamicValue(() => {
    const ds = config.datastore;
    if (ds.kind === 'sqlite') {
      if (ds.file !== ':memory:') mkdirSync(path.dirname(path.resolve(ds.file)), { recursive: true });
      return new KnexDatastore({ kind: 'sqlite', file: ds.file });
    }
    return new KnexDatastore({ kind: 'postgres', url: ds.url, schema: ds.schema });
  });
  c.bind(TOKENS.ConceptStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.OrderStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.JobLedger).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.TokenStore).toService(TOKENS.DatastoreAdmin);
  c.bind(TOKENS.DatastoreReadiness).to(DatastoreReadiness);
}
