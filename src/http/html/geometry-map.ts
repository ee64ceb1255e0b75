import type { Geometry } from '../../domain/geometry/geojson.js';
import { toWkt } from '../../domain/geometry/wkt.js';
import { svgMap, type MapContent, type SvgMap } from './svg-map.js';

export interface GeometryToDraw {
  geometry: Geometry | null;
  title: string;
  href?: string;
}

/** Items of a page on a map: points as dots, lines and polygons as outlines, each linking to its item. */
export function geometriesMap(items: readonly GeometryToDraw[], width = 560): SvgMap | undefined {
  const polygons: NonNullable<MapContent['polygons']> = [];
  const points: NonNullable<MapContent['points']> = [];
  const add = (g: Geometry, it: GeometryToDraw): void => {
    const link = it.href ? { href: it.href } : {};
    switch (g.type) {
      case 'Point':
        if (g.coordinates.length >= 2) points.push({ lon: g.coordinates[0]!, lat: g.coordinates[1]!, cls: 'pt', title: it.title, ...link });
        return;
      case 'MultiPoint':
        for (const p of g.coordinates) points.push({ lon: p[0]!, lat: p[1]!, cls: 'pt', title: it.title, ...link });
        return;
      case 'LineString':
        polygons.push({ rings: [g.coordinates], cls: 'geomline', title: it.title, open: true, ...link });
        return;
      case 'MultiLineString':
        polygons.push({ rings: g.coordinates, cls: 'geomline', title: it.title, open: true, ...link });
        return;
      case 'Polygon':
        polygons.push({ rings: g.coordinates, cls: 'geom', title: it.title, ...link });
        return;
      case 'MultiPolygon':
        for (const p of g.coordinates) polygons.push({ rings: p, cls: 'geom', title: it.title, ...link });
        return;
      case 'GeometryCollection':
        for (const part of g.geometries) add(part, it);
    }
  };
  for (const it of items) if (it.geometry) add(it.geometry, it);
  return svgMap({ polygons, points, graticule: true, width });
}

/** A geometry as WKT for a table cell, cut after `max` characters (the file formats carry it whole). */
export function geometryText(geometry: Geometry | null, max = 160): string {
  if (!geometry) return '';
  const wkt = toWkt(geometry);
  return wkt.length > max ? `${wkt.slice(0, max)}…` : wkt;
}
