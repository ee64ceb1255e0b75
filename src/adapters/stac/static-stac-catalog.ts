import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StacCatalogError, type StacCatalog, type StacItemDescriptor, type StacSearch } from '../../ports/stac-catalog.js';
import { matchesSearch, parseStacItem } from './stac-json.js';

/** Bounds on a walk through an operator's catalog, so a mistake (a link loop, a huge tree) cannot hang a request. */
const MAX_DEPTH = 16;
const MAX_DOCUMENTS = 100_000;

/**
 * A static STAC catalog on the local file system: catalog.json, its `child` links (catalogs and
 * collections, recursively) and `item` links, relative hrefs resolved against the file that holds
 * them. Relative paths stay relative to the working directory when the catalog path is, so asset
 * hrefs (shown as `source` links) do not reveal absolute server paths.
 *
 * The tree is read once, on the first search, and kept: a static catalog changes only with a
 * redeploy. http(s) catalogs are refused (they would need the fetch policy; not supported yet).
 */
export class StaticStacCatalog implements StacCatalog {
  private items: Promise<StacItemDescriptor[]> | undefined;

  constructor(private readonly href: string) {}

  async search(query: StacSearch): Promise<StacItemDescriptor[]> {
    if (!this.items) {
      this.items = this.load();
      // A failed read is retried on the next request (the operator may fix the files).
      this.items.catch(() => (this.items = undefined));
    }
    return (await this.items).filter((it) => matchesSearch(it, query));
  }

  private async load(): Promise<StacItemDescriptor[]> {
    const root = toPath(this.href, this.href);
    const items = new Map<string, StacItemDescriptor>();
    const seen = new Set<string>();
    const walk = async (file: string, depth: number): Promise<void> => {
      const key = path.resolve(file);
      if (seen.has(key)) return; // link loops (root/parent/self, or mistakes)
      if (seen.size >= MAX_DOCUMENTS) throw new StacCatalogError(this.href, `more than ${MAX_DOCUMENTS} documents`);
      if (depth > MAX_DEPTH) throw new StacCatalogError(this.href, `catalog nesting deeper than ${MAX_DEPTH} at ${file}`);
      seen.add(key);
      const doc = await readJson(file, this.href);
      const here = (href: string) => toPath(href, this.href, path.dirname(file));
      if (doc.type === 'Feature') {
        let item: StacItemDescriptor;
        try {
          item = parseStacItem(doc, (href) => (isUrl(href) && !href.toLowerCase().startsWith('file:') ? href : here(href)));
        } catch (err) {
          throw new StacCatalogError(this.href, `${file}: ${(err as Error).message}`);
        }
        // The same id twice (an item linked from two catalogs) is one item.
        if (!items.has(item.id)) items.set(item.id, item);
        return;
      }
      const links = Array.isArray(doc.links) ? (doc.links as unknown[]) : [];
      for (const link of links) {
        if (typeof link !== 'object' || link === null) continue;
        const { rel, href } = link as { rel?: unknown; href?: unknown };
        if ((rel === 'child' || rel === 'item') && typeof href === 'string') await walk(here(href), depth + 1);
      }
    };
    await walk(root, 0);
    return [...items.values()];
  }
}

function isUrl(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href) && !/^[a-z]:[\\/]/i.test(href);
}

/** A local path for `href`, relative to `base` (a directory) when relative; URLs other than file: are refused. */
function toPath(href: string, catalog: string, base?: string): string {
  if (isUrl(href)) {
    if (href.toLowerCase().startsWith('file:')) return fileURLToPath(href);
    throw new StacCatalogError(catalog, `only local catalogs are supported; cannot follow ${href}`);
  }
  return base === undefined || path.isAbsolute(href) ? path.normalize(href) : path.join(base, href);
}

async function readJson(file: string, catalog: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new StacCatalogError(catalog, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
    return doc as Record<string, unknown>;
  } catch (err) {
    throw new StacCatalogError(catalog, `${file} is not valid JSON: ${(err as Error).message}`);
  }
}
