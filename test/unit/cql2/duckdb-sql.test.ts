import { expect } from 'chai';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  Cql2TranslationError,
  Cql2UnknownPropertyError,
  toDuckDbSql,
  type Cql2Columns,
} from '../../../src/adapters/lake/cql2-duckdb-sql.js';
import { Cql2SyntaxError, parseCql2Json, parseCql2Text, type Expr } from '../../../src/domain/cql2/index.js';

const COLUMNS: Cql2Columns = {
  id: { type: 'integer' },
  name: { type: 'string' },
  owner: { type: 'string' },
  road_class: { type: 'string' },
  floors: { type: 'integer' },
  'eo:floors': { type: 'integer', column: 'floors' },
  pool: { type: 'boolean' },
  built: { type: 'date' },
  updated: { type: 'datetime' },
  starts_at: { type: 'datetime' },
  ends_at: { type: 'datetime' },
  tags: { type: 'array' },
  geom: { type: 'geometry' },
  other_geom: { type: 'geometry' },
  weird: { type: 'string', column: 'we"ird' },
};

const ROWS = `
  (1, 'Smith Tower', 'Beyoncé', 'Straße', 10, true, DATE '2010-05-01', TIMESTAMP '2012-08-10 05:30:00',
   TIMESTAMP '2017-06-10 08:00:00', TIMESTAMP '2017-06-11 09:00:00', ['a', 'b'], 'POINT (1 1)', 'POINT (3 3)', 'x'),
  (2, 'smithy', 'Mike Jones', 'ΟΔΟΣ', 3, false, DATE '2016-01-01', TIMESTAMP '2020-01-01 00:00:00',
   TIMESTAMP '2017-06-09 00:00:00', TIMESTAMP '2017-06-12 00:00:00', ['c'], 'LINESTRING (-5 0, 5 0)', 'POINT (0 0)', 'y'),
  (3, '100% pure', 'O''Brien', 'street', NULL, NULL, NULL, NULL,
   TIMESTAMP '2005-01-01 00:00:00', NULL, [], 'POLYGON ((2 2, 4 2, 4 4, 2 4, 2 2))', 'POINT (9 9)', 'z'),
  (4, 'under_score', 'beyonce', 'Street', 5, true, DATE '2015-01-01', TIMESTAMP '2012-08-10 05:30:00.5',
   TIMESTAMP '2017-06-10 07:30:00', TIMESTAMP '2017-06-11 10:30:00', ['b', 'a'], 'POLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10))', 'POINT (20 20)', NULL),
  (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`;

describe('CQL2 -> DuckDB SQL', () => {
  let conn: DuckDBConnection;

  before(async () => {
    const db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
    await conn.run("SET TimeZone = 'UTC'");
    await conn.run(`CREATE TABLE raw (id INTEGER, name VARCHAR, owner VARCHAR, road_class VARCHAR, floors INTEGER,
      pool BOOLEAN, built DATE, updated TIMESTAMP, starts_at TIMESTAMP, ends_at TIMESTAMP, tags VARCHAR[],
      wkt VARCHAR, other_wkt VARCHAR, "we""ird" VARCHAR)`);
    await conn.run(`INSERT INTO raw VALUES ${ROWS}`);
    // Geometries as WKB BLOBs, as in the lake's parquet files, plus per-row envelope columns.
    await conn.run(`CREATE TABLE t AS SELECT * EXCLUDE (wkt, other_wkt),
      ST_AsWKB(CAST(wkt AS GEOMETRY)) AS geom, ST_AsWKB(CAST(other_wkt AS GEOMETRY)) AS other_geom FROM raw`);
    await conn.run(`CREATE TABLE boxes AS SELECT id, geom,
      CASE id WHEN 1 THEN 1 WHEN 2 THEN -5 WHEN 3 THEN 2 WHEN 4 THEN -10 END::DOUBLE AS xmin,
      CASE id WHEN 1 THEN 1 WHEN 2 THEN 0 WHEN 3 THEN 2 WHEN 4 THEN -10 END::DOUBLE AS ymin,
      CASE id WHEN 1 THEN 1 WHEN 2 THEN 5 WHEN 3 THEN 4 WHEN 4 THEN 10 END::DOUBLE AS xmax,
      CASE id WHEN 1 THEN 1 WHEN 2 THEN 0 WHEN 3 THEN 4 WHEN 4 THEN 10 END::DOUBLE AS ymax FROM t`);
    await conn.run('CREATE TABLE g AS SELECT id, ST_GeomFromWKB(geom) AS geom FROM t');
  });

  async function matching(filter: string | Expr, table = 't', columns: Cql2Columns = COLUMNS): Promise<number[]> {
    const ast = typeof filter === 'string' ? parseCql2Text(filter) : filter;
    const f = toDuckDbSql(ast, columns);
    const extra = f.residual ? `, ${f.residual.undecided} AS __undecided${f.residual.columns.map((c) => `, ${c.sql} AS ${c.alias}`).join('')}` : '';
    const reader = await conn.runAndReadAll(`SELECT id${extra} FROM ${table} WHERE ${f.sql} ORDER BY id`, f.params);
    const rows = reader.getRowObjects() as Record<string, unknown>[];
    // As the lake does: SQL's answer stands where it decided, the residual runs on the rest.
    return (f.residual ? rows.filter((r) => r.__undecided === false || f.residual!.test(r)) : rows).map((r) => Number(r.id));
  }

  const cases: [string, number[]][] = [
    // comparisons and booleans
    ["name = 'smithy'", [2]],
    ["name <> 'smithy'", [1, 3, 4]],
    ['floors > 4', [1, 4]],
    ['floors <= 5', [2, 4]],
    ['"eo:floors" >= 10', [1]],
    ['pool = TRUE', [1, 4]],
    ['pool <> false', [1, 4]],
    ['floors > 4 AND pool = true AND NOT (floors = 10)', [4]],
    ["floors < 4 OR name = 'Smith Tower'", [1, 2]],
    ['TRUE', [1, 2, 3, 4, 5]],
    // LIKE with CQL2 escapes
    ["name LIKE 'Smith%'", [1]],
    ["name LIKE 'smith_'", [2]],
    ["name NOT LIKE 'Smith%'", [2, 3, 4]],
    ["name LIKE '100\\%%'", [3]],
    ["name LIKE '100%'", [3]],
    ["name LIKE 'under\\_scor_'", [4]],
    ["name LIKE '%''%'", []],
    ["owner LIKE 'O''%'", [3]],
    // CASEI / ACCENTI
    ["CASEI(name) LIKE CASEI('SMITH%')", [1, 2]],
    ["name LIKE CASEI('SMITH%')", [2]],
    ["ACCENTI(owner) = ACCENTI('Beyonce')", [1]],
    ["CASEI(ACCENTI(owner)) = CASEI(ACCENTI('BEYONCÉ'))", [1, 4]],
    ["CASEI(road_class) IN (CASEI('STREET'), CASEI('straße'))", [1, 3, 4]],
    // IN, BETWEEN, IS NULL
    ['floors IN (3, 5)', [2, 4]],
    ['floors NOT IN (3, 5)', [1]],
    ["name IN ('smithy', 'nobody')", [2]],
    ['floors BETWEEN 3 AND 5', [2, 4]],
    ['floors NOT BETWEEN 3 AND 5', [1]],
    ['floors IS NULL', [3, 5]],
    ['name IS NOT NULL', [1, 2, 3, 4]],
    ['geom IS NULL', [5]],
    // arithmetic
    ['floors * 2 + 1 > 10', [1, 4]],
    ['floors % 2 = 1', [2, 4]],
    ['floors div 2 = 2', [4]],
    ['2 ^ floors > 100', [1]],
    ['-floors < -4', [1, 4]],
    ['floors / 4 = 1.25', [4]],
    ['(floors - 1) * (floors + 1) = 24', [4]],
    // temporal
    ["built > DATE('2012-06-05')", [2, 4]],
    ["T_AFTER(built, DATE('2012-06-05'))", [2, 4]],
    ["T_BEFORE(built, DATE('2015-01-01'))", [1]],
    ["T_EQUALS(updated, TIMESTAMP('2012-08-10T05:30:00Z'))", [1]],
    ["updated > TIMESTAMP('2012-08-10T05:30:00.000000Z')", [2, 4]],
    ["T_DURING(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T07:30:00Z', '2017-06-11T10:30:00Z'))", [1]],
    ["T_CONTAINS(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T08:00:00Z', '2017-06-11T09:00:00Z'))", [2, 4]],
    ["T_EQUALS(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T07:30:00Z', '2017-06-11T10:30:00Z'))", [4]],
    ["T_INTERSECTS(INTERVAL(starts_at, ends_at), INTERVAL('..', '2017-06-09T12:00:00Z'))", [2]],
    ["T_STARTS(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T07:30:00Z', '..'))", [4]],
    ["T_DISJOINT(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-11T09:30:00Z', '..'))", [1]],
    ["T_MEETS(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-11T09:00:00Z', '2018-01-01'))", [1]],
    ["T_METBY(INTERVAL(starts_at, ends_at), INTERVAL('2017-01-01', '2017-06-10T08:00:00Z'))", [1]],
    ["T_OVERLAPS(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T09:00:00Z', '2017-06-12T00:00:00Z'))", [1, 4]],
    ["T_OVERLAPPEDBY(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-01', '2017-06-10T09:00:00Z'))", [1, 2, 4]],
    ["T_FINISHES(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-10T07:00:00Z', '2017-06-11T09:00:00Z'))", [1]],
    ["T_FINISHEDBY(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-11', '2017-06-12T00:00:00Z'))", [2]],
    ["T_STARTEDBY(INTERVAL(starts_at, ends_at), INTERVAL('2017-06-09', '2017-06-10'))", [2]],
    ["T_INTERSECTS(starts_at, INTERVAL('2005-01-01', '2005-01-01T00:00:01Z'))", [3]],
    // arrays
    ["A_CONTAINS(tags, ('a'))", [1, 4]],
    ["A_OVERLAPS(tags, ('b', 'c'))", [1, 2, 4]],
    ["A_CONTAINEDBY(tags, ('a', 'b', 'c'))", [1, 2, 3, 4]],
    ["A_EQUALS(tags, ('b', 'a'))", [1, 4]],
    ["A_EQUALS(tags, ())", [3]],
    // spatial: points, lines, polygons
    ['S_INTERSECTS(geom, POINT(1 1))', [1, 4]],
    ['S_INTERSECTS(geom, BBOX(0, -1, 3, 3))', [1, 2, 3, 4]],
    ['S_INTERSECTS(geom, LINESTRING(4 -1, 4 5))', [2, 3, 4]],
    ['S_INTERSECTS(geom, MULTIPOINT((50 50), (5 0)))', [2, 4]],
    ['S_WITHIN(geom, BBOX(-6, -6, 6, 6))', [1, 2, 3]],
    ['S_WITHIN(geom, POLYGON((-6 -6, 6 -6, 6 6, -6 6, -6 -6), (0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5)))', [2, 3]],
    ['S_CONTAINS(geom, POINT(3 3))', [3, 4]],
    ['S_CONTAINS(geom, LINESTRING(-1 0, 1 0))', [2, 4]],
    ['S_DISJOINT(geom, POINT(3 3))', [1, 2]],
    ['NOT S_INTERSECTS(geom, POINT(1 1))', [2, 3]],
    ['S_CROSSES(geom, LINESTRING(0 -1, 0 1))', [2]],
    ['S_TOUCHES(geom, POLYGON((4 4, 6 4, 6 6, 4 6, 4 4)))', [3]],
    ['S_TOUCHES(geom, POINT(5 0))', [2]],
    ['S_OVERLAPS(geom, POLYGON((3 3, 5 3, 5 5, 3 5, 3 3)))', [3]],
    ['S_OVERLAPS(geom, LINESTRING(0 0, 10 0))', [2]],
    ['S_EQUALS(geom, POLYGON((2 2, 2 4, 4 4, 4 2, 2 2)))', [3]],
    ['S_EQUALS(geom, POINT(1 1))', [1]],
    ['floors > 5 OR S_INTERSECTS(geom, POINT(3 3))', [1, 3, 4]],
    ["floors > 5 OR (name = 'smithy' AND NOT S_INTERSECTS(geom, POINT(3 3)))", [1, 2]],
    ["NOT (S_CONTAINS(geom, POINT(3 3)) OR name LIKE 'S%')", [2]],
    ['pool = true AND S_WITHIN(geom, BBOX(-6, -6, 6, 6))', [1]],
    ['NOT (pool = true AND S_WITHIN(geom, BBOX(-6, -6, 6, 6)))', [2, 4]],
    ['S_INTERSECTS(geom, other_geom)', [2]],
    ['S_DISJOINT(geom, other_geom)', [1, 3, 4]],
    ['S_INTERSECTS(POINT(0 0), BBOX(-1, -1, 1, 1))', [1, 2, 3, 4, 5]],
    ['S_DISJOINT(POINT(0 0), BBOX(-1, -1, 1, 1))', []],
    ['S_INTERSECTS(geom, BBOX(179, -90, -179, 90))', []],
    ['S_INTERSECTS(geom, GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(3 -5, 3 -1)))', [1, 4]],
  ];

  for (const [filter, expected] of cases) {
    it(`${filter} -> [${expected.join(', ')}]`, async () => {
      expect(await matching(filter)).to.deep.equal(expected);
    });
  }

  it('takes CQL2-JSON through the same path', async () => {
    const filter = parseCql2Json({
      op: 'and',
      args: [
        { op: 'like', args: [{ op: 'casei', args: [{ property: 'name' }] }, { op: 'casei', args: ['smith%'] }] },
        { op: 's_intersects', args: [{ property: 'geom' }, { bbox: [-1, -1, 2, 2] }] },
      ],
    });
    expect(await matching(filter)).to.deep.equal([1, 2]);
  });

  it('binds every literal and quotes allow-listed identifiers', () => {
    const f = toDuckDbSql(parseCql2Text(`name = 'x' AND floors BETWEEN 1 AND 2.5 AND built > DATE('2020-01-01')`), COLUMNS);
    expect(f.params).to.deep.equal(['x', 1, 2.5, '2020-01-01']);
    expect(f.sql).to.equal(
      '(("name" = CAST($1 AS VARCHAR)) AND ("floors" BETWEEN CAST($2 AS DOUBLE) AND CAST($3 AS DOUBLE)) AND ("built" > CAST($4 AS DATE)))',
    );
    expect(f.residual).to.equal(undefined);
  });

  it('maps a queryable onto its column, quoting even odd physical names', async () => {
    expect(await matching("weird = 'y'")).to.deep.equal([2]);
  });

  it('uses envelope columns for the spatial prefilter when given', async () => {
    const columns: Cql2Columns = { id: { type: 'integer' }, geom: { type: 'geometry', bbox: { xmin: 'xmin', ymin: 'ymin', xmax: 'xmax', ymax: 'ymax' } } };
    const f = toDuckDbSql(parseCql2Text('S_INTERSECTS(geom, BBOX(0, -1, 3, 3))'), columns);
    expect(f.sql).to.contain('"xmax" >= CAST($1 AS DOUBLE)');
    expect(await matching('S_INTERSECTS(geom, BBOX(0, -1, 3, 3))', 'boxes', columns)).to.deep.equal([1, 2, 3, 4]);
    expect(await matching('S_WITHIN(geom, BBOX(-6, -6, 6, 6))', 'boxes', columns)).to.deep.equal([1, 2, 3]);
  });

  it('binds every number as a double: an integral one past 2^63 does not overflow a BIGINT (a tree the parsers would refuse)', async () => {
    const columns: Cql2Columns = { id: { type: 'integer' }, geom: { type: 'geometry', bbox: { xmin: 'xmin', ymin: 'ymin', xmax: 'xmax', ymax: 'ymax' } } };
    const huge: Expr = { kind: 'spatial', op: 's_intersects', left: { kind: 'property', name: 'geom' }, right: { kind: 'bbox', bbox: [0, 0, 1e19, 1e19] } };
    expect(await matching(huge, 'boxes', columns)).to.deep.equal([1, 2, 3, 4]);
    expect(await matching({ kind: 'comparison', op: '<', left: { kind: 'property', name: 'floors' }, right: { kind: 'number', value: 2 ** 64 } })).to.deep.equal([1, 2, 4]);
  });

  it('runs LIKE as a linear-time RE2 full match, the pattern bound as one value', () => {
    const f = toDuckDbSql(parseCql2Text("CASEI(name) LIKE CASEI('A.b%\\%_')"), COLUMNS);
    expect(f.sql).to.equal('regexp_full_match(lower("name"), lower(CAST($1 AS VARCHAR)))');
    expect(f.params).to.deep.equal(['(?s)A\\x2eb.*\\x25.']);
  });

  it('works on a DuckDB GEOMETRY column too', async () => {
    const columns: Cql2Columns = { id: { type: 'integer' }, geom: { type: 'geometry', encoding: 'geometry' } };
    expect(await matching('S_CONTAINS(geom, POINT(3 3))', 'g', columns)).to.deep.equal([3, 4]);
  });

  it('prefilters spatial predicates by envelope and checks the rest per row', () => {
    const f = toDuckDbSql(parseCql2Text("name = 'a' AND S_WITHIN(geom, POINT(1 2))"), COLUMNS);
    expect(f.sql).to.equal('(("name" = CAST($1 AS VARCHAR)) AND ST_Intersects_Extent(ST_GeomFromWKB("geom"), CAST($2 AS GEOMETRY)))');
    expect(f.params).to.deep.equal(['a', 'POINT (1 2)']);
    expect(f.residual!.columns).to.deep.equal([{ alias: '__cql2_0', sql: '"geom"' }]);
  });

  it('references every parameter from the WHERE text, even with residual columns', () => {
    const f = toDuckDbSql(parseCql2Text("floors > 5 OR (name = 'x' AND NOT S_INTERSECTS(geom, POINT(3 3)))"), COLUMNS);
    const inWhere = new Set(f.sql.match(/\$\d+/g));
    expect(inWhere.size).to.equal(f.params.length);
    for (const c of f.residual!.columns) for (const ref of c.sql.match(/\$\d+/g) ?? []) expect(inWhere).to.include(ref);
  });

  describe('errors', () => {
    it('rejects an unknown property, naming the valid ones', () => {
      const err = catchError(() => toDuckDbSql(parseCql2Text('nope = 1'), { a: { type: 'string' }, b: { type: 'number' } }));
      expect(err).to.be.instanceOf(Cql2UnknownPropertyError);
      expect((err as Cql2UnknownPropertyError).property).to.equal('nope');
      expect((err as Cql2UnknownPropertyError).valid).to.deep.equal(['a', 'b']);
      expect((err as Error).message).to.equal('unknown property "nope"; valid properties are: "a", "b"');
    });

    it('does not treat inherited object keys as columns', () => {
      for (const name of ['constructor', '__proto__', 'toString']) {
        expect(() => toDuckDbSql(parseCql2Json({ op: '=', args: [{ property: name }, 1] }), COLUMNS)).to.throw(Cql2UnknownPropertyError);
      }
    });

    it('rejects functions and type mismatches', () => {
      const code = (text: string): string => (catchError(() => toDuckDbSql(parseCql2Text(text), COLUMNS)) as Cql2TranslationError).code;
      expect(code('avg(floors) < 4')).to.equal('unsupported');
      expect(code("S_INTERSECTS(name, POINT(1 2))")).to.equal('type-mismatch');
      expect(code("T_AFTER(name, DATE('2020-01-01'))")).to.equal('type-mismatch');
      expect(code("A_CONTAINS(name, ('a'))")).to.equal('type-mismatch');
      expect(code('geom = 1')).to.equal('type-mismatch');
      expect(code('S_INTERSECTS(geom, POINT(1 2)) IS NULL')).to.equal('unsupported');
    });
  });

  describe('SQL injection', () => {
    const textAttempts = [
      "name = 'x''; DROP TABLE t; --'",
      "name = 'Robert''); DROP TABLE t;--'",
      "name = 'a'' OR ''1''=''1'",
      "name LIKE '%'' OR 1=1 --'",
      "name = '/* */ OR 1=1'",
      "name IN ('x'')) OR TRUE OR ((''')",
      "name = '\\'; DELETE FROM t; --'",
      "CASEI(name) = CASEI('x''); DROP TABLE t; --')",
      "T_AFTER(built, DATE('2020-01-01''); DROP TABLE t; --'))",
    ];
    for (const text of textAttempts) {
      it(`${text} is bound or rejected, never executed`, async () => {
        try {
          expect(await matching(text)).to.deep.equal([]);
        } catch (e) {
          expect(e).to.be.instanceOf(Cql2SyntaxError);
        }
        expect(await count()).to.equal(5);
      });
    }

    const badNames = [
      'name" = \'\' OR 1=1 --',
      'name"; DROP TABLE t; --',
      'name/**/',
      'floors) OR (1=1',
      "name' OR '1'='1",
    ];
    for (const name of badNames) {
      it(`property ${JSON.stringify(name)} is rejected`, async () => {
        expect(() => toDuckDbSql(parseCql2Json({ op: '=', args: [{ property: name }, 'x'] }), COLUMNS)).to.throw(
          Cql2UnknownPropertyError,
        );
        expect(await count()).to.equal(5);
      });
    }

    it('rejects quote tricks in CQL2-Text identifiers', () => {
      for (const text of ['"name"" = 1; DROP TABLE t; --" = 1', '"name"; DROP TABLE t; -- = 1', 'name -- = 1\n = 1']) {
        expect(() => toDuckDbSql(parseCql2Text(text), COLUMNS)).to.throw(Error).that.satisfies(
          (e: unknown) => e instanceof Cql2SyntaxError || e instanceof Cql2UnknownPropertyError,
        );
      }
    });

    async function count(): Promise<number> {
      const r = await conn.runAndReadAll('SELECT count(*) AS n FROM t');
      return Number(r.getRowObjects()[0]!.n);
    }
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}
