export * from './planar.js';
export * from './statistics.js';
export * from './pixel-grid.js';
export * from './sampling-plan.js';
export * from './zonal-statistics.js';
