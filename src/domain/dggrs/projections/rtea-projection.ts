/**
 * RTEA: Slice & Dice with the icosahedron edge midpoint as radial corner, i.e. Snyder's 1992 construction
 * carried over to the rhombic triacontahedron (whose 30 face centres are those midpoints).
 */
import { SliceAndDiceProjection } from './slice-and-dice-projection.js';

export const rteaProjection = new SliceAndDiceProjection('rtea');
