/**
 * Fuzz cases from the OpenAPI operations and the live seeds: a systematic sweep (every operation
 * times every parameter times every hostile value family, every header family, every method,
 * every body and content encoding) and a random part drawn by fast-check from a fixed seed.
 * Both are deterministic for a given document, seeds and seed number.
 */
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { encode, filterArb, zigzagPolygon, type Filter } from './cql2.js';
import { bodyFilter, crossBodyArb, crossMutations, joinable, scopeOf } from './cross-collection.js';
import type { FuzzRequest } from './http-client.js';
import { allowedValues, typeOf, type JsonSchema, type Operation, type Param } from './operations.js';
import type { CollectionSeed, Seeds } from './seeds.js';
import { REPO_ROOT } from './server-process.js';
import {
  ACCEPTS, AUTHORIZATIONS, BOOLEANS, BOUNDARY_NUMBERS, CONTENT_ENCODINGS, CONTENT_TYPES, HOSTS_INVALID, HOSTS_VALID, HUGE, INJECTION, MALFORMED, METHODS,
  OTHER_HEADERS, UNICODE, FORWARDED_VALID, FORWARDED_MALFORMED, raw, type Value,
} from './values.js';

export interface FuzzCase {
  id: number;
  /** Operation id (or `raw`/`unknown-route`). */
  op: string;
  /** What was varied: `param`, `header:host`, `method`, `body`, `encoding`, `path`, `raw`, `random`… */
  family: string;
  /** Parameters present in the request (for coverage). */
  params: string[];
  req: FuzzRequest;
  /** The Host header is invalid: anything but a 4xx is a finding. */
  badHost?: boolean;
  /** A forwarded header (from the trusted loopback proxy the fuzzer is) is malformed: anything but a 4xx is a finding. */
  badForwarded?: boolean;
  /** A file name that leaves its directory: any 2xx is a finding. */
  traversal?: boolean;
  /** A short label of the hostile part, for the report. */
  note: string;
}

interface Context {
  collection: string;
  /** A local file of `collection` (its source route). */
  file: string;
  grid: string;
  zone: string;
  feature: string;
  concept: string;
  order: string;
  job: string;
  /** A zone-depth the zone needs for a 200 (the grid's default resolves too many sub-zones); default depth when unset. */
  depth?: string;
}

export interface CaseOptions {
  seed: number;
  /** Cases drawn at random (in addition to the sweep). */
  random: number;
  /** `full`: the whole sweep; `slice`: a strided sample of it of about this many cases. */
  sweep: 'full' | number;
  /** Inflated size of the gzip bombs. */
  bombBytes: number;
  /** Each parameter gets every thin-th value of the generic string families (rotating, so every value is sent). */
  thin: number;
  /** Over the server's body bound. */
  hugeBodyBytes: number;
  /** Requests with a generated CQL2 filter (items, zone data, zone lists, cross-collection selections). */
  filters?: number;
  /** Cross-collection POSTs with a valid body, as is or with one or two mistakes. */
  cross?: number;
}

const enc = (v: Value) => (typeof v === 'string' ? encodeURIComponent(v) : v.raw);
const show = (v: Value) => {
  const s = typeof v === 'string' ? JSON.stringify(v) : `raw:${v.raw}`;
  return s.length > 80 ? `${s.slice(0, 77)}… (${s.length} chars)` : s;
};

/** The context fields a path parameter can take. */
type PathKey = Exclude<keyof Context, 'depth'>;

/** Which context field a path parameter takes, by name. */
function contextKey(name: string): PathKey | undefined {
  const n = name.toLowerCase();
  if (/^(name|file|path|filename)$/.test(n)) return 'file';
  if (n.includes('collection')) return 'collection';
  if (n.includes('dggrs')) return 'grid';
  if (n.includes('zone')) return 'zone';
  if (n.includes('feature')) return 'feature';
  if (n.includes('concept')) return 'concept';
  if (n.includes('job')) return 'job';
  if (n.includes('order')) return 'order';
  return undefined;
}

interface Contexts {
  scoped: Context[];
  any: Context[];
  files: Context[];
  /** Zones inside every zone-data collection's extent (cross-collection requests). */
  cross: Context[];
}

function contexts(seeds: Seeds): Contexts {
  const items = seeds.collections.find((c) => c.hasItems)?.id ?? seeds.collections[0]?.id ?? 'none';
  const extra = { file: 'x', feature: '0', concept: seeds.concepts[0] ?? '1', order: seeds.orders[0]?.id ?? '1', job: seeds.orders[0]?.jobs[0] ?? '1' };
  const scoped: Context[] = [];
  for (const c of seeds.collections) for (const g of c.grids) for (const z of c.zones[g] ?? []) scoped.push({ collection: c.id, grid: g, zone: z, ...extra });
  const bare: Context[] = [];
  for (const g of seeds.grids) for (const z of g.zones) bare.push({ collection: items, grid: g.id, zone: z, ...extra });
  const files = seeds.collections.flatMap((c) => c.sourceFiles.map((file) => ({ ...(bare[0] ?? scoped[0]!), collection: c.id, file })));
  const cross = seeds.crossZones.flatMap((g) => g.zones.map((zone) => ({ collection: items, grid: g.grid, zone, depth: g.depth, ...extra })));
  return { scoped: scoped.length ? scoped : bare, any: [...bare, ...scoped], files, cross };
}

/** The schema of a cross-collection body: `collections`, an array of selections with `id` and `fields`. */
function isCrossBody(schema: JsonSchema | undefined): boolean {
  const items = ((schema?.properties as Record<string, JsonSchema> | undefined)?.collections?.items ?? {}) as JsonSchema;
  const props = (items.properties ?? {}) as Record<string, unknown>;
  return 'id' in props && 'fields' in props;
}

function contextsFor(op: Operation, all: Contexts): Context[] {
  const inPath = (key: PathKey) => op.params.some((p) => p.in === 'path' && contextKey(p.name) === key);
  if (inPath('file') && all.files.length) return all.files;
  if (isCrossBody(op.body) && all.cross.length) return all.cross;
  return inPath('collection') && inPath('grid') ? all.scoped : all.any;
}

/** Parameters a route needs in practice, even where the document calls them optional ("(required)"). */
const needed = (p: Param) => p.required || /\(required\)/i.test(String(p.schema.description ?? ''));

/** Valid values of a query parameter, by name first (the API's own vocabulary), else by schema. */
function validValues(p: Param, ctx: Context, seeds: Seeds): string[] {
  const fields = seeds.collections.find((c) => c.id === ctx.collection)?.fields ?? [];
  const allowed = allowedValues(p.schema);
  if (allowed.length) return allowed;
  switch (p.name) {
    case 'bbox': return ['5,44,16,48', '10,45,11,46', '-10,40,10,50', '0,0,1,1', '170,-10,-170,10'];
    case 'zone-level': return ['0', '1', '2', '3'];
    case 'parent-zone': return [ctx.zone];
    case 'limit': return ['1', '5', '10', '100'];
    case 'offset': return ['0', '1', '7'];
    case 'zone-depth': return ['0', '1', '2', '1-2', '0,1'];
    case 'datetime': return ['2024-01-15T00:00:00Z', '2024-01-01T00:00:00Z/2024-01-31T00:00:00Z', '../2024-06-01T00:00:00Z', '2024-06-01T00:00:00Z/..'];
    case 'properties':
    case 'exclude-properties': return fields.length ? [fields[0]!, fields.slice(0, 2).join(',')] : ['x'];
    case 'filter': return fields.length ? [`${fields[0]} IS NOT NULL`, `NOT (${fields[0]} IS NULL)`] : ['1=1'];
    // Only the local upstream: a public URL would make results depend on the machine's network.
    case 'cog-url': return seeds.upstream ? [`${seeds.upstream}/elevation.tif`] : ['http://example.invalid/cog.tif'];
    case 'cog-stat': return ['mean', 'mean,max', 'count,valid,min,max,mean,median,stdDev'];
    case 'cog-band': return ['1', '1,1'];
    case 'cog-no-data-value': return ['-9999', '0'];
    case 'cog-sampling-factor': return ['1', '8', '2.5'];
    case 'intersection_percent':
    case 'cloud_cover_percent': return ['0', '50', '100'];
  }
  switch (typeOf(p.schema)) {
    case 'integer': return ['0', '1', '10'];
    case 'number': return ['0', '1.5'];
    case 'boolean': return ['true', 'false'];
  }
  return p.schema.example !== undefined ? [String(p.schema.example)] : ['x'];
}

/** The string families every parameter gets; `thin` keeps every thin-th, rotating with `turn` so all are sent. */
function genericValues(turn: number, thin: number, withEmpty = true): Value[] {
  const all = [...MALFORMED.filter((v) => withEmpty || v !== ''), ...UNICODE, ...INJECTION, ...HUGE];
  return all.filter((_, k) => (k + turn) % thin === 0);
}

/** Hostile values for a parameter: its own and its type's boundaries, then the string families. */
function hostileValues(p: Param, seeds: Seeds, turn: number, thin: number): Value[] {
  const up = seeds.upstream ?? 'http://example.invalid';
  const specific: Record<string, Value[]> = {
    bbox: ['0,0,25,25', '-180,-90,180,90', '180,-90,-180,90', '0,0,0,0', '1,2,3', '1,2,3,4,5', 'a,b,c,d', 'NaN,NaN,NaN,NaN', '1e308,1e308,1e308,1e308', '-181,-91,181,91', '10,10,0,0', ' 1 , 2 , 3 , 4 ', '0,0,25,25,', ',,,', '-0,-0,-0,-0', '5e-324,5e-324,1,1', '-180,-90,180,90,0,0'],
    datetime: ['..', '../..', '/', '2024-13-01', '2024-02-30T00:00:00Z', '2024-01-01T00:00:00Z/2023-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00Z', '99999-01-01', 'now', '2024-01-01T00:00:00+25:00', '2024-01-01T25:61:61Z', '2024-01-01/..', '2024', '1704067200', '2024-01-01T00:00:00Z/2024-01-02T00:00:00Z/2024-01-03T00:00:00Z'],
    'zone-depth': ['0-100', '5-1', '1,2,3,4,5,6,7,8', '1--2', '1-', '-1-', '99999999999', '1-3,2', '0-0', '1-5', '0,0,0,0,0,0,0,0,0,0', '3-3,3-3', ' 1 - 2 '],
    'zone-level': ['8', '9', '10', '12', '15', '16', '20', '24', '25', '30', '32', '64'],
    limit: ['0', '10000', '10001', '1000000', '1001'],
    offset: ['999999', '1000000', '99999999999999'],
    'parent-zone': ['F0-711-F', 'Z9-FFFF-Z', '8f2830828052d25', '8f2830828052d2', '0', 'A0-0-A', 'B0-0-B'],
    'cog-url': [
      'http://127.0.0.1/', 'http://localhost:1/x.tif', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://[64:ff9b:1::1]/', 'http://[2001::1]/', 'http://[::ffff:0:7f00:1]/',
      'http://[::ffff:127.0.0.1]/', 'http://0x7f000001/', 'http://2130706433/', 'http://0177.0.0.1/', 'http://127.1/', 'http://[fe80::1%25eth0]/', 'http://[fc00::1]/', 'http://10.0.0.1/',
      `${up}/missing.tif`, `${up}/big.tif`, `${up}/elevation.tif#x`, `${up}/elevation.tif?a=%00`, `${up.replace('http:', 'https:')}/elevation.tif`, `${up}:99999/x.tif`,
      'file:///etc/passwd', `file://${REPO_ROOT}/data/demo/rasters/elevation.tif`, 'gopher://127.0.0.1:70/', 'ftp://example.com/x.tif', 'javascript:alert(1)', 'http://user:pass@example.com/x.tif', 'http://example.invalid/x.tif', 'http://', 'https://[', 'x.tif', '//example.com/x.tif',
    ],
    'cog-stat': ['', ',', 'mode', 'MEAN', 'mean,mean,mean', 'count,'.repeat(500)],
    'cog-band': ['0', '-1', '2', '65536', '1,2,3,4,5,6,7,8,9,10', '1.5', ','],
  };
  const byType: Record<string, Value[]> = { integer: BOUNDARY_NUMBERS, number: BOUNDARY_NUMBERS, boolean: BOOLEANS };
  return [...(specific[p.name] ?? []), ...(byType[typeOf(p.schema)] ?? []), ...genericValues(turn, thin)];
}

function hostilePathValues(p: Param, turn: number, thin: number): Value[] {
  const specific: Record<string, Value[]> = {
    zone: ['F0-711-F', 'F0-711-G', 'Z0-0-A', 'A0-0-A', 'P0-0-A', 'Q9-FFFFFFFFFFFF-A', '8f2830828052d25', '8f2830828052d2', '8f2830828052d2g', 'ffffffffffffffff', '0', 'f0-711-f', ' F0-711-F', 'F0-711-F ', 'F0--711-F', 'F0-0x711-F', '8F2830828052D25', '85283473fffffff', '8001fffffffffff', '7fffffffffffffff'],
    feature: BOUNDARY_NUMBERS,
    order: BOUNDARY_NUMBERS,
    job: BOUNDARY_NUMBERS,
    concept: BOUNDARY_NUMBERS,
    grid: ['IVEA7H', 'ivea7h', 'ISEA7H', 'H3', 'h3', 'ISEA3H', 'rHEALPix'],
    collection: ['demo-stations', 'DEMO-STATIONS', 'demo-stations.', 'demo-stations%', 'demo', 'a'.repeat(128), 'a'.repeat(129)],
    // File names (a collection's source files): every way out of the directory.
    file: [
      'elevation.tif', '../../../../etc/passwd', raw('..%2F..%2F..%2F..%2Fetc%2Fpasswd'), raw('..%252F..%252Fetc%252Fpasswd'), raw('%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd'),
      raw('..%5C..%5C..%5Cetc%5Cpasswd'), '/etc/passwd', raw('%2Fetc%2Fpasswd'), '../../../config/default.json', '../../../package.json', '../../../.git/config',
      '../lake/demo-stations/data/week=01/observations.parquet', '....//....//etc/passwd', 'elevation.tif\u0000.png', raw('elevation.tif%00.png'), '.', '..', '~', '~root',
      'elevation.tif/', 'elevation.tif/..', './elevation.tif', 'ELEVATION.TIF', 'elevation.tif::$DATA', '/proc/self/environ', '../../../../proc/self/environ', 'a'.repeat(1025),
    ],
  };
  return [...(specific[contextKey(p.name) ?? ''] ?? []), ...genericValues(turn, thin, false)];
}

interface Draft {
  op: Operation;
  ctx: Context;
  method?: string;
  path?: Record<string, Value>;
  query: [string, Value][];
  headers: [string, string][];
  body?: Buffer;
  /** Path suffix/prefix tweak (`/`, `//`, `/..`). */
  pathTweak?: (p: string) => string;
  family: string;
  note: string;
  badHost?: boolean;
  badForwarded?: boolean;
  traversal?: boolean;
}

function render(d: Draft, id: number, seeds: Seeds): FuzzCase {
  let path = d.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const key = contextKey(name);
    const example = d.op.params.find((p) => p.name === name)?.schema.example;
    const v = d.path?.[name] ?? (key ? d.ctx[key] : example !== undefined ? String(example) : 'x');
    return enc(v);
  });
  if (d.pathTweak) path = d.pathTweak(path);
  const qs = d.query.map(([k, v]) => `${encodeURIComponent(k)}=${enc(v)}`).join('&');
  const headers: [string, string][] = [];
  if (d.op.secured && !d.headers.some(([k]) => k.toLowerCase() === 'authorization')) headers.push(['Authorization', `Bearer ${seeds.token}`]);
  const method = d.method ?? d.op.method;
  if (d.body && !d.headers.some(([k]) => k.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
  headers.push(...d.headers);
  const params = [...d.op.params.filter((p) => p.in === 'path').map((p) => p.name), ...d.query.map(([k]) => k)];
  return { id, op: d.op.id, family: d.family, params, note: d.note, badHost: d.badHost, badForwarded: d.badForwarded, traversal: d.traversal, req: { method, path: qs ? `${path}?${qs}` : path, headers, body: d.body } };
}

/** A valid request body for a schema, with the seeds' names where the property names call for them. */
function bodyArb(schema: JsonSchema, ctx: Context, seeds: Seeds, name = ''): fc.Arbitrary<unknown> {
  if (isCrossBody(schema)) return crossBodyArb(seeds).map((x) => x.body);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && schema.type === undefined) return fc.oneof(...branches.map((b) => bodyArb(b, ctx, seeds, name)));
  const zones = seeds.collections.find((c) => c.id === ctx.collection)?.zones[ctx.grid] ?? [ctx.zone];
  switch (typeOf(schema)) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      // Properties documented as alternatives ("give this or `collection`"): keep one of each pair.
      const exclusive = Object.entries(props).flatMap(([k, s]) => {
        const m = /give this or `([\w-]+)`/i.exec(String(s.description ?? ''));
        return m && m[1]! in props ? [[k, m[1]!] as const] : [];
      });
      // Both alternatives are drawn, then one dropped: exactly one is sent. Zones come with their grid.
      const base = fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, bodyArb(s, ctx, seeds, k)])), {
        requiredKeys: [...required, ...exclusive.flat(), ...('zones' in props && 'dggrs' in props ? ['dggrs'] : [])],
      });
      return base.map((v) => {
        const o = { ...(v as Record<string, unknown>) };
        for (const [k, other] of exclusive) if (k in o && other in o) delete o[JSON.stringify(o).length % 2 ? k : other];
        return o;
      });
    }
    case 'array': {
      const item = name === 'zones' ? fc.constantFrom(...zones) : bodyArb((schema.items ?? {}) as JsonSchema, ctx, seeds);
      return fc.array(item, { minLength: Number(schema.minItems ?? 0), maxLength: Math.min(Number(schema.maxItems ?? 5), 5) });
    }
    case 'integer':
      if (name === 'concept' && seeds.concepts.length) return fc.constantFrom(...seeds.concepts.map(Number));
      return fc.integer({ min: Number(schema.minimum ?? 0), max: Math.min(Number(schema.maximum ?? 3), 3) });
    case 'number': return fc.double({ min: 0, max: 100, noNaN: true });
    case 'boolean': return fc.boolean();
  }
  if (name === 'collection') return fc.constant(ctx.collection);
  if (name === 'dggrs') return fc.constant(ctx.grid);
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern)).filter((x) => x.length <= Number(schema.maxLength ?? 64));
  return fc.string({ minLength: Number(schema.minLength ?? 0), maxLength: Math.min(Number(schema.maxLength ?? 20), 20) });
}

/** Bodies that break the schema or JSON itself, as bytes. */
function hostileBodies(valid: unknown, hugeBodyBytes: number): { note: string; body: Buffer; contentType?: string }[] {
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const obj = (valid && typeof valid === 'object' ? valid : {}) as Record<string, unknown>;
  const out: { note: string; body: Buffer; contentType?: string }[] = [
    { note: 'valid', body: json(valid) },
    { note: 'empty', body: Buffer.alloc(0) },
    { note: 'null', body: Buffer.from('null') },
    { note: 'array', body: Buffer.from('[]') },
    { note: 'string', body: Buffer.from('"x"') },
    { note: 'number', body: Buffer.from('1e999') },
    { note: 'not json', body: Buffer.from('collection=demo&zones=1') },
    { note: 'truncated json', body: json(valid).subarray(0, Math.max(1, json(valid).length - 3)) },
    { note: 'trailing comma', body: Buffer.from(JSON.stringify(obj).replace(/}$/, ',}')) },
    { note: 'duplicate keys', body: Buffer.from(JSON.stringify(obj).replace(/^{/, '{"collection":1,')) },
    { note: 'BOM', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json(valid)]) },
    { note: 'UTF-16', body: Buffer.from(JSON.stringify(valid), 'utf16le') },
    { note: 'invalid UTF-8', body: Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc0, 0xaf, 0xff, 0xfe]), Buffer.from('","collection":"x","zones":["a"]}')]) },
    { note: '__proto__', body: Buffer.from(JSON.stringify(obj).replace(/^{/, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},')) },
    { note: 'extra property', body: json({ ...obj, extra: 1 }) },
    { note: 'deep nesting', body: Buffer.from(`{"title":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) },
    { note: 'wide object', body: Buffer.from(`{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`) },
    { note: 'huge string', body: json({ ...obj, title: 'a'.repeat(500_000) }) },
    { note: 'over the body bound', body: json({ ...obj, title: 'a'.repeat(hugeBodyBytes) }) },
    { note: 'many zones', body: json({ ...obj, zones: Array.from({ length: 1001 }, (_, i) => `z${i}`) }) },
    { note: '100k zones', body: json({ ...obj, zones: Array.from({ length: 100_000 }, () => 'F0-711-F') }) },
    { note: 'empty zones', body: json({ ...obj, zones: [] }) },
    { note: 'numbers as zones', body: json({ ...obj, zones: [1, 2, 3] }) },
    { note: 'nested zones', body: json({ ...obj, zones: [[['F0-711-F']]] }) },
    { note: 'null fields', body: json(Object.fromEntries(Object.keys(obj).map((k) => [k, null]))) },
    { note: 'zone_depth huge', body: json({ ...obj, zone_depth: 1e308 }) },
    { note: 'zone_depth negative', body: json({ ...obj, zone_depth: -1 }) },
    { note: 'zone_depth float', body: json({ ...obj, zone_depth: 1.5 }) },
    { note: 'zone_depth string', body: json({ ...obj, zone_depth: '2' }) },
    { note: 'unknown collection', body: json({ ...obj, collection: "'; DROP TABLE orders;--" }) },
    { note: 'unicode strings', body: json({ ...obj, title: '🙂\u202e\u0000日本', collection: 'é' }) },
    { note: 'form body', body: Buffer.from('a=1&b=2'), contentType: 'application/x-www-form-urlencoded' },
    { note: 'multipart body', body: Buffer.from('------x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n------x--\r\n'), contentType: 'multipart/form-data; boundary=----x' },
    { note: 'text body', body: Buffer.from('hello'), contentType: 'text/plain' },
  ];
  return out;
}

/** Content-Encoding variants of a JSON body, good and broken, and the bombs. */
function encodedBodies(body: Buffer, bombBytes: number): { note: string; body: Buffer; encoding: string }[] {
  const gz = gzipSync(body);
  return [
    { note: 'gzip', body: gz, encoding: 'gzip' },
    { note: 'deflate', body: deflateSync(body), encoding: 'deflate' },
    { note: 'br', body: brotliCompressSync(body), encoding: 'br' },
    { note: 'gzip twice', body: gzipSync(gz), encoding: 'gzip, gzip' },
    { note: 'not gzip', body, encoding: 'gzip' },
    { note: 'not deflate', body, encoding: 'deflate' },
    { note: 'not br', body, encoding: 'br' },
    { note: 'truncated gzip', body: gz.subarray(0, Math.max(10, gz.length >> 1)), encoding: 'gzip' },
    { note: 'gzip header then junk', body: Buffer.concat([gz.subarray(0, 10), Buffer.from('junkjunkjunk')]), encoding: 'gzip' },
    { note: 'gzip bad crc', body: Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([0, 0, 0, 0]), gz.subarray(gz.length - 4)]), encoding: 'gzip' },
    { note: 'gzip with trailing garbage', body: Buffer.concat([gz, Buffer.from('garbage')]), encoding: 'gzip' },
    { note: 'gzip empty', body: Buffer.alloc(0), encoding: 'gzip' },
    { note: 'unknown encoding', body, encoding: 'zstd' },
    { note: 'gzip bomb', body: bomb(bombBytes, 'zeros'), encoding: 'gzip' },
    { note: 'deflate bomb', body: deflateSync(Buffer.alloc(Math.min(bombBytes, 64 << 20))), encoding: 'deflate' },
    { note: 'json gzip bomb', body: bomb(bombBytes, 'json'), encoding: 'gzip' },
  ];
}

const bombs = new Map<string, Buffer>();
/** Compressed once per run: `zeros` inflates to NUL bytes, `json` to one valid, huge JSON string. */
function bomb(bytes: number, kind: 'zeros' | 'json'): Buffer {
  const key = `${kind}:${bytes}`;
  let b = bombs.get(key);
  if (!b) {
    const plain = Buffer.alloc(bytes, kind === 'zeros' ? 0 : 0x61);
    if (kind === 'json') {
      plain.write('{"title":"', 0);
      plain.write('"}', bytes - 2);
    }
    b = gzipSync(plain, { level: 9 });
    bombs.set(key, b);
  }
  return b;
}

/** Raw request bytes node:http would never write. */
function rawRequests(base: string): { note: string; bytes: string; badHost?: boolean }[] {
  return [
    { note: 'no Host on HTTP/1.1', bytes: 'GET /collections HTTP/1.1\r\nConnection: close\r\n\r\n' },
    { note: 'two Host headers', bytes: 'GET /collections HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n', badHost: true },
    { note: 'HTTP/1.0 without Host', bytes: 'GET /collections HTTP/1.0\r\n\r\n' },
    { note: 'HTTP/0.9', bytes: 'GET /collections\r\n\r\n' },
    { note: 'HTTP/2.0 line', bytes: `GET /collections HTTP/2.0\r\nHost: ${base}\r\n\r\n` },
    { note: 'HTTP/1.2', bytes: `GET /collections HTTP/1.2\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'space in path', bytes: `GET /coll ections HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'absolute-form target', bytes: `GET http://evil.com/admin/status HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'absolute-form target, own host', bytes: `GET http://${base}/collections HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'asterisk target', bytes: `OPTIONS * HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'authority target', bytes: `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'path without slash', bytes: `GET collections HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'control char in path', bytes: `GET /collections\x01 HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'NUL in header', bytes: `GET /collections HTTP/1.1\r\nHost: ${base}\r\nX-A: a\x00b\r\nConnection: close\r\n\r\n` },
    { note: 'bare LF line ends', bytes: `GET /collections HTTP/1.1\nHost: ${base}\nConnection: close\n\n` },
    { note: 'header without colon', bytes: `GET /collections HTTP/1.1\r\nHost: ${base}\r\nNoColon\r\nConnection: close\r\n\r\n` },
    { note: 'obs-fold header', bytes: `GET /collections HTTP/1.1\r\nHost: ${base}\r\nX-A: a\r\n b\r\nConnection: close\r\n\r\n` },
    { note: 'space before colon', bytes: `GET /collections HTTP/1.1\r\nHost : ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'CL and TE', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n` },
    { note: 'two Content-Length', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}` },
    { note: 'Content-Length not a number', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}` },
    { note: 'negative Content-Length', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n{}` },
    { note: 'bad chunk size', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n` },
    { note: 'chunked gzip junk', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n4\r\njunk\r\n0\r\n\r\n` },
    { note: 'unknown transfer-encoding', bytes: `POST /orders HTTP/1.1\r\nHost: ${base}\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n{}` },
    { note: 'URL over 16 KiB', bytes: `GET /collections?x=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'URL over 64 KiB', bytes: `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'headers over 16 KiB', bytes: `GET /collections HTTP/1.1\r\nHost: ${base}\r\nX-Big: ${'a'.repeat(17_000)}\r\nConnection: close\r\n\r\n` },
    { note: '2000 headers', bytes: `GET /collections HTTP/1.1\r\nHost: ${base}\r\n${Array.from({ length: 2000 }, (_, i) => `X-${i}: 1`).join('\r\n')}\r\nConnection: close\r\n\r\n` },
    { note: 'UTF-8 in path', bytes: `GET /collections/d\u00e9mo HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'UTF-8 in Host', bytes: 'GET /collections HTTP/1.1\r\nHost: é.example\r\nConnection: close\r\n\r\n', badHost: true },
    { note: 'tab in Host', bytes: 'GET /collections HTTP/1.1\r\nHost: a\tb\r\nConnection: close\r\n\r\n', badHost: true },
    { note: 'unknown method', bytes: `FOO /collections HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
    { note: 'lowercase method', bytes: `get /collections HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n` },
  ];
}

/** Every operation × every parameter × every hostile family, headers, methods, bodies, encodings, raw. */
function sweep(ops: Operation[], seeds: Seeds, opts: CaseOptions, hostPort: string): Draft[] {
  if (opts.sweep === 0) return [];
  const all = contexts(seeds);
  const drafts: Draft[] = [];
  const baseQuery = (op: Operation, ctx: Context): [string, Value][] =>
    op.params.filter((p) => p.in === 'query' && needed(p)).map((p) => [p.name, validValues(p, ctx, seeds)[0]!]);
  const rng = fc.sample(fc.nat(), { seed: opts.seed, numRuns: 1 })[0]!;
  let turns = rng;
  for (const [i, op] of ops.entries()) {
    const ctxs = contextsFor(op, all);
    const ctx = ctxs[(rng + i) % ctxs.length] ?? all.any[0]!;
    const q = baseQuery(op, ctx);
    const valid = op.body ? fc.sample(bodyArb(op.body, ctx, seeds), { seed: opts.seed + i, numRuns: 1 })[0] : undefined;
    const validBody = op.body ? Buffer.from(JSON.stringify(valid ?? {})) : undefined;
    const d = (x: Partial<Draft> & { family: string; note: string }): Draft => ({ op, ctx, query: q, headers: [], body: validBody, ...x });

    drafts.push(d({ family: 'valid', note: 'valid request' }));
    for (const p of op.params) {
      const turn = turns++;
      if (p.in === 'query') {
        for (const v of validValues(p, ctx, seeds)) drafts.push(d({ family: 'param', note: `${p.name}=${show(v)} (valid)`, query: [...q.filter(([k]) => k !== p.name), [p.name, v]] }));
        for (const v of hostileValues(p, seeds, turn, opts.thin)) drafts.push(d({ family: 'param', note: `${p.name}=${show(v)}`, query: [...q.filter(([k]) => k !== p.name), [p.name, v]] }));
        drafts.push(d({ family: 'param', note: `${p.name} twice`, query: [...q, [p.name, validValues(p, ctx, seeds)[0]!], [p.name, 'x']] }));
        drafts.push(d({ family: 'param', note: `${p.name}[]`, query: [...q, [`${p.name}[]`, 'x']] }));
        drafts.push(d({ family: 'param', note: `${p.name}[a]=`, query: [...q, [`${p.name}[a]`, 'x']] }));
      } else if (p.in === 'path') {
        const fileLike = contextKey(p.name) === 'file';
        for (const v of hostilePathValues(p, turn, opts.thin)) {
          // A bare `.` or `..` segment is resolved by URL rules (to the collection itself), not a file name.
          const text = typeof v === 'string' ? v : v.raw;
          const traversal = fileLike && text !== '.' && text !== '..' && /\.\.|^\/|^~|%2f|%5c|\\|\/proc\//i.test(text);
          drafts.push(d({ family: 'param', note: `${p.name}=${show(v)}`, path: { [p.name]: v }, traversal }));
        }
      } else if (p.in === 'header') {
        for (const v of [...MALFORMED, ...UNICODE, ...INJECTION].filter((x): x is string => typeof x === 'string')) drafts.push(d({ family: 'param', note: `${p.name}: ${show(v)}`, headers: [[p.name, v]] }));
      }
    }
    for (const extra of ['__proto__', 'constructor', 'x', 'F', 'f ', 'LIMIT', 'bbox-crs', 'crs', 'sortby', 'filter-crs']) {
      drafts.push(d({ family: 'param', note: `unknown parameter ${extra}`, query: [...q, [extra, '1']] }));
    }
    drafts.push(d({ family: 'param', note: '300 parameters', query: [...q, ...Array.from({ length: 300 }, (_, k) => [`p${k}`, '1'] as [string, Value])] }));

    for (const h of HOSTS_VALID) drafts.push(d({ family: 'header:host', note: `Host: ${h}`, headers: [['Host', h]] }));
    for (const h of HOSTS_INVALID) drafts.push(d({ family: 'header:host', note: `Host: ${show(h)}`, headers: [['Host', h]], badHost: true }));
    drafts.push(d({ family: 'header:host', note: 'Host empty', headers: [['Host', '']] }));
    drafts.push(d({ family: 'header:host', note: 'two Host headers', headers: [['Host', hostPort], ['Host', 'evil.com']], badHost: true }));
    for (const a of ACCEPTS) drafts.push(d({ family: 'header:accept', note: `Accept: ${show(a)}`, headers: [['Accept', a]] }));
    for (const [k, v] of OTHER_HEADERS) drafts.push(d({ family: 'header:other', note: `${k}: ${show(v)}`, headers: [[k, v]] }));
    for (const [k, v] of FORWARDED_VALID) drafts.push(d({ family: 'header:forwarded', note: `${k}: ${show(v)}`, headers: [[k, v]] }));
    for (const [k, v] of FORWARDED_MALFORMED) drafts.push(d({ family: 'header:forwarded', note: `${k}: ${show(v)}`, headers: [[k, v]], badForwarded: true }));
    if (op.secured || op.id.startsWith('admin')) {
      for (const a of AUTHORIZATIONS(seeds.token)) drafts.push(d({ family: 'header:authorization', note: `Authorization: ${show(a)}`, headers: [['Authorization', a]] }));
      drafts.push(d({ family: 'header:authorization', note: 'two Authorization headers', headers: [['Authorization', 'Bearer wrong'], ['Authorization', `Bearer ${seeds.token}`]] }));
    }
    for (const m of METHODS) drafts.push(d({ family: 'method', note: `method ${m}`, method: m }));
    for (const [note, tweak] of [
      ['trailing slash', (p: string) => `${p}/`], ['double slash', (p: string) => p.replace('/', '//')], ['dot segment', (p: string) => `${p}/.`],
      ['dot-dot segment', (p: string) => `${p}/..`], ['encoded slash', (p: string) => p.replace(/\/([^/]*)$/, '%2F$1')], ['uppercase', (p: string) => p.toUpperCase()],
      ['semicolon params', (p: string) => `${p};jsessionid=1`], ['fragment', (p: string) => `${p}#x`], ['backslash', (p: string) => p.replace(/\//g, '\\')],
      ['long path', (p: string) => `${p}/${'a'.repeat(9000)}`], ['encoded dot-dot', (p: string) => `${p}/%2e%2e/%2e%2e/admin/status`],
    ] as [string, (p: string) => string][]) {
      drafts.push(d({ family: 'path', note, pathTweak: tweak }));
    }

    // Bodies: on routes that take one, and sent uninvited to a few that do not.
    const bodyTarget = op.body !== undefined;
    if (bodyTarget) {
      for (const b of hostileBodies(valid, opts.hugeBodyBytes)) {
        drafts.push(d({ family: 'body', note: `body ${b.note}`, body: b.body, headers: b.contentType ? [['Content-Type', b.contentType]] : [] }));
      }
      for (const ct of CONTENT_TYPES) drafts.push(d({ family: 'header:content-type', note: `Content-Type: ${show(ct)}`, headers: [['Content-Type', ct]] }));
      drafts.push(d({ family: 'body', note: 'no body, no Content-Type', body: undefined }));
      for (const e of encodedBodies(validBody!, opts.bombBytes)) {
        drafts.push(d({ family: 'encoding', note: `Content-Encoding ${e.encoding}: ${e.note}`, body: e.body, headers: [['Content-Encoding', e.encoding]] }));
      }
      for (const ce of CONTENT_ENCODINGS) drafts.push(d({ family: 'encoding', note: `Content-Encoding: ${show(ce)} on plain JSON`, headers: [['Content-Encoding', ce]] }));
    } else if (op.method === 'GET' && i % 4 === 0) {
      drafts.push(d({ family: 'body', note: 'GET with a JSON body', body: Buffer.from('{"a":1}'), headers: [['Content-Type', 'application/json']] }));
      drafts.push(d({ family: 'encoding', note: 'GET with a bad gzip body', body: Buffer.from('not gzip'), headers: [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip']] }));
    }
  }
  if (opts.sweep !== 'full') {
    const keep = opts.sweep;
    const stride = Math.max(1, Math.floor(drafts.length / keep));
    // Host, encoding and raw cases carry requests that once crashed the service: keep one of each on every run.
    const crashers = drafts.filter((x) => x.badHost || (x.family === 'encoding' && /bomb|not gzip|truncated/.test(x.note)));
    const picked = new Set([...drafts.filter((_, k) => (k + (opts.seed % stride)) % stride === 0), ...crashers.filter((_, k) => k % 7 === 0)]);
    return [...picked];
  }
  return drafts;
}

/** One random case: an operation, valid parameters, then one to three hostile changes. */
function randomArb(ops: Operation[], seeds: Seeds, opts: CaseOptions, hostPort: string): fc.Arbitrary<Draft> {
  const all = contexts(seeds);
  const anyString = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary-ascii', maxLength: 200 }),
    fc.integer().map(String),
    fc.double().map(String),
    fc.bigInt().map(String),
    fc.constantFrom(...MALFORMED, ...UNICODE, ...INJECTION),
  ) as fc.Arbitrary<Value>;
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .record({
        ctx: fc.constantFrom(...contextsFor(op, all)),
        queryPick: fc.subarray(op.params.filter((p) => p.in === 'query' && !needed(p))),
        choice: fc.nat(),
        mutations: fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('param' as const), param: fc.constantFrom(...(op.params.length ? op.params : [{ name: 'x', in: 'query', required: false, schema: {} } as Param])), value: fc.oneof(anyString, fc.constantFrom(...BOUNDARY_NUMBERS)) }),
            fc.record({ kind: fc.constant('header' as const), header: fc.oneof<fc.Arbitrary<[string, string, boolean]>[]>(
              fc.constantFrom(...HOSTS_INVALID).map((h): [string, string, boolean] => ['Host', h, true]),
              fc.constantFrom(...HOSTS_VALID).map((h): [string, string, boolean] => ['Host', h, false]),
              fc.constantFrom(...ACCEPTS).map((h): [string, string, boolean] => ['Accept', h, false]),
              fc.constantFrom(...CONTENT_TYPES).map((h): [string, string, boolean] => ['Content-Type', h, false]),
              fc.constantFrom(...CONTENT_ENCODINGS).map((h): [string, string, boolean] => ['Content-Encoding', h, false]),
              fc.constantFrom(...AUTHORIZATIONS(seeds.token)).map((h): [string, string, boolean] => ['Authorization', h, false]),
              fc.constantFrom(...OTHER_HEADERS).map(([k, v]): [string, string, boolean] => [k, v, false]),
              fc.constantFrom(...FORWARDED_VALID, ...FORWARDED_MALFORMED).map(([k, v]): [string, string, boolean] => [k, v, false]),
              fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), fc.string({ unit: 'binary-ascii', maxLength: 100 })).map(([k, v]): [string, string, boolean] => [k, v, false]),
            ) }),
            fc.record({ kind: fc.constant('method' as const), method: fc.constantFrom(...METHODS) }),
            fc.record({ kind: fc.constant('body' as const), body: fc.oneof(fc.json({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.string({ unit: 'binary', maxLength: 200 })) }),
            fc.record({ kind: fc.constant('extra' as const), name: anyString, value: anyString }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
      })
      .chain((r) =>
        (op.body ? bodyArb(op.body, r.ctx, seeds) : fc.constant(undefined)).map((validBody) => {
          const query: [string, Value][] = [...op.params.filter((p) => p.in === 'query' && needed(p)), ...r.queryPick].map((p) => {
            const vs = validValues(p, r.ctx, seeds);
            return [p.name, vs[r.choice % vs.length]!];
          });
          const draft: Draft = { op, ctx: r.ctx, query, headers: [], body: op.body ? Buffer.from(JSON.stringify(validBody ?? {})) : undefined, family: 'random', note: '' };
          const notes: string[] = [];
          for (const m of r.mutations) {
            if (m.kind === 'param') {
              if (m.param.in === 'path') draft.path = { ...draft.path, [m.param.name]: m.value };
              else draft.query = [...draft.query.filter(([k]) => k !== m.param.name), [m.param.name, m.value]];
              notes.push(`${m.param.name}=${show(m.value)}`);
            } else if (m.kind === 'header') {
              const [k, v, bad] = m.header;
              draft.headers = [...draft.headers.filter(([x]) => x.toLowerCase() !== k.toLowerCase()), [k, v]];
              if (k === 'Host') draft.badHost = bad;
              notes.push(`${k}: ${show(v)}`);
            } else if (m.kind === 'method') {
              draft.method = m.method;
              notes.push(`method ${m.method}`);
            } else if (m.kind === 'body') {
              draft.body = Buffer.from(m.body);
              notes.push(`body ${show(m.body)}`);
            } else {
              draft.query = [...draft.query, [typeof m.name === 'string' ? m.name : m.name.raw, m.value]];
              notes.push(`extra ${show(m.name)}=${show(m.value)}`);
            }
          }
          draft.note = notes.join('; ');
          return draft;
        }),
      ),
  );
}

type FilterKind = 'items' | 'zone-data' | 'zones' | 'cross';

interface FilterTarget {
  op: Operation;
  kind: FilterKind;
  /** The bare grid's zone list (no collection): it refuses filters, so it gets a small share. */
  bare?: boolean;
  /** Collections the filter may be sent to (items: lake; zone data: row-based; zone lists: any). */
  collections: CollectionSeed[];
}

/** Operations that take a CQL2 filter (a `filter` query parameter, or selections of a cross-collection body), by path. */
function filterTargets(ops: Operation[], seeds: Seeds): FilterTarget[] {
  const out: FilterTarget[] = [];
  for (const op of ops) {
    if (isCrossBody(op.body)) {
      if (joinable(seeds).some((c) => c.rowFilter)) out.push({ op, kind: 'cross', collections: [] });
      continue;
    }
    if (!op.params.some((p) => p.in === 'query' && p.name === 'filter')) continue;
    const kind: FilterKind | undefined = /\/items(\/\{[^}]+\})?$/.test(op.path) ? 'items' : /\/data$/.test(op.path) ? 'zone-data' : /\/zones$/.test(op.path) ? 'zones' : undefined;
    if (!kind) continue;
    // Zone-data filters test sub-zones on every kind of collection; items filter rows.
    const fits = (c: CollectionSeed) => (kind === 'items' ? c.hasItems : kind === 'zone-data' ? c.zoneDataFields.length > 0 : c.queryables.length > 0);
    // A path naming its collection (`/collections/demo-stations/items`), one taking any, or none (the bare grid's zones refuse filters).
    const fixed = /^\/collections\/([^/{}]+)\//.exec(op.path)?.[1];
    const anyCollection = op.params.some((p) => p.in === 'path' && contextKey(p.name) === 'collection');
    const collections = fixed ? seeds.collections.filter((c) => c.id === fixed) : anyCollection ? seeds.collections.filter(fits) : seeds.collections.slice(0, 1);
    if (collections.length) out.push({ op, kind, collections, bare: !fixed && !anyCollection });
  }
  return out;
}

/** A grid, its cross-collection level and one of its zones; the default grid (listed first) half the time. */
function placeArb(seeds: Seeds): fc.Arbitrary<{ grid: string; level: number; zone: string; depth?: string } | undefined> {
  const grids = seeds.crossZones.filter((g) => g.zones.length > 0);
  if (!grids.length) return fc.constant(undefined);
  return fc.oneof(fc.constant(grids[0]!), fc.constantFrom(...grids)).chain((g) => fc.constantFrom(...g.zones).map((zone) => ({ grid: g.grid, level: g.level, zone, depth: g.depth })));
}

/** The zone-depth a zone needs for a 200, unless the query names one. */
const depthOf = (ctx: Context, query: [string, Value][]): [string, Value][] => (ctx.depth && !query.some(([k]) => k === 'zone-depth') ? [['zone-depth', ctx.depth]] : []);

const filterQuery = (f: Filter, n: number): [string, Value][] => [['filter', f.text], ...(f.lang === 'cql2-json' ? [['filter-lang', 'cql2-json'] as [string, Value]] : n % 3 === 0 ? [['filter-lang', 'cql2-text'] as [string, Value]] : [])];

/**
 * Requests carrying a generated filter, spread over every operation that takes one and the
 * collections each serves; zone lists at the levels where filters cost the most (the cross level
 * of the grid and up to three finer: 3-7 on IVEA7H).
 */
function filteredArb(ops: Operation[], seeds: Seeds): fc.Arbitrary<Draft> | undefined {
  const targets = filterTargets(ops, seeds);
  if (!targets.length) return undefined;
  const all = contexts(seeds);
  const base = all.cross[0] ?? all.any[0]!;
  const target = fc.oneof(...targets.map((t) => ({ weight: t.bare ? 1 : 8, arbitrary: fc.constant(t) })));
  return fc.tuple(target, placeArb(seeds), fc.nat()).chain(([t, at, n]) => {
    // Feature 1 exists whatever the filter keeps (ids count the matching rows from 1).
    const ctxOf = (collection: string): Context => {
      if (at) return { ...base, collection, grid: at.grid, zone: at.zone, depth: at.depth, feature: '1' };
      return { ...(all.scoped.find((x) => x.collection === collection) ?? { ...base, collection }), feature: '1' };
    };
    const required = (ctx: Context) => t.op.params.filter((p) => p.in === 'query' && needed(p)).map((p): [string, Value] => [p.name, validValues(p, ctx, seeds)[0]!]);
    if (t.kind === 'cross') {
      const ctx = ctxOf(base.collection);
      return crossBodyArb(seeds, (scope) => filterArb(scope)).map((b): Draft => ({
        op: t.op, ctx, query: [...required(ctx), ...depthOf(ctx, [])], headers: [], body: Buffer.from(JSON.stringify(b.body)), family: 'filter', note: `filter in a selection: ${b.label}`.slice(0, 300),
      }));
    }
    return fc.constantFrom(...t.collections).chain((c) => {
      const scope = scopeOf(c);
      // Zone lists of collections without rows (rasters, STAC, OGC Features) filter on their zone-data fields and the zone outline, `geometry`.
      if (t.kind === 'zones' && !c.hasItems) scope.queryables = [...c.zoneDataFields.map((name) => ({ name, kind: 'number' as const })), { name: 'geometry', kind: 'geometry' as const }];
      return filterArb(scope).map((f): Draft => {
        const ctx = ctxOf(c.id);
        const query: [string, Value][] = required(ctx).filter(([k]) => k !== 'zone-level');
        if (t.kind === 'items') query.push(['limit', ['1', '10', '100'][n % 3]!], ...(n % 2 ? [['f', 'json'] as [string, Value]] : []));
        if (t.kind === 'zone-data') query.push(...(n % 4 ? [['zone-depth', String(n % 3)] as [string, Value]] : depthOf(ctx, [])), ...(n % 2 ? [['f', 'json'] as [string, Value]] : []));
        if (t.kind === 'zones') query.push(['zone-level', String(Math.max(1, (at?.level ?? 4) - 1 + (n % 5)))], ...(n % 3 ? [['limit', n % 3 === 1 ? '10' : '100'] as [string, Value]] : []));
        query.push(...filterQuery(f, n));
        return { op: t.op, ctx, query, headers: [], family: 'filter', note: `filter ${f.lang} on ${c.id}: ${f.label}`.slice(0, 300) };
      });
    });
  });
}

/**
 * Cross-collection POSTs: a valid body on a zone inside every collection's extent, about half as
 * drawn and half with one mistake; now and then a query parameter the route takes, or refuses.
 */
function crossArb(ops: Operation[], seeds: Seeds): fc.Arbitrary<Draft> | undefined {
  const op = ops.find((o) => isCrossBody(o.body));
  if (!op || !joinable(seeds).length) return undefined;
  const all = contexts(seeds);
  const mutations = crossMutations(seeds);
  // PNG and JPEG-XL hold one depth and three columns, which drawn bodies rarely are: left to the
  // sweep over every operation and value, so that these requests mostly get past validation.
  const formats = allowedValues(op.params.find((p) => p.name === 'f')?.schema ?? {}).filter((f) => f !== 'png' && f !== 'jxl');
  const interval = joinable(seeds).find((c) => c.interval)?.interval;
  const one = (k: string) => (v: string): [string, Value][] => [[k, v]];
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant<[string, Value][]>([]) },
    { weight: 2, arbitrary: fc.constantFrom(...formats, 'json').map(one('f')) },
    { weight: 2, arbitrary: fc.constantFrom('0', '1', '2', '0-1', '1-2', '0,2').map(one('zone-depth')) },
    { weight: 1, arbitrary: fc.constantFrom(...(interval?.[0] ? [interval[0], `${interval[0]}/..`] : ['2024-01-15T00:00:00Z'])).map(one('datetime')) },
    { weight: 1, arbitrary: fc.constantFrom<[string, Value][]>([['filter', 'x > 0']], [['properties', 'x']], [['cog-url', 'http://example.invalid/x.tif']], [['zone-depth', '0-100']], [['datetime', 'x']], [['refined-geometry', 'true'], ['f', 'geo+json']]) },
  );
  const ctx = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...(all.cross.length ? all.cross : all.any)) }, { weight: 1, arbitrary: fc.constantFrom(...all.any) });
  const mutation = fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...mutations) });
  return fc.tuple(crossBodyArb(seeds), ctx, mutation, query).map(([b, c, m, q]): Draft => ({
    op, ctx: c, query: [...q, ...depthOf(c, q)], headers: [], body: Buffer.from(JSON.stringify(m ? m.apply(b.body) : b.body)), family: 'cross-collection',
    note: `${m ? m.note : 'valid body'}${q.length ? ` ${q.map(([k, v]) => `${k}=${show(v)}`).join('&')}` : ''}: ${b.label}`.slice(0, 300),
  }));
}

/**
 * Hostile filters that once failed, at sizes that showed each on the code before its fix without
 * holding the event loop for minutes (backtracking LIKE on a raster zone list: about 5 s; zig-zag
 * polygon: 3 s; backtracking LIKE in DuckDB: the full scan, 78 s; spatial literals past int64: 500;
 * a zone-list filter on an OGC Features collection: 452 backend requests for one zone list).
 */
function hostileFilterRegressions(): [string, string][] {
  const q = encodeURIComponent;
  const past = 'S_INTERSECTS(geometry,BBOX(0,0,1e19,1e19))';
  const backtracking = (n: number, k: number) => `'${'a'.repeat(n)}' LIKE '${'%a'.repeat(k)}%b'`;
  const zigzag = encode({ expr: { kind: 'spatial', op: 's_intersects', left: { kind: 'property', name: 'geometry' }, right: { kind: 'geometry', geometry: zigzagPolygon([5, 44, 16, 48], 200) } }, label: '' }, 'cql2-text').text;
  return [
    [`/collections/demo-stations/items?filter=${q(past)}`, 'spatial literal past int64 on items (was 500)'],
    [`/collections/demo-stations/items?filter-lang=cql2-json&filter=${q(JSON.stringify({ op: 's_intersects', args: [{ property: 'geometry' }, { bbox: [0, 0, 1e19, 1e19] }] }))}`, 'the same in CQL2-JSON (was 500)'],
    [`/collections/demo-stations/dggs/IVEA7H/zones/D4-6-F/data?filter=${q(past)}`, 'spatial literal past int64 on lake zone data (was 500)'],
    [`/collections/demo-stations/dggs/IVEA7H/zones?zone-level=3&filter=${q(past)}`, 'spatial literal past int64 on a lake zone list (was 500)'],
    [`/collections/demo-stations-remote/dggs/IVEA7H/zones/D4-6-F/data?filter=${q(past)}`, 'spatial literal past int64 through the remote collection (was 502)'],
    [`/collections/demo-stations-remote/dggs/IVEA7H/zones?zone-level=5&limit=10&filter=${q('temperature > 0')}`, 'zone-list filter on an OGC Features collection (was 452 backend requests, 12-36 s)'],
    [`/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=3&filter=${q(backtracking(34, 9))}`, 'backtracking LIKE on a raster zone list (held the event loop 1.4 s at 8 %a, three times as long per further one)'],
    [`/collections/demo-stations/items?limit=1&filter=${q(backtracking(36, 12))}`, 'backtracking LIKE in DuckDB (ran 78 s, on after the client left)'],
    [`/collections/demo-elevation/dggs/IVEA7H/zones?zone-level=6&filter=${q(zigzag)}`, 'zig-zag polygon of 200 vertices on a raster zone list (held the event loop 3 s)'],
  ];
}

/**
 * Requests that once failed, sent on every run and every slice so a
 * regression shows even when the sampling skips them. Only those whose failure is deterministic.
 */
function regressions(ops: Operation[], seeds: Seeds): Draft[] {
  const up = seeds.upstream ?? 'http://example.invalid';
  const list: [string, string][] = [
    ['/collections/demo-elevation/dggs/ISEA7H_Z7/zones?filter=javascript%3Aalert(1)', 'zone-list filter that is not a predicate (was 500)'],
    ['/collections/demo-stations/dggs/IVEA7H/zones?filter=javascript%3Aalert(1)', 'zone-list filter that is not a predicate, lake collection'],
    [`/dggs/IVEA7H/zones/D2-6-F/data?cog-url=${encodeURIComponent(`${up}/missing.tif`)}`, 'cog-url on a missing file (was 502)'],
    [`/dggs/IVEA7H/zones/D2-6-F/data?cog-url=${encodeURIComponent(`${up.replace('http:', 'https:')}/elevation.tif`)}`, 'https to a plain-http host (was 502 quoting OpenSSL internals)'],
    ['/collections/demo-stations/items?properties=,', 'empty column selection (was 500)'],
    ['/dggs/H3/zones/8f2830828052d25', 'H3 finest zone info (was 500)'],
    ...hostileFilterRegressions(),
  ];
  // Operation ids get renamed; the path templates are what the requests were sent to.
  const escape = (x: string) => x.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  const matches = (op: Operation, path: string) => new RegExp(`^${op.path.split(/\{[^}]+\}/).map(escape).join('[^/]+')}$`).test(path.split('?')[0]!);
  const fallback: Operation = { id: 'regression', method: 'GET', path: '/', params: [], secured: false };
  return list.map(([path, note]) => ({
    op: ops.find((o) => o.method === 'GET' && matches(o, path)) ?? fallback,
    ctx: contexts(seeds).any[0]!,
    query: [],
    headers: [],
    family: 'regression',
    note,
    pathTweak: () => path,
  }));
}

export function buildCases(ops: Operation[], seeds: Seeds, opts: CaseOptions, hostPort: string): FuzzCase[] {
  const drafts = [...regressions(ops, seeds), ...sweep(ops, seeds, opts, hostPort)];
  if (opts.random > 0) drafts.push(...fc.sample(randomArb(ops, seeds, opts, hostPort), { seed: opts.seed, numRuns: opts.random }));
  const filtered = filteredArb(ops, seeds);
  if (filtered && opts.filters) drafts.push(...fc.sample(filtered, { seed: opts.seed + 1, numRuns: opts.filters }));
  const cross = crossArb(ops, seeds);
  if (cross && opts.cross) drafts.push(...fc.sample(cross, { seed: opts.seed + 2, numRuns: opts.cross }));
  const cases = drafts.map((d, i) => render(d, i, seeds));
  for (const r of rawRequests(hostPort)) {
    cases.push({ id: cases.length, op: 'raw', family: 'raw', params: [], note: r.note, badHost: r.badHost, req: { method: 'RAW', path: r.bytes.split(' ')[1] ?? '', headers: [], raw: Buffer.from(r.bytes, 'utf8') } });
  }
  return cases;
}
