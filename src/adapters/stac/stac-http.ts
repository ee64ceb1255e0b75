/** Shared by the remote STAC adapters: guarded JSON reads, asset hrefs, the asset policy. */
import type { StacCatalogOptions, StacItemDescriptor } from '../../ports/stac-catalog.js';
import type { RemoteHttp, RemoteResponse, UrlGuard } from '../../ports/remote-http.js';
import { backendStatus, badPayload, catalogLabel, remoteFault } from '../../ports/remote-faults.js';
import { parseDocument } from './static-stac-catalog.js';

export const WHAT = 'STAC catalog';

export interface StacApiLimits {
  /** `limit` asked per page. */
  pageSize: number;
  /** Pages one search may read. */
  maxPages: number;
  /** Items one search may read. */
  maxItems: number;
}

export interface RemoteStacOptions extends StacCatalogOptions {
  http: RemoteHttp;
  /** Checks asset origins against the fetch policy. */
  assetGuard: UrlGuard;
  limits: StacApiLimits;
}

/** GET a JSON document of a remote catalog; faults become 502/504 ApiErrors naming the catalog. */
export async function getStacJson(http: RemoteHttp, url: string, catalog: string): Promise<{ doc: Record<string, unknown>; url: string }> {
  const label = catalogLabel(catalog);
  let res: RemoteResponse;
  try {
    res = await http.request({ method: 'GET', url, headers: { accept: 'application/json, application/geo+json;q=0.9' } });
  } catch (err) {
    throw remoteFault(err, WHAT, label);
  }
  if (res.status < 200 || res.status > 299) throw backendStatus(WHAT, label, res.status, url);
  try {
    return { doc: parseDocument(new TextDecoder().decode(res.body), catalog, url), url: res.url };
  } catch {
    throw badPayload(WHAT, label, `something that is not a JSON object from ${new URL(url).pathname}`);
  }
}

/** An absolute http(s) href for an asset, or undefined. */
export function remoteAssetHref(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Leaves out assets whose origin the fetch policy refuses (each origin checked once). */
export async function guardAssets(items: StacItemDescriptor[], guard: UrlGuard): Promise<StacItemDescriptor[]> {
  const verdicts = new Map<string, Promise<boolean>>();
  const allowed = (href: string) => {
    const origin = new URL(href).origin;
    let v = verdicts.get(origin);
    if (!v) verdicts.set(origin, (v = guard(new URL(href)).then(() => true, () => false)));
    return v;
  };
  return Promise.all(
    items.map(async (item) => {
      const kept = await Promise.all(Object.entries(item.assets).map(async ([k, a]) => ((await allowed(a.href)) ? [[k, a] as const] : [])));
      return { ...item, assets: Object.fromEntries(kept.flat()) };
    }),
  );
}

