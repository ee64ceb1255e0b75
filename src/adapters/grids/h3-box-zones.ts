import * as h3 from 'h3-js';
import type { BBox } from '../../domain/dggrs/dggrs.js';
import type { CellTree } from './cell-tree-box-zones.js';
import { DEG, angleBetween, unitVector } from './lon-lat.js';

/**
 * Every descendant of a cell, at any finer resolution, lies within this many times the cell's own
 * circumradius (centre to farthest corner) of its centre: measured at most 1.07 over random cells and
 * pentagons at depths 1-4; kept with a margin (the unit tests re-measure it).
 */
export const DESCENDANT_REACH = 1.35;

/** Centre [lat, lon] (radians) and circumradius of a cell: the farthest corner from its centre. */
export function h3CellCircle(cell: string): [number, number, number] {
  const [lat, lon] = h3.cellToLatLng(cell);
  const centre = unitVector(lon, lat);
  let radius = 0;
  for (const [vlat, vlon] of h3.cellToBoundary(cell)) radius = Math.max(radius, angleBetween(centre, unitVector(vlon, vlat)));
  return [lat * DEG, lon * DEG, radius];
}

/**
 * H3's cell hierarchy for the zone lists of a box: ascending index order is the depth-first order of
 * cellToChildren, runs are counted with cellToChildrenSize and paged with childPosToCell.
 */
export function h3CellTree(extent: (cell: string) => BBox): CellTree<string> {
  return {
    roots: h3.getRes0Cells(),
    // One unit is about one cell boundary from h3 (a few microseconds); an extent is one more boundary.
    workPerStep: 400,
    extentWork: 1,
    cellCount: (level) => h3.getNumCells(level),
    children: (cell, level) => h3.cellToChildren(cell, level + 1),
    descendantCount: (cell, _cellLevel, level) => h3.cellToChildrenSize(cell, level),
    descendantAt: (cell, pos, level) => h3.childPosToCell(pos, cell, level),
    cap: (cell) => {
      const [lat, lon, radius] = h3CellCircle(cell);
      return [lat, lon, DESCENDANT_REACH * radius];
    },
    extent,
    id: (cell) => cell,
  };
}
