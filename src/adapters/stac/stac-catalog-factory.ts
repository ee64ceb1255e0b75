/**
 * Opens the catalog a `stac` collection names: a path (or file: URL) is a static catalog on
 * disk; an http(s) URL is a STAC API or a static catalog over HTTP, told apart by its landing
 * document. Catalogs are kept per href and collections, so a static tree is read once.
 */
import type { StacCatalog, StacCatalogFactory, StacCatalogOptions } from '../../ports/stac-catalog.js';
import { StaticStacCatalog } from './static-stac-catalog.js';
import { RemoteStacCatalog } from './remote-stac.js';
import type { RemoteStacOptions } from './stac-http.js';

export function stacCatalogFactory(remote: Omit<RemoteStacOptions, 'collections'>): StacCatalogFactory {
  const open = new Map<string, StacCatalog>();
  return (href, options) => {
    const opts: StacCatalogOptions = options ?? {};
    const key = `${href}\n${(opts.collections ?? []).join(',')}`;
    let c = open.get(key);
    if (!c) {
      c = /^https?:\/\//i.test(href) ? new RemoteStacCatalog(href, { ...remote, ...opts }) : new StaticStacCatalog(href);
      open.set(key, c);
    }
    return c;
  };
}
