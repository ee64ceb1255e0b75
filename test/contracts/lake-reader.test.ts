import { lakeReaderContract } from './lake-reader.contract.js';
import { DuckDbLake } from '../../src/adapters/lake/duckdb-lake.js';

lakeReaderContract('DuckDbLake', (root) => new DuckDbLake(root));
