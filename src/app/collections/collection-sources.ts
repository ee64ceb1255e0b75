import type { Logger } from 'pino';
import type { CollectionConfig } from '../config/config-schema.js';
import { ConfigError, formatPath } from '../config/load-config.js';
import type { Collection, Extent } from '../../domain/collection.js';
import { AppError, UnavailableError } from '../../ports/errors.js';
import type { LakeReader } from '../../ports/lake-reader.js';
import type { RasterReader } from '../../ports/raster-reader.js';
import { StacCatalogError, type StacCatalogFactory } from '../../ports/stac-catalog.js';
import type { PyramidLayout, ZonePyramidStore } from '../../ports/zone-pyramid-store.js';

/** Longest the start waits for a pyramid's layout (its extent): a cluster down does not hold the start. */
const PYRAMID_LOOK_MS = 3000;

/** What the start-up check found missing of an optional collection's source: its data routes answer 503 until a restart finds it. */
export class CollectionAvailability {
  private readonly missing = new Map<string, string>();

  markMissing(id: string, key: string): void {
    this.missing.set(id, key);
  }

  /** The answer for the data of a collection whose source is missing; undefined when it is there. */
  unavailable(id: string): UnavailableError | undefined {
    const key = this.missing.get(id);
    if (key === undefined) return undefined;
    return new UnavailableError(
      'Collection data unavailable',
      `The data source of collection "${id}" (config key ${key}) was missing when the service started; the collection is marked optional, so the service runs without it. Its data is served once an operator puts it in place and restarts the service.`,
    );
  }

  /**
   * `target` whose methods taking a collection first reject for a collection marked missing (a
   * lake reader, a zone-data source): one guard for every data route, whatever port they reach
   * the data through, and none of the use cases need to know.
   */
  guard<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (t, prop, receiver) => {
        const value: unknown = Reflect.get(t, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const c = args[0] as Partial<Collection> | undefined;
          const refusal = typeof c === 'object' && c !== null && typeof c.id === 'string' && c.backing ? this.unavailable(c.id) : undefined;
          return refusal ? Promise.reject(refusal) : (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  }
}

export interface SourcePorts {
  lake: LakeReader;
  rasters: RasterReader;
  stac: StacCatalogFactory;
  lakeRoot: string;
  availability: CollectionAvailability;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Bound where a ClickHouse cluster is configured. */
  pyramids?: ZonePyramidStore;
}

interface Finding {
  /** What is wrong, naming the config key and the value as configured. */
  problem?: { key: string; what: string };
  extent?: Extent;
}

const isRemote = (href: string) => /^https?:\/\//i.test(href);

/** What the readiness probe finds of one collection's local source. */
export interface SourceProbe {
  /** The collection's id. */
  id: string;
  optional: boolean;
  /** An optional source missing at start: its data routes answer 503 until a restart finds it. */
  missingAtStart: boolean;
  /** What is missing now, naming the config key; `what` may name server paths (for the log). */
  problem?: { key: string; what: string };
}

/**
 * The readiness probe's look at the collections' sources: for each collection whose source is
 * local (a directory lake, a raster file, a static catalog on disk), a probe running the start-up
 * check's test of it again, without reading extents (start read them). The readers keep what they
 * opened, so a probe of a source found before costs a file-system look at most. Sources elsewhere
 * (URLs, an object store) are not probed: the answer of a backend is each request's to give.
 */
export function sourceProbes(collections: readonly CollectionConfig[], ports: SourcePorts): { id: string; probe: () => Promise<SourceProbe> }[] {
  return collections.flatMap((c, i) => {
    if (!isLocal(c, ports)) return [];
    const optional = 'optional' in c.backing && c.backing.optional;
    const probe = async (): Promise<SourceProbe> => {
      // Its readers refuse it until a restart (see CollectionAvailability): nothing to look at.
      if (ports.availability.unavailable(c.id)) return { id: c.id, optional, missingAtStart: true };
      const { problem } = await inspect(c, i, ports, false);
      return { id: c.id, optional, missingAtStart: false, ...(problem ? { problem } : {}) };
    };
    return [{ id: c.id, probe }];
  });
}

function isLocal(c: CollectionConfig, ports: SourcePorts): boolean {
  const b = c.backing;
  if (b.kind === 'parquet-lake') return ports.lake.missingSource !== undefined;
  if (b.kind === 'raster-url') return !isRemote(b.url);
  if (b.kind === 'stac') return !isRemote(b.catalog);
  return false;
}

/**
 * The start-up check of the collections' local sources, and the extents their data gives: a
 * raster file, a directory lake's root and collection folder, a static STAC catalog on disk (remote
 * sources are not fetched at start). A missing source stops the start, naming the collection and
 * its config key, unless the backing is `optional`: then it is a warning and the collection's data
 * routes answer 503. Returns the extents found for collections the config gives none.
 */
export async function checkCollectionSources(collections: readonly CollectionConfig[], ports: SourcePorts): Promise<Map<string, Extent>> {
  const extents = new Map<string, Extent>();
  const errors: string[] = [];
  for (const [i, c] of collections.entries()) {
    const found = await inspect(c, i, ports, true);
    if (found.extent && !c.extent && (found.extent.spatial || found.extent.temporal)) extents.set(c.id, found.extent);
    if (!found.problem) continue;
    const { key, what } = found.problem;
    const message = `collection "${c.id}" (${key}): ${what}`;
    if ('optional' in c.backing && c.backing.optional) {
      ports.availability.markMissing(c.id, key);
      ports.logger.warn({ collection: c.id, key }, `${message}; it is optional: its data routes answer 503 until the source is in place and the service restarts`);
    } else errors.push(message);
  }
  if (errors.length > 0) throw new ConfigError(`${errors.join('\n')}\n(a collection whose source may be missing at start can say "optional": true in its backing)`);
  return extents;
}

/** `lakeExtent`: also read the extent of a lake collection's rows (the others come with the check). */
async function inspect(c: CollectionConfig, i: number, ports: SourcePorts, lakeExtent: boolean): Promise<Finding> {
  const at = (...keys: (string | number)[]) => formatPath(['collections', i, ...keys]);
  const b = c.backing;
  if (b.kind === 'parquet-lake') {
    const missing = await ports.lake.missingSource?.(c);
    if (missing === 'root') return { problem: { key: 'lake.root', what: `the lake root "${ports.lakeRoot}" does not exist` } };
    if (missing === 'folder') return { problem: { key: at('id'), what: `the lake has no folder "${c.id}" (its parquet files go under <lake.root>/${c.id}/data/)` } };
    // No files yet is no mistake (ingest may come later), and the extent is a nicety: neither stops the start.
    if (!lakeExtent) return {};
    const extent = c.extent ? undefined : await ports.lake.extent?.(c).catch((err: unknown) => void ports.logger.warn({ collection: c.id, err }, 'the extent of the lake data could not be read'));
    return extent ? { extent } : {};
  }
  if (b.kind === 'raster-url') {
    if (isRemote(b.url)) return {};
    try {
      const dataset = await ports.rasters.open(b.url, { trusted: true });
      return { extent: { spatial: { bbox: [dataset.info.bboxLonLat] } } };
    } catch (err) {
      const why = err instanceof AppError ? (err.hint ?? err.message) : String(err);
      return { problem: { key: at('backing', 'url'), what: `the raster "${b.url}" could not be opened: ${why}` } };
    }
  }
  if (b.kind === 'stac') {
    if (isRemote(b.catalog)) return {};
    const catalog = ports.stac(b.catalog, b.collections ? { collections: b.collections } : undefined);
    try {
      const extent = await catalog.extent?.();
      return extent ? { extent } : {};
    } catch (err) {
      if (err instanceof StacCatalogError) return { problem: { key: at('backing', 'catalog'), what: `the static STAC catalog "${b.catalog}" could not be read: ${err.message}` } };
      throw err;
    }
  }
  if (b.kind === 'clickhouse-pyramid') {
    // The cluster is no local source: a pyramid not reachable (or not yet ingested) at start stops
    // nothing, and its data routes answer what the store answers then (503 while a shard is down).
    if (!lakeExtent || c.extent || !ports.pyramids) return {};
    const layout = await pyramidLayout(ports.pyramids, b.table).catch((err: unknown) => void ports.logger.warn({ collection: c.id, err }, 'the pyramid\'s layout (its extent) could not be read at start'));
    return layout ? { extent: pyramidExtent(layout) } : {};
  }
  return {};
}

/** The published layout, or a rejection after PYRAMID_LOOK_MS. */
async function pyramidLayout(store: ZonePyramidStore, table: string): Promise<PyramidLayout | undefined> {
  const signal = AbortSignal.timeout(PYRAMID_LOOK_MS);
  const timedOut = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  return Promise.race([store.layout({ table }, signal), timedOut]);
}

/** What the rows of a pyramid covered, as its layout says. */
export function pyramidExtent(layout: PyramidLayout): Extent {
  const iso = (t: number) => new Date(t).toISOString();
  return {
    ...(layout.bbox ? { spatial: { bbox: [layout.bbox] } } : {}),
    ...(layout.timeExtent ? { temporal: { interval: [[iso(layout.timeExtent[0]), iso(layout.timeExtent[1])]] } } : {}),
  };
}
