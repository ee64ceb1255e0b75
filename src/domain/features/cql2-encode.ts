/**
 * Writes a CQL2 tree back out, in either encoding, so a filter can be handed to a remote
 * backend. Round trip: parsing the output gives a deep-equal tree (the parsers' normal forms).
 */
import { scalarValue, type Expr, type IntervalBound } from '../cql2/ast.js';
import { toWkt } from '../geometry/wkt.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function toCql2Json(e: Expr): Json {
  switch (e.kind) {
    case 'and':
    case 'or':
      return { op: e.kind, args: e.args.map(toCql2Json) };
    case 'not':
      return { op: 'not', args: [toCql2Json(e.arg)] };
    case 'comparison':
    case 'arithmetic':
      return { op: e.op, args: [toCql2Json(e.left), toCql2Json(e.right)] };
    case 'like':
      return { op: 'like', args: [toCql2Json(e.value), toCql2Json(e.pattern)] };
    case 'between':
      return { op: 'between', args: [toCql2Json(e.value), toCql2Json(e.low), toCql2Json(e.high)] };
    case 'in':
      return { op: 'in', args: [toCql2Json(e.value), e.list.map(toCql2Json)] };
    case 'isNull':
      return { op: 'isNull', args: [toCql2Json(e.value)] };
    case 'spatial':
    case 'temporal':
    case 'arrayPredicate':
      return { op: e.op, args: [toCql2Json(e.left), toCql2Json(e.right)] };
    case 'casei':
    case 'accenti':
      return { op: e.kind, args: [toCql2Json(e.arg)] };
    case 'function':
      return { op: e.name, args: e.args.map(toCql2Json) };
    case 'property':
      return { property: e.name };
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return scalarValue(e);
    case 'timestamp':
      return { timestamp: e.value };
    case 'date':
      return { date: e.value };
    case 'unbounded':
      return '..';
    case 'interval':
      // Interval bounds are bare strings in CQL2-JSON (`"2024-01-01"`, `".."`), or expressions.
      return { interval: [e.start, e.end].map((b) => (b.kind === 'timestamp' || b.kind === 'date' ? b.value : toCql2Json(b))) };
    case 'geometry':
      return e.geometry as unknown as Json;
    case 'bbox':
      return { bbox: e.bbox };
    case 'array':
      return e.items.map(toCql2Json);
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set(['AND', 'OR', 'NOT', 'LIKE', 'BETWEEN', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'CASEI', 'ACCENTI', 'DATE', 'TIMESTAMP', 'INTERVAL', 'BBOX', 'DIV']);
const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;
const bound = (b: IntervalBound): string => (b.kind === 'unbounded' ? "'..'" : b.kind === 'timestamp' || b.kind === 'date' ? quote(b.value) : toCql2Text(b));

/** CQL2-Text, fully parenthesised (no precedence is relied on). */
export function toCql2Text(e: Expr): string {
  switch (e.kind) {
    case 'and':
    case 'or':
      return `(${e.args.map(toCql2Text).join(` ${e.kind.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${toCql2Text(e.arg)})`;
    case 'comparison':
      return `(${toCql2Text(e.left)} ${e.op} ${toCql2Text(e.right)})`;
    case 'arithmetic':
      return `(${toCql2Text(e.left)} ${e.op === 'div' ? 'DIV' : e.op} ${toCql2Text(e.right)})`;
    case 'like':
      return `(${toCql2Text(e.value)} LIKE ${toCql2Text(e.pattern)})`;
    case 'between':
      return `(${toCql2Text(e.value)} BETWEEN ${toCql2Text(e.low)} AND ${toCql2Text(e.high)})`;
    case 'in':
      return `(${toCql2Text(e.value)} IN (${e.list.map(toCql2Text).join(', ')}))`;
    case 'isNull':
      return `(${toCql2Text(e.value)} IS NULL)`;
    case 'spatial':
    case 'temporal':
    case 'arrayPredicate':
      return `${e.op.toUpperCase()}(${toCql2Text(e.left)}, ${toCql2Text(e.right)})`;
    case 'casei':
      return `CASEI(${toCql2Text(e.arg)})`;
    case 'accenti':
      return `ACCENTI(${toCql2Text(e.arg)})`;
    case 'function':
      return `${e.name}(${e.args.map(toCql2Text).join(', ')})`;
    case 'property':
      return IDENTIFIER.test(e.name) && !RESERVED.has(e.name.toUpperCase()) ? e.name : `"${e.name.replaceAll('"', '""')}"`;
    case 'string':
      return quote(e.value);
    case 'number':
      return String(e.value);
    case 'boolean':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'timestamp':
      return `TIMESTAMP(${quote(e.value)})`;
    case 'date':
      return `DATE(${quote(e.value)})`;
    case 'unbounded':
      return "'..'";
    case 'interval':
      return `INTERVAL(${bound(e.start)}, ${bound(e.end)})`;
    case 'geometry':
      return toWkt(e.geometry);
    case 'bbox':
      return `BBOX(${e.bbox.join(', ')})`;
    case 'array':
      return `(${e.items.map(toCql2Text).join(', ')})`;
  }
}
