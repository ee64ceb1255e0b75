import { zonePyramidStoreContract } from './zone-pyramid-store.contract.js';
import { MemoryPyramidStore } from '../support/memory-pyramid-store.js';

// The in-memory store used by tests of the port's users keeps the same promises as the ClickHouse
// adapter (run against two real shard servers in test/clients/clickhouse-pyramid-store.test.ts).
zonePyramidStoreContract('in memory', async () => ({ store: new MemoryPyramidStore(), cleanup: async () => {} }));
