/**
 * Valid values learnt from the running service (collections, grids, zones, fields, concepts, an
 * order and its jobs), so generated requests get past the first check and reach the deep code.
 */
export interface CollectionSeed {
  id: string;
  grids: string[];
  /** Zones inside the collection's extent, per grid. */
  zones: Record<string, string[]>;
  /** Names of its queryables. */
  fields: string[];
  /** Its queryables with the kind of value each holds (for generated CQL2 filters). */
  queryables: Queryable[];
  /** Fields of its zone data (the value columns a zone-data answer carries; what cross-collection selections name). */
  zoneDataFields: string[];
  /** A cross-collection selection of it takes a row filter (row-based: parquet lake, OGC Features). */
  rowFilter: boolean;
  /** Spatial extent [west, south, east, north] (the whole world when the collection names none). */
  bbox: Bbox;
  /** Temporal extent, open ends null. */
  interval?: [string | null, string | null];
  /** Property values of a few of its items (lake collections), so generated comparisons sometimes match. */
  samples: Record<string, unknown>[];
  hasItems: boolean;
  /** Names of the local files it serves (zone info links with rel "source" to /collections/{id}/source/{name}). */
  sourceFiles: string[];
}

export type Bbox = [number, number, number, number];

export interface Queryable {
  name: string;
  kind: 'string' | 'number' | 'boolean' | 'datetime' | 'geometry' | 'other';
}

/**
 * Zones of one grid inside every zone-data collection's extent, at a level where a cross-collection
 * request on them reads every source and stays small (see crossZonesOf).
 */
export interface CrossZones {
  grid: string;
  level: number;
  zones: string[];
  /** A zone-depth to send: the grid's default depth resolves more sub-zones than the service allows (a 422 at any level). */
  depth?: string;
}

export interface Seeds {
  token: string;
  collections: CollectionSeed[];
  grids: { id: string; zones: string[] }[];
  /** Where cross-collection requests have data in every collection, per grid. */
  crossZones: CrossZones[];
  concepts: string[];
  orders: { id: string; jobs: string[] }[];
  /** The body that made `orders`: replayed on every restarted service so the ids hold again. */
  orderBody?: string;
  /** Base URL of the local raster host (scripts/fuzz/upstream.ts) the service may fetch from. */
  upstream?: string;
}

/** Creates the seed order (a fresh service gives it the same id) and lists its jobs. */
export async function createSeedOrder(base: string, token: string, body: string): Promise<Seeds['orders']> {
  const auth = { authorization: `Bearer ${token}` };
  const res = await fetch(`${base}/orders`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  const order = (await res.json().catch(() => undefined)) as { id?: number } | undefined;
  if (res.status !== 201 || order?.id === undefined) return [];
  return [{ id: String(order.id), jobs: ids((await getJson(base, `/orders/${order.id}/jobs`, auth))?.jobs) }];
}

async function getJson(base: string, path: string, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(base + path, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status !== 200) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A POST of a JSON body: its JSON answer, or undefined when it is not a 200. */
async function postJson(base: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(base + path, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return res.status === 200 ? JSON.parse(text) : undefined;
}

const ids = (list: unknown, key = 'id'): string[] => (Array.isArray(list) ? list.map((x) => String((x as Record<string, unknown>)[key])).filter((x) => x !== 'undefined') : []);

/** Zone list bodies carry plain ids (or objects with an id, should that change). */
const zoneIds = (list: any): string[] =>
  Array.isArray(list?.zones) ? list.zones.map((z: unknown) => (typeof z === 'string' ? z : String((z as { id?: unknown }).id))) : [];

/** Zones of a cross-collection request are at most this large (m², about 220 km across): every source is read, and the answer stays small. */
const CROSS_ZONE_AREA = 5e10;

function kindOf(schema: Record<string, unknown>): Queryable['kind'] {
  const format = String(schema.format ?? '');
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (format.startsWith('geometry') || /geojson/i.test(String(schema.$ref ?? ''))) return 'geometry';
  if (format === 'date-time' || format === 'date') return 'datetime';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'string') return 'string';
  if (type === 'boolean') return 'boolean';
  return 'other';
}

/** The first spatial and temporal extent a collection document gives. */
function extentOf(doc: any): { bbox: Bbox; interval?: [string | null, string | null] } {
  const b = doc?.extent?.spatial?.bbox?.[0] as number[] | undefined;
  const bbox: Bbox = Array.isArray(b) && b.length >= 4 ? (b.length === 6 ? [b[0]!, b[1]!, b[3]!, b[4]!] : [b[0]!, b[1]!, b[2]!, b[3]!]) : [-180, -90, 180, 90];
  const t = doc?.extent?.temporal?.interval?.[0] as (string | null)[] | undefined;
  return { bbox, interval: Array.isArray(t) && t.length === 2 ? [t[0] ?? null, t[1] ?? null] : undefined };
}

/** The common part of the boxes, pulled in by 15% on every side; undefined when they do not overlap. */
function innerBox(boxes: Bbox[]): Bbox | undefined {
  if (!boxes.length) return undefined;
  const [w, s, e, n] = boxes.reduce<Bbox>((a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])], [-180, -90, 180, 90]);
  if (w >= e || s >= n) return undefined;
  const dx = (e - w) * 0.15;
  const dy = (n - s) * 0.15;
  return [w + dx, s + dy, e - dx, n - dy];
}

/**
 * Per grid, zones inside `box` at the first level whose zones are at most CROSS_ZONE_AREA and whose
 * cross-collection answer (one field of every collection, the grid's default depth, else depth 2)
 * is a 200.
 */
async function crossZonesOf(base: string, grids: string[], box: Bbox, joinable: CollectionSeed[]): Promise<CrossZones[]> {
  const body = JSON.stringify({ collections: joinable.map((c) => ({ id: c.id, fields: c.zoneDataFields.slice(0, 1) })) });
  const answers = async (grid: string, zone: string, depth?: string) => {
    const res = await fetch(`${base}/dggs/${encodeURIComponent(grid)}/zones/${encodeURIComponent(zone)}/data?f=json${depth ? `&zone-depth=${depth}` : ''}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const out: CrossZones[] = [];
  for (const grid of grids) {
    let small = false;
    for (let level = 1, tries = 0; level <= 20 && tries < 4; level++) {
      const list = await getJson(base, `/dggs/${encodeURIComponent(grid)}/zones?bbox=${box.join(',')}&zone-level=${level}&limit=8`);
      const zones = zoneIds(list);
      const area = Number(list?.returnedAreaMetersSquare);
      if (!list || (zones.length && !Number.isFinite(area))) break;
      small ||= zones.length > 0 && area / zones.length <= CROSS_ZONE_AREA;
      if (!small) continue;
      tries++;
      const depth = (await answers(grid, zones[0]!)) ? undefined : (await answers(grid, zones[0]!, '2')) ? '2' : null;
      if (depth !== null) {
        out.push({ grid, level, zones: zones.slice(0, 4), ...(depth ? { depth } : {}) });
        break;
      }
    }
  }
  return out;
}

export async function discoverSeeds(base: string, token: string): Promise<Seeds> {
  const dggs = await getJson(base, '/dggs');
  const grids: Seeds['grids'] = [];
  for (const id of ids(dggs?.dggrs)) {
    const g = encodeURIComponent(id);
    // Level 1 is a short list on every grid; a parent-zone listing adds zones one level down.
    const level1 = zoneIds(await getJson(base, `/dggs/${g}/zones?zone-level=1&limit=6`));
    const children = level1[0] ? zoneIds(await getJson(base, `/dggs/${g}/zones?parent-zone=${encodeURIComponent(level1[0])}&limit=3`)) : [];
    grids.push({ id, zones: [...level1, ...children] });
  }
  const collections: CollectionSeed[] = [];
  for (const id of ids((await getJson(base, '/collections'))?.collections)) {
    const c = encodeURIComponent(id);
    const gridIds = ids((await getJson(base, `/collections/${c}/dggs`))?.dggrs);
    const zones: Record<string, string[]> = {};
    for (const g of gridIds) {
      zones[g] = zoneIds(await getJson(base, `/collections/${c}/dggs/${encodeURIComponent(g)}/zones?zone-level=3&limit=4`));
    }
    const queryableDoc = await getJson(base, `/collections/${c}/queryables`);
    const queryables = Object.entries<Record<string, unknown>>(queryableDoc?.properties ?? {}).map(([name, schema]) => ({ name, kind: kindOf(schema) }));
    const fields = queryables.map((q) => q.name);
    const items = await fetch(`${base}/collections/${c}/items?limit=3&f=json`, { signal: AbortSignal.timeout(30_000) });
    const itemsBody = (await items.json().catch(() => undefined)) as { items?: Record<string, unknown>[] } | undefined;
    const samples = items.status === 200 && Array.isArray(itemsBody?.items) ? itemsBody.items : [];
    // Zone info links a collection's local files (rel "source") to /collections/{id}/source/{name}.
    const [grid, gz] = Object.entries(zones).find(([, z]) => z.length > 0) ?? [];
    const zonePath = grid && gz ? `/collections/${c}/dggs/${encodeURIComponent(grid)}/zones/${encodeURIComponent(gz[0]!)}` : undefined;
    const info = zonePath ? await getJson(base, zonePath) : undefined;
    const links = (info?.links ?? []) as { rel?: string; href?: string }[];
    const sourceFiles = links.flatMap((l) => {
      const m = l.rel === 'source' && l.href ? /\/source\/([^/?#]+)/.exec(l.href) : null;
      return m ? [decodeURIComponent(m[1]!)] : [];
    });
    // The value columns of its zone data, and whether a cross-collection selection of it takes a
    // row filter (row-based sources only; zone-data GETs filter sub-zones on every kind).
    const data = zonePath ? await getJson(base, `${zonePath}/data?zone-depth=0&f=json`) : undefined;
    const zoneDataFields = Object.keys(data?.values ?? {});
    const probe = queryables.find((q) => q.kind !== 'geometry')?.name;
    const selection = { collections: [{ id, fields: zoneDataFields.slice(0, 1), filter: `"${probe}" IS NOT NULL` }] };
    const rowFilter = Boolean(grid && gz && probe && zoneDataFields.length > 0 && (await postJson(base, `/dggs/${encodeURIComponent(grid)}/zones/${encodeURIComponent(gz[0]!)}/data?zone-depth=0&f=json`, selection)));
    const extent = extentOf(await getJson(base, `/collections/${c}`));
    collections.push({ id, grids: gridIds, zones, fields, queryables, zoneDataFields, rowFilter, ...extent, samples, hasItems: items.status === 200, sourceFiles });
  }
  const concepts = ids((await getJson(base, '/concepts'))?.concepts).slice(0, 5);

  // Cross-collection zones: inside every zone-data collection's extent, on the grids they all offer.
  const joinable = collections.filter((c) => c.zoneDataFields.length > 0);
  const box = innerBox(joinable.map((c) => c.bbox));
  const sharedGrids = grids.map((g) => g.id).filter((g) => joinable.every((c) => c.grids.includes(g)));
  const crossZones = box ? await crossZonesOf(base, sharedGrids, box, joinable) : [];

  const target = collections.find((c) => Object.values(c.zones).some((z) => z.length > 0));
  let orderBody: string | undefined;
  if (target) {
    const [grid, zones] = Object.entries(target.zones).find(([, z]) => z.length > 0)!;
    orderBody = JSON.stringify({ title: 'fuzz seed', collection: target.id, dggrs: grid, zones: zones.slice(0, 2) });
  }
  const orders = orderBody ? await createSeedOrder(base, token, orderBody) : [];
  return { token, collections, grids, crossZones, concepts, orders, orderBody };
}
