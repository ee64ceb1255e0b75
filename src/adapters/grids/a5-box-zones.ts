import * as a5 from 'a5-js';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import type { CellTree } from './cell-tree-box-zones.js';
import { DEG } from './lon-lat.js';

/** The radius of the sphere A5 divides (its authalic Earth), metres. */
const A5_RADIUS = Math.sqrt(a5.cellArea(-1) / (4 * Math.PI));

/**
 * Every descendant of an A5 cell (its index children, grandchildren, ..., which do not nest in it) lies
 * within this many times the square root of the cell's area of its centre, on the sphere of geodetic
 * latitude and longitude: measured at most 1.18 over random cells of resolutions 1-7 and depths 1-4
 * (0.72 at resolution 0); kept with a margin (the unit tests re-measure it).
 */
export const A5_DESCENDANT_REACH = 1.5;

/** Cap radius (radians) around a cell of `level` holding all its descendants. */
export function a5DescendantReach(level: number): number {
  return (A5_DESCENDANT_REACH * Math.sqrt(a5.cellArea(level))) / A5_RADIUS;
}

/**
 * A5's index hierarchy for the zone lists of a box: ascending cell id (the order of A5's space-filling
 * curve) is the depth-first order of cellToChildren, and every cell of a resolution above 0 has the same
 * number of descendants at each finer one.
 */
export function a5CellTree(extent: (cell: bigint) => BBox): CellTree<bigint> {
  return {
    roots: a5.getRes0Cells(),
    // One unit is one cell centre from a5-js (about 5 microseconds); an extent traces a refined outline.
    workPerStep: 200,
    extentWork: 20,
    cellCount: (level) => a5.getNumCells(level),
    children: (cell) => a5.cellToChildren(cell),
    descendantCount: (_cell, cellLevel, level) => a5.getNumChildren(cellLevel, level),
    cap: (cell, level) => {
      const [lon, lat] = a5.cellToLonLat(cell);
      return [lat * DEG, lon * DEG, a5DescendantReach(level)];
    },
    extent,
    id: (cell) => a5.u64ToHex(cell),
  };
}
