import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BASEMAP_COLOURS, WORLD_ATLAS_VERSION } from './basemap.js';

const require = createRequire(import.meta.url);
const maplibreDist = path.join(path.dirname(require.resolve('maplibre-gl/package.json')), 'dist');
const MAPLIBRE_VERSION: string = (require('maplibre-gl/package.json') as { version: string }).version;
const MAP_MODULE = path.join(import.meta.dirname, 'assets', 'map.js');

/** A file the pages load: read from `file`, or (the basemap) made by the service. */
export interface MapAsset {
  type: string;
  file?: string;
}

/**
 * The files the pages' maps load, by the name in their URL. MapLibre 6 is ES modules only; its
 * main module starts its worker from `./maplibre-gl-worker.mjs` beside itself (import.meta.url),
 * so both are served side by side. Never the `-dev` builds or the source maps.
 */
export const MAP_ASSETS: Record<string, MapAsset> = {
  'maplibre-gl.mjs': { type: 'text/javascript', file: path.join(maplibreDist, 'maplibre-gl.mjs') },
  'maplibre-gl-worker.mjs': { type: 'text/javascript', file: path.join(maplibreDist, 'maplibre-gl-worker.mjs') },
  'maplibre-gl.css': { type: 'text/css', file: path.join(maplibreDist, 'maplibre-gl.css') },
  'map.js': { type: 'text/javascript', file: MAP_MODULE },
  'basemap.geojson': { type: 'application/geo+json' },
};

/**
 * The version in the assets' URLs: a hash of what their content comes from (the library and data
 * versions, our map module, the basemap's colours). A change gives new URLs, so the files can be
 * cached as immutable.
 */
export const ASSETS_VERSION = createHash('sha256')
  .update([MAPLIBRE_VERSION, WORLD_ATLAS_VERSION, JSON.stringify(BASEMAP_COLOURS)].join('\n'))
  .update(readFileSync(MAP_MODULE))
  .digest('base64url')
  .slice(0, 12);

/** The path of an asset under the current version. */
export const assetPath = (name: string) => `/assets/${ASSETS_VERSION}/${name}`;

/** The basemap style: not versioned, as a configured style may replace it. */
export const STYLE_PATH = '/assets/style.json';
