/**
 * Zones of many points by patches: a lattice of small lon/lat cells, filled as points arrive. A cell
 * whose whole area lies within the clearance the grid gives at its centre (Dggrs.zoneKeyClearance)
 * takes that centre's zone; every point in it is then binned with two multiplications and a lookup
 * instead of a projection. Other cells are marked mixed and their points are located one by one. So
 * the answers are those of locating every point; only the work differs.
 *
 * Cells are a tenth of a zone's radius, grouped in tiles of 64 x 64 made on demand, at most MAX_TILES
 * of them (4 MiB); beyond, and poleward of 85 degrees, points are located one by one.
 */
import type { Dggrs } from '../dggrs/dggrs.js';

/** What `valueAt` gives for a point it cannot settle: the caller locates it itself. */
export const LOCATE = -2;

const UNKNOWN = -0x80000000;
const TILE_BITS = 6;
const TILE = 1 << TILE_BITS;
const MAX_TILES = 256;
const MAX_LAT = 85;
const DEG = Math.PI / 180;
/** The authalic radius of WGS84, m: zone areas in radians squared. */
const AUTHALIC_RADIUS = 6_371_007.2;

interface Tile {
  cells: Int32Array;
  /** Largest centre-to-corner distance of its cells, radians. */
  radius: number;
}

export class ZonePatches {
  /** Cells per degree. */
  private readonly perDeg: number;
  private readonly tileCols: number;
  private readonly tiles = new Map<number, Tile>();
  private lastKey = -1;
  private lastTile: Tile | null = null;
  private readonly out = new Float64Array(2);

  /**
   * `value(key)`: what a cell holding only the zone of that key stands for (a slot, say), an integer
   * of -1 or more.
   */
  constructor(
    private readonly grid: Dggrs & Pick<Required<Dggrs>, 'zoneKeyClearance'>,
    private readonly level: number,
    private readonly value: (key: number) => number,
  ) {
    const zoneRadiusDeg = Math.sqrt(grid.levelInfo(level).zoneAreaMetersSquare / Math.PI) / AUTHALIC_RADIUS / DEG;
    this.perDeg = 10 / zoneRadiusDeg;
    this.tileCols = Math.ceil((360 * this.perDeg) / TILE) + 1;
  }

  /** The value of the point's cell, or LOCATE. */
  valueAt(lon: number, lat: number): number {
    if (!(lat >= -MAX_LAT && lat <= MAX_LAT && lon >= -180 && lon <= 180)) return LOCATE;
    const row = Math.floor((lat + 90) * this.perDeg);
    const col = Math.floor((lon + 180) * this.perDeg);
    const key = Math.floor(row / TILE) * this.tileCols + Math.floor(col / TILE);
    const tile = key === this.lastKey ? this.lastTile : this.tile(key, row);
    if (!tile) return LOCATE;
    const i = (row % TILE) * TILE + (col % TILE);
    let v = tile.cells[i]!;
    if (v === UNKNOWN) v = tile.cells[i] = this.settle(row, col, tile.radius);
    return v;
  }

  private tile(key: number, row: number): Tile | null {
    let tile = this.tiles.get(key) ?? null;
    if (!tile && this.tiles.size < MAX_TILES) {
      tile = { cells: new Int32Array(TILE * TILE).fill(UNKNOWN), radius: this.radiusOfRows(row - (row % TILE)) };
      this.tiles.set(key, tile);
    }
    this.lastKey = key;
    this.lastTile = tile;
    return tile;
  }

  /** A cell's value: the zone of its centre when the clearance there covers the cell, else LOCATE. */
  private settle(row: number, col: number, radius: number): number {
    const lat = (row + 0.5) / this.perDeg - 90, lon = (col + 0.5) / this.perDeg - 180;
    this.grid.zoneKeyClearance(lon, lat, this.level, this.out);
    return this.out[1]! > radius ? this.value(this.out[0]!) : LOCATE;
  }

  /**
   * The largest distance from a cell's centre to its corners over a tile's rows (that of the row
   * nearest the equator, whose cells are widest), with a margin for points rounded into a neighbouring
   * cell.
   */
  private radiusOfRows(firstRow: number): number {
    const side = 1 / this.perDeg;
    const lastRow = firstRow + TILE - 1;
    let radius = 0;
    for (const row of [firstRow, lastRow, Math.min(lastRow, Math.max(firstRow, Math.floor(90 * this.perDeg)))]) {
      const lat0 = row * side - 90, lat1 = lat0 + side, latC = lat0 + side / 2;
      radius = Math.max(radius, haversine(latC, side / 2, lat0), haversine(latC, side / 2, lat1));
    }
    return radius * (1 + 1e-6) + 1e-15;
  }
}

/** Angle, radians, between (latA, 0) and (latB, dLon), degrees in. */
function haversine(latA: number, dLon: number, latB: number): number {
  const a = latA * DEG, b = latB * DEG;
  const h = Math.sin((b - a) / 2) ** 2 + Math.cos(a) * Math.cos(b) * Math.sin((dLon * DEG) / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}
