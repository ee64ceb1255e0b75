import { readFileSync } from 'node:fs';
import { z } from '../schemas/zod.js';
import { defineRoute, json, type AnyRoute, type Reply } from '../route.js';
import { NotFoundError } from '../../ports/errors.js';
import type { RouteModule } from '../route-module.js';
import { ASSETS_VERSION, MAP_ASSETS, STYLE_PATH, assetPath } from '../html/map-assets.js';
import { basemapGeoJson, basemapStyle } from '../html/basemap.js';
import { FAVICON_SVG } from '../html/favicon.js';

export interface AssetRouteOptions {
  /** A MapLibre style URL the pages use in place of the offline basemap (config `map.basemapStyle`). */
  basemapStyle?: string | undefined;
}

/** Versioned URLs never change content: caches keep them a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The static files of the HTML pages' maps (MapLibre GL JS, the pages' map module, the offline
 * basemap), the basemap style and the favicon. Not OGC resources: kept out of the API document,
 * as the API viewer's files are. The files are under a path with the assets' version, so they
 * are `immutable` and a new release gets new URLs.
 */
export function assetRoutes(options: AssetRouteOptions = {}): RouteModule {
  const file = defineRoute({
    method: 'get',
    path: '/assets/{version}/{asset}',
    operationId: 'getPageAsset',
    summary: 'Static file of the HTML pages (map library, map module, basemap)',
    tags: ['Capabilities'],
    internal: true,
    params: z.object({ version: z.string(), asset: z.string() }),
    responses: {},
    // A revalidated copy of an immutable file stays immutable: its 304 carries the same Cache-Control.
    validators: { cacheControl: IMMUTABLE },
    handler: async ({ params }) => {
      const asset = MAP_ASSETS[params.asset];
      // An old version's files are gone: a stale page's cached copy serves it, or it reloads.
      if (!asset || params.version !== ASSETS_VERSION) throw new NotFoundError('Not found', `No asset ${params.asset} of version ${params.version}; the current one is ${ASSETS_VERSION}.`);
      const body = asset.file ? readKept(asset.file) : await basemapGeoJson();
      return { contentType: asset.type, body };
    },
  });

  const style = defineRoute({
    method: 'get',
    path: STYLE_PATH,
    operationId: 'getMapStyle',
    summary: 'MapLibre style of the HTML pages\' basemap',
    tags: ['Capabilities'],
    internal: true,
    responses: {},
    // Not versioned (the configured style may change): revalidated as grid answers are.
    validators: 'request',
    handler: async ({ links }): Promise<Reply> => {
      if (options.basemapStyle) return { status: 302, contentType: 'text/plain', body: '', headers: { Location: options.basemapStyle } };
      return json(basemapStyle(links.href(assetPath('basemap.geojson'))));
    },
  });

  const favicon = defineRoute({
    method: 'get',
    path: '/favicon.ico',
    operationId: 'getFavicon',
    summary: 'The service\'s icon (SVG)',
    tags: ['Capabilities'],
    internal: true,
    responses: {},
    // A day, on its 304s as on its answers.
    validators: { cacheControl: 'public, max-age=86400' },
    handler: async () => ({ contentType: 'image/svg+xml', body: FAVICON_SVG }),
  });

  return { routes: [file, style, favicon] satisfies AnyRoute[] };
}

/** Files read once and kept: MapLibre is about 1.7 MB in all, read on the first page view. */
const files = new Map<string, Buffer>();
function readKept(path: string): Buffer {
  let bytes = files.get(path);
  if (!bytes) files.set(path, (bytes = readFileSync(path)));
  return bytes;
}
