import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { feature, mesh } from 'topojson-client';

const require = createRequire(import.meta.url);

/** Colours of the offline basemap (the screenshot tests of test/clients look for them). */
export const BASEMAP_COLOURS = { ocean: '#d6e6f2', land: '#f4f1e8', border: '#b9b2a0' } as const;

/** The Natural Earth package the basemap is made from, and its version (part of the assets' version). */
export const WORLD_ATLAS_VERSION: string = (require('world-atlas/package.json') as { version: string }).version;

/** Coordinates are kept to 1e-4° (about 10 m), far finer than 1:50m: the file is a third smaller. */
const round = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * The offline world outline: land (one MultiPolygon) and the borders between countries (one
 * MultiLineString), from Natural Earth 1:50m through world-atlas, as a GeoJSON FeatureCollection
 * text. About 90 ms and 1.5 MB: made on first use and kept.
 */
let kept: string | undefined;
export function basemapGeoJson(): string {
  if (kept !== undefined) return kept;
  const read = (name: string) => JSON.parse(readFileSync(require.resolve(`world-atlas/${name}`), 'utf8'));
  const land = read('land-50m.json');
  const countries = read('countries-50m.json');
  // world-atlas's land is one GeometryCollection: a FeatureCollection of one feature.
  const landFeature = feature(land, land.objects.land) as GeoJSON.FeatureCollection | GeoJSON.Feature;
  const landGeometry = landFeature.type === 'FeatureCollection' ? landFeature.features[0]!.geometry : landFeature.geometry;
  // Only the arcs shared by two countries: coastlines come from the land fill.
  const borders = mesh(countries, countries.objects.countries, (a, b) => a !== b);
  const collection = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { kind: 'land' }, geometry: landGeometry },
      { type: 'Feature', properties: { kind: 'border' }, geometry: borders },
    ],
  };
  kept = JSON.stringify(collection, (_k, v: unknown) => (typeof v === 'number' ? round(v) : v));
  return kept;
}

/** The default MapLibre style: ocean background, land fill, thin country borders, all from `basemapUrl`. */
export function basemapStyle(basemapUrl: string): object {
  return {
    version: 8,
    name: 'dggs-api offline basemap',
    sources: { basemap: { type: 'geojson', data: basemapUrl, attribution: 'Natural Earth' } },
    layers: [
      { id: 'ocean', type: 'background', paint: { 'background-color': BASEMAP_COLOURS.ocean } },
      { id: 'land', type: 'fill', source: 'basemap', filter: ['==', ['get', 'kind'], 'land'], paint: { 'fill-color': BASEMAP_COLOURS.land } },
      { id: 'borders', type: 'line', source: 'basemap', filter: ['==', ['get', 'kind'], 'border'], paint: { 'line-color': BASEMAP_COLOURS.border, 'line-width': 0.6 } },
    ],
  };
}
