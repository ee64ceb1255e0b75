import type { FetchPolicy } from './url-guard.js';
import type { GuardedRangeReader } from './guarded-http.js';
import type { RasterDataset, RasterWindow, WindowRequest } from '../../ports/raster-reader.js';
import type { SourceVersion } from '../../ports/source-version.js';
import { AppError } from '../../ports/errors.js';

/**
 * Rasters named by config are trusted (the operator chose them): they may live on private
 * networks or on disk, and stay open between requests. Ad-hoc `cog-url` rasters get the
 * configured policy and are never cached. Even a trusted host gets no response larger than a
 * client request's whole budget: a host that ignores Range must not make the service hold a
 * large file in memory; and their bodies count in the same in-flight budget as everyone's.
 */
export function trustedPolicy(untrusted: FetchPolicy): FetchPolicy {
  return {
    allowedSchemes: ['http', 'https', 'file'],
    allowedHosts: [],
    allowPrivateNetworks: true,
    maxBytes: Math.min(untrusted.maxBytes, untrusted.maxRequestBytes ?? untrusted.maxBytes),
    timeoutMs: 60_000,
    maxRedirects: 5,
    ...(untrusted.inFlight ? { inFlight: untrusted.inFlight } : {}),
  };
}

/** How often, at most, a trusted raster's file is looked at again to see whether it changed. */
export const RECHECK_MS = 1000;

/** What the cache needs of an open dataset beyond the port. */
export interface CachedDataset extends RasterDataset {
  /** The http reader of a remote raster (what it learned of the file's version); undefined for a local file. */
  readonly remote: GuardedRangeReader | undefined;
}

interface Entry {
  opened: Promise<{ lease: Lease; stamp: SourceVersion | undefined }>;
  checkedAt: number;
  checking?: Promise<void> | undefined;
}

/**
 * Open datasets by href, oldest evicted first; a failed open is forgotten so it can be retried.
 * A dataset whose file changed (its stamp, a local file's size and time, looked at again at most
 * every `recheckMs`; a remote host stating another ETag) is replaced: the requests after the look
 * open the file afresh. A replaced or evicted dataset is closed, dropping its decoded tiles, once the reads
 * running on it end.
 */
export class DatasetCache<T extends CachedDataset> {
  private readonly open = new Map<string, Entry>();

  constructor(
    private readonly limit = 16,
    /** The current stamp of a local file; undefined for a remote raster (its host states its version). */
    private readonly stampOf: (href: string) => Promise<SourceVersion | undefined> = async () => undefined,
    private readonly recheckMs = RECHECK_MS,
  ) {}

  async get(href: string, load: () => Promise<T>): Promise<RasterDataset> {
    return (await this.entry(href, load).opened).lease;
  }

  /** The version of the raster at `href` (opened if it is not yet): its file's stamp, else what its host stated. */
  async version(href: string, load: () => Promise<T>): Promise<SourceVersion | undefined> {
    const { lease, stamp } = await this.entry(href, load).opened;
    return stamp ?? lease.dataset.remote?.version;
  }

  /**
   * The entry of `href`, looked at again in the background when due: no request waits for the
   * look (a file system call queued behind the reads of busy rasters), so requests are never held
   * back together and let go at once. A change found serves the requests after it.
   */
  private entry(href: string, load: () => Promise<T>): Entry {
    const e = this.open.get(href);
    if (e && !e.checking && Date.now() - e.checkedAt >= this.recheckMs) e.checking = this.recheck(href, e).finally(() => (e.checking = undefined));
    return e ?? this.create(href, load);
  }

  private create(href: string, load: () => Promise<T>): Entry {
    // The stamp is taken before the file is opened: a change in between shows at the next look.
    const e: Entry = {
      opened: this.stampOf(href).then(async (stamp) => ({ lease: new Lease(await load(), () => this.forget(href, e)), stamp })),
      checkedAt: Date.now(),
    };
    const { opened } = e;
    this.open.set(href, e);
    opened.catch(() => this.forget(href, e));
    if (this.open.size > this.limit) {
      const [oldest, old] = this.open.entries().next().value!;
      this.forget(oldest, old);
    }
    return e;
  }

  private async recheck(href: string, e: Entry): Promise<void> {
    let changed: boolean;
    try {
      const { lease, stamp } = await e.opened;
      changed = (await this.stampOf(href))?.id !== stamp?.id || lease.dataset.remote?.changed === true;
    } catch {
      return; // a failed open is forgotten already
    }
    e.checkedAt = Date.now();
    if (changed) this.forget(href, e);
  }

  /** Drops the entry (if it is still the one cached) and retires its dataset. */
  private forget(href: string, e: Entry): void {
    if (this.open.get(href) === e) this.open.delete(href);
    e.opened.then(({ lease }) => lease.retire(), () => undefined);
  }
}

/**
 * An open dataset as requests share it. Once retired it is closed when no read of it is running,
 * and a read asked of it after that is refused with a retryable 503 (a request that opened it
 * before the change); its own file descriptor is never read after it is closed.
 */
class Lease implements RasterDataset {
  private reads = 0;
  private retired = false;
  private closed = false;

  constructor(
    readonly dataset: CachedDataset,
    /** Forgets the lease in its cache (which then retires it). */
    private readonly release: () => void,
  ) {}

  get info() {
    return this.dataset.info;
  }

  async readWindow(request: WindowRequest): Promise<RasterWindow> {
    if (this.closed) throw new AppError('unavailable', 'Raster changed', 'The raster changed while this request read it; ask again.', 1);
    this.reads++;
    try {
      return await this.dataset.readWindow(request);
    } finally {
      if (--this.reads === 0 && this.retired) this.shut();
    }
  }

  /** Done with the raster: the cache forgets it (the next open reads the file afresh) and it closes once its reads end. */
  async close(): Promise<void> {
    this.release();
  }

  retire(): void {
    this.retired = true;
    if (this.reads === 0) this.shut();
  }

  private shut(): void {
    if (this.closed) return;
    this.closed = true;
    this.dataset.close().catch(() => undefined);
  }
}
