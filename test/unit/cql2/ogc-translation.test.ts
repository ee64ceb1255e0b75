import { expect } from 'chai';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Cql2TranslationError, toDuckDbSql, type Cql2ColumnInfo, type Cql2Columns } from '../../../src/adapters/lake/cql2-duckdb-sql.js';
import { parseCql2Json, properties } from '../../../src/domain/cql2/index.js';
import { examplePairs } from './examples.js';

/** Column types the OGC examples' properties need. */
function typeOf(name: string): Cql2ColumnInfo['type'] {
  if (['geometry', 'footprint', 'location', 'road'].includes(name)) return 'geometry';
  if (['built', 'updated', 'updated_at', 'starts_at', 'ends_at', 'event_time', 'touchdown', 'liftOff'].includes(name)) return 'datetime';
  if (['values', 'layer:ids'].includes(name)) return 'array';
  if (name === 'swimming_pool') return 'boolean';
  if (['name', 'owner', 'city', 'cityName', 'material', 'road_class', 'etat_vol', 'id', 'beamMode', 'swathDirection', 'polarization'].includes(name)) return 'string';
  if (name.includes('instrument') || name.includes('scene_id') || name.includes('SURVEY_NAME')) return 'string';
  return 'number';
}

const SQL_TYPE: Record<string, string> = {
  geometry: 'BLOB',
  datetime: 'TIMESTAMP',
  array: 'VARCHAR[]',
  boolean: 'BOOLEAN',
  string: 'VARCHAR',
  number: 'DOUBLE',
};

describe('CQL2 -> DuckDB on the OGC examples', () => {
  let conn: DuckDBConnection;
  before(async () => {
    conn = await (await DuckDBInstance.create(':memory:')).connect();
  });

  for (const { name, json } of examplePairs().pairs) {
    it(`${name} translates to SQL DuckDB accepts, or is refused as unsupported`, async () => {
      const ast = parseCql2Json(json);
      const columns: Cql2Columns = Object.fromEntries(properties(ast).map((p) => [p, { type: typeOf(p) }]));
      let f;
      try {
        f = toDuckDbSql(ast, columns);
      } catch (e) {
        // Functions (avg, Buffer, Foo, Bar) and mixed-type array literals are not in the lake.
        expect(e).to.be.instanceOf(Cql2TranslationError);
        expect((e as Cql2TranslationError).code).to.be.oneOf(['unsupported', 'type-mismatch']);
        return;
      }
      const cols = ['dummy INTEGER', ...Object.entries(columns).map(([p, c]) => `"${p.replaceAll('"', '""')}" ${SQL_TYPE[c.type]}`)];
      const table = `t_${name}`;
      await conn.run(`CREATE TABLE ${table} (${cols.join(', ')})`);
      const extra = f.residual?.columns.map((c) => `, ${c.sql} AS ${c.alias}`).join('') ?? '';
      const rows = (await conn.runAndReadAll(`SELECT 1 AS one${extra} FROM ${table} WHERE ${f.sql}`, f.params)).getRowObjects();
      expect(rows).to.deep.equal([]);
    });
  }
});
