import type { SpatialRelation } from '../geometry/relate.js';
import type { SpatialOp } from './ast.js';

/** The planar relation each CQL2 spatial operator tests, for every engine that evaluates one. */
export const SPATIAL_RELATION: Record<SpatialOp, SpatialRelation> = {
  s_intersects: 'intersects',
  s_disjoint: 'disjoint',
  s_equals: 'equals',
  s_within: 'within',
  s_contains: 'contains',
  s_touches: 'touches',
  s_overlaps: 'overlaps',
  s_crosses: 'crosses',
};
