import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StacCatalogError, type StacCatalog, type StacItemDescriptor, type StacSearch } from '../../ports/stac-catalog.js';
import { matchesSearch, parseStacItem } from './stac-json.js';
import { extentOf, unionBox } from '../../domain/extent-union.js';
import type { Extent } from '../../domain/collection.js';
import type { SourceVersion } from '../../ports/source-version.js';

/** Bounds on a walk through an operator's catalog, so a mistake (a link loop, a huge tree) cannot hang a request. */
const MAX_DEPTH = 16;
const MAX_DOCUMENTS = 100_000;
/** Documents read at once from an HTTP catalog. */
const HTTP_CONCURRENCY = 8;

/** Where a static catalog's documents come from: the local file system, or HTTP (see http-stac-documents.ts). */
export interface StacDocuments {
  /** The location `href` names, relative to the document at `base` (a location) when relative. */
  resolve(href: string, base?: string): string;
  read(location: string): Promise<Record<string, unknown>>;
  /** The href readers open for an item's asset; undefined drops the asset. */
  asset(href: string, itemLocation: string): string | undefined;
  readonly maxDocuments: number;
  readonly concurrency: number;
  /** The document's version when it is cheap to know (a file's size and modification time); absent otherwise. */
  stamp?(location: string): Promise<SourceVersion>;
}

/**
 * A static STAC catalog: catalog.json, its `child` links (catalogs and collections,
 * recursively) and `item` links, relative hrefs resolved against the document that holds them.
 * On disk by default; over HTTP with HttpStacDocuments.
 *
 * The tree is read once, on the first search, and kept: a static catalog changes only with a
 * redeploy.
 */
export class StaticStacCatalog implements StacCatalog {
  private items: Promise<StacItemDescriptor[]> | undefined;
  /** The root document's stamp when the tree was read. */
  private readStamp: Promise<SourceVersion | undefined> | undefined;
  private readonly docs: StacDocuments;

  constructor(
    private readonly href: string,
    docs?: StacDocuments,
  ) {
    this.docs = docs ?? new FileStacDocuments(href);
  }

  async search(query: StacSearch): Promise<StacItemDescriptor[]> {
    return (await this.loaded()).filter((it) => matchesSearch(it, query));
  }

  /** The union of the items' bboxes, and their first and last instants. */
  async extent(): Promise<Extent | undefined> {
    const items = await this.loaded();
    if (items.length === 0) return undefined;
    let start: number | null = null;
    let end: number | null = null;
    for (const it of items) {
      const s = it.start ?? it.end, e = it.end ?? it.start;
      if (s !== null && (start === null || s < start)) start = s;
      if (e !== null && (end === null || e > end)) end = e;
    }
    return extentOf(unionBox(items.map((it) => it.bbox)), start, end);
  }

  /**
   * The root document's stamp (its size and modification time on disk); undefined over HTTP. A
   * root found changed since the tree was read makes the next search read the tree again (an
   * operator who edits the catalog touches its root).
   */
  async version(): Promise<SourceVersion | undefined> {
    const { docs } = this;
    if (!docs.stamp) return undefined;
    const now = await docs.stamp(docs.resolve(this.href));
    const read = await this.readStamp?.catch(() => undefined);
    if (read && read.id !== now.id) {
      this.items = undefined;
      this.readStamp = undefined;
    }
    return now;
  }

  private loaded(): Promise<StacItemDescriptor[]> {
    if (!this.items) {
      // Stamped before reading: a change while reading shows at the next look.
      this.readStamp = this.docs.stamp?.(this.docs.resolve(this.href));
      this.items = this.load();
      // A failed read is retried on the next request (the operator may fix the files).
      this.items.catch(() => (this.items = undefined));
    }
    return this.items;
  }

  private async load(): Promise<StacItemDescriptor[]> {
    const { docs } = this;
    const items = new Map<string, StacItemDescriptor>();
    const seen = new Set<string>();
    let level: string[] = [docs.resolve(this.href)];
    // Breadth first, a level at a time, some documents at once (HTTP catalogs).
    for (let depth = 0; level.length > 0; depth++) {
      const next: string[] = [];
      const todo = level.filter((loc) => !seen.has(loc) && seen.add(loc)); // link loops (root/parent/self, or mistakes)
      if (todo.length > 0 && depth > MAX_DEPTH) throw new StacCatalogError(this.href, `catalog nesting deeper than ${MAX_DEPTH} at ${todo[0]}`);
      if (seen.size > docs.maxDocuments) throw new StacCatalogError(this.href, `more than ${docs.maxDocuments} documents`);
      for (let i = 0; i < todo.length; i += docs.concurrency) {
        const batch = todo.slice(i, i + docs.concurrency);
        const read = await Promise.all(batch.map((loc) => docs.read(loc)));
        read.forEach((doc, j) => {
          const location = batch[j]!;
          if (doc.type === 'Feature') {
            let item: StacItemDescriptor;
            try {
              item = parseStacItem(doc, (href) => docs.asset(href, location));
            } catch (err) {
              throw new StacCatalogError(this.href, `${location}: ${(err as Error).message}`);
            }
            // The same id twice (an item linked from two catalogs) is one item.
            if (!items.has(item.id)) items.set(item.id, item);
            return;
          }
          for (const link of Array.isArray(doc.links) ? (doc.links as unknown[]) : []) {
            if (typeof link !== 'object' || link === null) continue;
            const { rel, href } = link as { rel?: unknown; href?: unknown };
            if ((rel === 'child' || rel === 'item') && typeof href === 'string') next.push(docs.resolve(href, location));
          }
        });
      }
      level = next;
    }
    return [...items.values()];
  }
}

/**
 * Documents on the local file system. Relative paths stay relative to the working directory
 * when the catalog path is, so asset hrefs (shown as `source` links) do not reveal absolute
 * server paths. URLs other than file: are refused here.
 */
export class FileStacDocuments implements StacDocuments {
  readonly maxDocuments = MAX_DOCUMENTS;
  readonly concurrency = 1;

  constructor(private readonly catalog: string) {}

  resolve(href: string, base?: string): string {
    if (isUrl(href)) {
      if (href.toLowerCase().startsWith('file:')) return fileURLToPath(href);
      throw new StacCatalogError(this.catalog, `a catalog on disk links to ${href}; give the catalog's URL instead to read it over HTTP`);
    }
    return base === undefined || path.isAbsolute(href) ? path.normalize(href) : path.join(path.dirname(base), href);
  }

  asset(href: string, itemLocation: string): string {
    return isUrl(href) && !href.toLowerCase().startsWith('file:') ? href : this.resolve(href, itemLocation);
  }

  async stamp(file: string): Promise<SourceVersion> {
    try {
      const st = await stat(file);
      return { id: `${st.size}:${st.mtimeMs}`, modifiedMs: st.mtimeMs };
    } catch (err) {
      return { id: `unreadable:${(err as NodeJS.ErrnoException).code ?? ''}` };
    }
  }

  async read(file: string): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new StacCatalogError(this.catalog, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return parseDocument(text, this.catalog, file);
  }
}

export const HTTP_STAC_LIMITS = { maxDocuments: 5000, concurrency: HTTP_CONCURRENCY };

export function isUrl(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href) && !/^[a-z]:[\\/]/i.test(href);
}

export function parseDocument(text: string, catalog: string, where: string): Record<string, unknown> {
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
    return doc as Record<string, unknown>;
  } catch (err) {
    throw new StacCatalogError(catalog, `${where} is not valid JSON: ${(err as Error).message}`);
  }
}
