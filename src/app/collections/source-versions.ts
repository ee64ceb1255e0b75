import { createHash } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { TOKENS } from '../tokens.js';
import type { Collection, CollectionCatalog } from '../../ports/collection-catalog.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { RasterReader } from '../../ports/raster-reader.js';
import type { StacCatalogFactory } from '../../ports/stac-catalog.js';
import type { SourceVersion } from '../../ports/source-version.js';
import type { ZonePyramidStore } from '../../ports/zone-pyramid-store.js';

/**
 * A version is looked at again once it is this old: a burst of requests looks at a collection's
 * files (a stat, a directory walk, an object listing) once, and a change shows in the requests
 * after the next look.
 */
const KEEP_MS = 1000;

/**
 * The versions of the collections' data, as cheaply as each source knows it (src/ports/source-version.ts):
 * a lake its files' listing, a raster file its size and time (a remote one what its host stated),
 * a static STAC catalog on disk its root document, a zone pyramid its published layout (an ingest
 * publishes a new one). OGC API Features backends and STAC APIs have
 * none: knowing would cost a read of the data. The HTTP side derives validators (ETag,
 * Last-Modified) from them.
 *
 * Work is bounded: one look per collection at a time and at most one per KEEP_MS, only for
 * configured collections; a source that fails to say gives no version (the request that needs
 * the data meets the failure itself). A change shows in tags a look later than in the data (about
 * a second): answers sent meanwhile carry the tag of before.
 */
@injectable()
export class SourceVersions {
  /** By collection id: what the last look found, and when it ended (undefined while a look runs). */
  private readonly kept = new Map<string, { at: number | undefined; version: Promise<SourceVersion | undefined> }>();

  constructor(
    @inject(TOKENS.CollectionCatalog) private readonly catalog: CollectionCatalog,
    @inject(TOKENS.LakeReader) private readonly lake: LakeReader,
    @inject(TOKENS.RasterReader) private readonly rasters: RasterReader,
    @inject(TOKENS.StacCatalogs) private readonly stac: StacCatalogFactory,
    @inject(TOKENS.ZonePyramidStore) @optional() private readonly pyramids?: ZonePyramidStore,
  ) {}

  /**
   * The version of the data of the collections `ids` together (an answer combining them changes
   * when any does); undefined when one of them is unknown or has no version.
   */
  async of(ids: readonly string[]): Promise<SourceVersion | undefined> {
    const collections = ids.map((id) => this.catalog.get(id));
    if (collections.length === 0 || collections.some((c) => c === undefined)) return undefined;
    const versions = await Promise.all(collections.map((c) => this.one(c!)));
    if (versions.some((v) => v === undefined)) return undefined;
    if (versions.length === 1) return versions[0];
    const hash = createHash('sha256');
    versions.forEach((v, i) => hash.update(`${ids[i]}\0${v!.id}\n`));
    const times = versions.map((v) => v!.modifiedMs);
    return { id: hash.digest('base64url'), ...(times.every((t) => t !== undefined) ? { modifiedMs: Math.max(...(times as number[])) } : {}) };
  }

  /**
   * The collection's version as last looked at; once that is KEEP_MS old, looked at again in the
   * background. Only the first look is waited for: a look (a directory walk, a listing) queued
   * behind busy file reads would otherwise hold every request of its time back, then let them go
   * at once.
   */
  private one(c: Collection): Promise<SourceVersion | undefined> {
    const kept = this.kept.get(c.id);
    if (kept) {
      if (kept.at !== undefined && Date.now() - kept.at >= KEEP_MS) {
        kept.at = undefined;
        void this.settled(c).then((v) => {
          kept.version = Promise.resolve(v);
          kept.at = Date.now();
        });
      }
      return kept.version;
    }
    const entry: { at: number | undefined; version: Promise<SourceVersion | undefined> } = { at: undefined, version: this.settled(c) };
    void entry.version.then(() => (entry.at = Date.now()));
    this.kept.set(c.id, entry);
    return entry.version;
  }

  private settled(c: Collection): Promise<SourceVersion | undefined> {
    return this.look(c).catch(() => undefined);
  }

  private async look(c: Collection): Promise<SourceVersion | undefined> {
    const b = c.backing;
    switch (b.kind) {
      case 'parquet-lake':
        return this.lake.version?.(c);
      case 'raster-url':
        return this.rasters.version?.(b.url);
      case 'stac':
        return this.stac(b.catalog, b.collections ? { collections: b.collections } : undefined).version?.();
      case 'ogc-features':
        return undefined;
      case 'clickhouse-pyramid': {
        const layout = await this.pyramids?.layout({ table: b.table });
        if (!layout) return undefined;
        // Each ingest publishes a layout of its own (its time at least differs).
        const id = createHash('sha256').update(JSON.stringify(layout)).digest('base64url');
        const at = Date.parse(layout.ingestedAt);
        return { id, ...(Number.isFinite(at) ? { modifiedMs: at } : {}) };
      }
    }
  }
}
