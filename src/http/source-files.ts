import path from 'node:path';
import { readFile, realpath, stat } from 'node:fs/promises';
import type { Collection } from '../domain/collection.js';

/** Service path of a collection's source file. */
export const sourcePath = (collectionId: string, name: string) => `/collections/${encodeURIComponent(collectionId)}/source/${encodeURIComponent(name)}`;

/** A static STAC catalog may name at most this many documents; the rest are not served. */
const MAX_STAC_DOCUMENTS = 10_000;
const isRemote = (href: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(href);

/** The directory a collection's source names are relative to, when its source is a local file. */
function sourceRoot(c: Collection): string | undefined {
  const b = c.backing;
  if (b.kind === 'raster-url' && !isRemote(b.url)) return path.dirname(path.resolve(b.url));
  if (b.kind === 'stac' && !isRemote(b.catalog)) return path.dirname(path.resolve(b.catalog));
  return undefined;
}

/**
 * The service path that would serve local file `href` of one of `collections` (its name is the
 * path relative to the configured file's directory), or undefined when no collection's source
 * directory holds it. Whether the file is really served is decided when it is asked for.
 */
export function servedPath(collections: readonly Collection[], href: string): string | undefined {
  if (isRemote(href)) return undefined;
  const file = path.resolve(href);
  for (const c of collections) {
    const root = sourceRoot(c);
    if (!root) continue;
    const name = path.relative(root, file);
    if (!name || name.startsWith('..') || path.isAbsolute(name)) continue;
    if (c.backing.kind === 'raster-url' && file !== path.resolve(c.backing.url)) continue;
    return sourcePath(c.id, name.split(path.sep).join('/'));
  }
  return undefined;
}

/**
 * A `source` link's href as a browser can follow it: remote URLs as they are, service paths
 * (`/collections/...`) and served local files as absolute URLs; undefined for a local file this
 * service does not serve (the link is then left out: a server path means nothing to a client).
 */
export function publicSourceHref(collections: readonly Collection[], href: string, toUrl: (servicePath: string) => string): string | undefined {
  if (isRemote(href)) return href;
  if (href.startsWith('/collections/')) return toUrl(href);
  const served = servedPath(collections, href);
  return served ? toUrl(served) : undefined;
}

export interface SourceFile {
  file: string;
  size: number;
  mtimeMs: number;
  type: string;
}

const TYPES: Record<string, string> = {
  '.tif': 'image/tiff; application=geotiff',
  '.tiff': 'image/tiff; application=geotiff',
  '.pmtiles': 'application/vnd.pmtiles',
  '.json': 'application/json',
};

/**
 * The local files a collection's config names, which `/collections/{id}/source/{name}` serves
 * read-only: a raster-url collection's file, and a static STAC catalog on disk (the catalog, the
 * catalogs and items it links, and each item's configured asset). `name` is the file's path
 * relative to the configured file's directory; a request is answered only when that name is in
 * the set, it is never joined onto a directory, so nothing else on disk can be reached. Remote
 * (http/https) sources are linked as they are and never proxied.
 */
export class SourceFiles {
  /** Built once per collection, on first use (the static catalogs themselves are read once too). */
  private readonly sets = new Map<string, Promise<Map<string, string>>>();

  /** The served file of a collection by name, or undefined. */
  async open(collection: Collection, name: string): Promise<SourceFile | undefined> {
    const file = (await this.served(collection)).get(name);
    if (!file) return undefined;
    try {
      const info = await stat(file);
      if (!info.isFile()) return undefined;
      return { file, size: info.size, mtimeMs: info.mtimeMs, type: TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
    } catch {
      return undefined;
    }
  }

  private served(c: Collection): Promise<Map<string, string>> {
    let set = this.sets.get(c.id);
    if (!set) this.sets.set(c.id, (set = this.build(c)));
    return set;
  }

  private async build(c: Collection): Promise<Map<string, string>> {
    const b = c.backing;
    const root = sourceRoot(c);
    const out = new Map<string, string>();
    if (!root) return out;
    if (b.kind === 'raster-url') {
      const file = path.resolve(b.url);
      out.set(path.basename(file), file);
    }
    if (b.kind === 'stac') {
      for (const file of await stacFiles(path.resolve(b.catalog), b.asset)) {
        const name = path.relative(root, file);
        // Files outside the catalog's directory have no name here: not served, not linked.
        if (!name.startsWith('..') && !path.isAbsolute(name)) out.set(name.split(path.sep).join('/'), file);
      }
    }
    // Symlinks must not lead out of where the configured file lives.
    const realRoot = await realpath(root).catch(() => undefined);
    for (const [name, file] of out) {
      const real = await realpath(file).catch(() => undefined);
      if (!real || !realRoot || path.relative(realRoot, real).startsWith('..')) out.delete(name);
    }
    return out;
  }
}

/** The catalog, the child catalogs and items it links (local, relative hrefs), and each item's `asset`. */
async function stacFiles(catalog: string, asset: string): Promise<string[]> {
  const seen = new Set<string>();
  const files: string[] = [];
  const queue = [catalog];
  while (queue.length && seen.size < MAX_STAC_DOCUMENTS) {
    const doc = queue.shift()!;
    if (seen.has(doc)) continue;
    seen.add(doc);
    let json: { type?: string; links?: { rel?: string; href?: string }[]; assets?: Record<string, { href?: string }> };
    try {
      json = JSON.parse(await readFile(doc, 'utf8'));
    } catch {
      continue;
    }
    files.push(doc);
    const here = path.dirname(doc);
    const local = (href: unknown) => (typeof href === 'string' && href && !isRemote(href) ? path.resolve(here, href) : undefined);
    if (json.type === 'Feature') {
      const file = local(json.assets?.[asset]?.href);
      if (file) files.push(file);
      continue;
    }
    for (const link of json.links ?? []) {
      const file = link.rel === 'child' || link.rel === 'item' ? local(link.href) : undefined;
      if (file) queue.push(file);
    }
  }
  return files;
}
