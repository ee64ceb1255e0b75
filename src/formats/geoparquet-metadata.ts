import type { ZonePolygon } from '../domain/geometry/rfc7946.js';
import { encodeZoneWkb } from '../domain/geometry/zone-wkb.js';

/**
 * GeoParquet 1.1 `geo` metadata for a WKB `geometry` column of zone outlines, gathered while the
 * rows are encoded: zone lists and zone data write the same kind of column, so they share this.
 * CRS is left out (the default, OGC:CRS84); edges are planar and exteriors counterclockwise,
 * as the RFC 7946 helpers produce them.
 */
export class ZoneGeometryColumn {
  private readonly types = new Set<string>();
  private readonly bbox = [Infinity, Infinity, -Infinity, -Infinity];
  private count = 0;

  /** WKB of one zone geometry; records its type and extent for the metadata. */
  wkb(g: ZonePolygon): Uint8Array {
    this.types.add(g.type);
    this.extend(g);
    this.count++;
    return encodeZoneWkb(g);
  }

  metadata(column = 'geometry'): object {
    return {
      version: '1.1.0',
      primary_column: column,
      columns: {
        [column]: {
          encoding: 'WKB',
          geometry_types: [...this.types].sort(),
          orientation: 'counterclockwise',
          edges: 'planar',
          ...(this.count ? { bbox: [...this.bbox] } : {}),
        },
      },
    };
  }

  private extend(g: ZonePolygon): void {
    const b = this.bbox;
    const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
    for (const p of polys) for (const [x, y] of p[0]!) {
      b[0] = Math.min(b[0]!, x!);
      b[1] = Math.min(b[1]!, y!);
      b[2] = Math.max(b[2]!, x!);
      b[3] = Math.max(b[3]!, y!);
    }
  }
}
