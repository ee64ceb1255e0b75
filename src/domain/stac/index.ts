export * from './stac-item.js';
export * from './coverage.js';
export * from './select-items.js';
