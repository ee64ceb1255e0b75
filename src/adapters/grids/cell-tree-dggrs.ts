import type { BBox, GridLevelInfo, ZoneSelection } from '../../domain/dggrs/dggrs.js';
import { BaseDggrs, type GridIdentity } from '../../domain/dggrs/core/base-dggrs.js';
import { BoxCover, boxList } from '../../domain/dggrs/core/box-cover.js';
import { CellTreeBoxZones, type CellTree } from './cell-tree-box-zones.js';
import { cellsInBoxEstimate } from './lon-lat.js';

/**
 * A grid served by a library (H3, A5) whose index hierarchy lists a box's zones: a zone is in when its
 * extent, as zone info gives it (the tree's `extent`), meets a box; counts come from the library. The
 * grid never handles the tree's cells itself (its zones are ids), so their type stays the tree's own.
 */
export abstract class CellTreeDggrs extends BaseDggrs {
  constructor(identity: GridIdentity, private readonly tree: CellTree<unknown>) {
    super(identity);
  }

  selectZonesInBBox(level: number, bbox: BBox | readonly BBox[]): ZoneSelection {
    this.checkLevel(level);
    return new CellTreeBoxZones(this.tree, level, new BoxCover(boxList(bbox)));
  }

  override estimateZonesInBBox(level: number, bbox: BBox): number {
    return cellsInBoxEstimate(bbox, this.zoneCount(level));
  }

  /** The library checks the level itself. */
  override levelInfo(level: number): GridLevelInfo {
    return { level, zoneCount: this.zoneCount(level), zoneAreaMetersSquare: this.regularZoneArea(level) };
  }

  protected zoneCount(level: number): number {
    return this.tree.cellCount(level);
  }
}
