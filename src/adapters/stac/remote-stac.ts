/**
 * STAC catalogs over HTTP: a STAC API (`/search`) or a static catalog served as files. Which one
 * a URL is shows on its landing document: an API declares Item Search in `conformsTo` or links
 * a `search` endpoint. Every request goes through the guarded RemoteHttp port.
 *
 * Asset hrefs of remote catalogs are the catalog's, not the operator's: they are made absolute
 * against the item's location, only http(s) ones are kept, and each origin must pass the same
 * fetch policy (the composition root's UrlGuard) before a raster reader is given it.
 */
import type { StacCatalog, StacItemDescriptor, StacSearch } from '../../ports/stac-catalog.js';
import type { RemoteHttp } from '../../ports/remote-http.js';
import { HTTP_STAC_LIMITS, StaticStacCatalog, type StacDocuments } from './static-stac-catalog.js';
import { StacApiCatalog, isStacApi } from './stac-api-catalog.js';
import { getStacJson, guardAssets, remoteAssetHref, type RemoteStacOptions } from './stac-http.js';

/** Static catalog documents over HTTP. */
class HttpStacDocuments implements StacDocuments {
  readonly maxDocuments = HTTP_STAC_LIMITS.maxDocuments;
  readonly concurrency = HTTP_STAC_LIMITS.concurrency;

  constructor(
    private readonly http: RemoteHttp,
    private readonly catalog: string,
  ) {}

  resolve(href: string, base?: string): string {
    return new URL(href, base ?? this.catalog).href;
  }

  asset(href: string, itemLocation: string): string | undefined {
    return remoteAssetHref(href, itemLocation);
  }

  async read(location: string): Promise<Record<string, unknown>> {
    return (await getStacJson(this.http, location, this.catalog)).doc;
  }
}

/** A catalog URL: a STAC API or a static catalog, decided by its landing document on first use. */
export class RemoteStacCatalog implements StacCatalog {
  private inner: Promise<StacCatalog> | undefined;

  constructor(
    private readonly href: string,
    private readonly options: RemoteStacOptions,
  ) {}

  async search(query: StacSearch): Promise<StacItemDescriptor[]> {
    if (!this.inner) {
      this.inner = this.open();
      this.inner.catch(() => (this.inner = undefined));
    }
    const items = await (await this.inner).search(query);
    return guardAssets(items, this.options.assetGuard);
  }

  private async open(): Promise<StacCatalog> {
    const landing = await getStacJson(this.options.http, this.href, this.href);
    if (isStacApi(landing.doc)) return new StacApiCatalog(this.href, landing, this.options);
    return new StaticStacCatalog(this.href, new HttpStacDocuments(this.options.http, this.href));
  }
}
