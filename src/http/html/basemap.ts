import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { feature, mesh } from 'topojson-client';
import { runStepped } from '../../ports/event-loop-turns.js';
import type { Stepped } from '../../domain/dggrs/dggrs.js';

const require = createRequire(import.meta.url);

/** Colours of the offline basemap (the screenshot tests of test/clients look for them). */
export const BASEMAP_COLOURS = { ocean: '#d6e6f2', land: '#f4f1e8', border: '#b9b2a0' } as const;

/** The Natural Earth package the basemap is made from, and its version (part of the assets' version). */
export const WORLD_ATLAS_VERSION: string = (require('world-atlas/package.json') as { version: string }).version;

/** Coordinates are kept to 1e-4° (about 10 m), far finer than 1:50m: the file is a third smaller. */
const round = (v: number) => Math.round(v * 1e4) / 1e4;
/** Polygons or lines written between two turns of the event loop. */
const PARTS_PER_STEP = 100;

/**
 * The offline world outline: land (one MultiPolygon) and the borders between countries (one
 * MultiLineString), from Natural Earth 1:50m through world-atlas, as GeoJSON FeatureCollection
 * text. About 1.5 MB and 100-200 ms of CPU in all: made in steps (runStepped) on first use, and kept.
 */
let kept: Promise<string> | undefined;
export function basemapGeoJson(): Promise<string> {
  kept ??= runStepped(basemapSteps());
  return kept;
}

function* basemapSteps(): Stepped<string> {
  const read = (name: string) => JSON.parse(readFileSync(require.resolve(`world-atlas/${name}`), 'utf8'));
  const land = read('land-50m.json');
  yield;
  // world-atlas's land is one GeometryCollection: a FeatureCollection of one feature.
  const landFeature = feature(land, land.objects.land) as GeoJSON.FeatureCollection | GeoJSON.Feature;
  const landGeometry = (landFeature.type === 'FeatureCollection' ? landFeature.features[0]!.geometry : landFeature.geometry) as GeoJSON.MultiPolygon;
  yield;
  const countries = read('countries-50m.json');
  yield;
  // Only the arcs shared by two countries: coastlines come from the land fill.
  const borders = mesh(countries, countries.objects.countries, (a, b) => a !== b);
  yield;
  const polygons: string[] = [];
  for (const polygon of landGeometry.coordinates) {
    polygons.push(JSON.stringify(polygon.map((ring) => ring.map(([x, y]) => [round(x!), round(y!)]))));
    if (polygons.length % PARTS_PER_STEP === 0) yield;
  }
  const lines: string[] = [];
  for (const line of borders.coordinates) {
    lines.push(JSON.stringify(line.map(([x, y]) => [round(x!), round(y!)])));
    if (lines.length % PARTS_PER_STEP === 0) yield;
  }
  const featureText = (kind: string, type: string, parts: string[]) => `{"type":"Feature","properties":{"kind":"${kind}"},"geometry":{"type":"${type}","coordinates":[${parts.join(',')}]}}`;
  return `{"type":"FeatureCollection","features":[${featureText('land', 'MultiPolygon', polygons)},${featureText('border', 'MultiLineString', lines)}]}`;
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
