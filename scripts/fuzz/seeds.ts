/**
 * Valid values learnt from the running service (collections, grids, zones, fields, concepts, an
 * order and its jobs), so generated requests get past the first check and reach the deep code.
 */
export interface CollectionSeed {
  id: string;
  grids: string[];
  /** Zones inside the collection's extent, per grid. */
  zones: Record<string, string[]>;
  fields: string[];
  hasItems: boolean;
  /** Names of the local files it serves (zone info links with rel "source" to /collections/{id}/source/{name}). */
  sourceFiles: string[];
}

export interface Seeds {
  token: string;
  collections: CollectionSeed[];
  grids: { id: string; zones: string[] }[];
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

const ids = (list: unknown, key = 'id'): string[] => (Array.isArray(list) ? list.map((x) => String((x as Record<string, unknown>)[key])).filter((x) => x !== 'undefined') : []);

/** Zone list bodies carry plain ids (or objects with an id, should that change). */
const zoneIds = (list: any): string[] =>
  Array.isArray(list?.zones) ? list.zones.map((z: unknown) => (typeof z === 'string' ? z : String((z as { id?: unknown }).id))) : [];

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
    const queryables = await getJson(base, `/collections/${c}/queryables`);
    const fields = Object.keys(queryables?.properties ?? {});
    const items = await fetch(`${base}/collections/${c}/items?limit=1&f=json`, { signal: AbortSignal.timeout(30_000) });
    await items.arrayBuffer();
    // Zone info links a collection's local files (rel "source") to /collections/{id}/source/{name}.
    const [grid, gz] = Object.entries(zones).find(([, z]) => z.length > 0) ?? [];
    const info = grid && gz ? await getJson(base, `/collections/${c}/dggs/${encodeURIComponent(grid)}/zones/${encodeURIComponent(gz[0]!)}`) : undefined;
    const links = (info?.links ?? []) as { rel?: string; href?: string }[];
    const sourceFiles = links.flatMap((l) => {
      const m = l.rel === 'source' && l.href ? /\/source\/([^/?#]+)/.exec(l.href) : null;
      return m ? [decodeURIComponent(m[1]!)] : [];
    });
    collections.push({ id, grids: gridIds, zones, fields, hasItems: items.status === 200, sourceFiles });
  }
  const concepts = ids((await getJson(base, '/concepts'))?.concepts).slice(0, 5);

  const target = collections.find((c) => Object.values(c.zones).some((z) => z.length > 0));
  let orderBody: string | undefined;
  if (target) {
    const [grid, zones] = Object.entries(target.zones).find(([, z]) => z.length > 0)!;
    orderBody = JSON.stringify({ title: 'fuzz seed', collection: target.id, dggrs: grid, zones: zones.slice(0, 2) });
  }
  const orders = orderBody ? await createSeedOrder(base, token, orderBody) : [];
  return { token, collections, grids, concepts, orders, orderBody };
}
