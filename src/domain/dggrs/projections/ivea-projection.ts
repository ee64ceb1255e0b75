/** IVEA: Slice & Dice with the icosahedron vertex as radial corner (vertex-oriented great circles). */
import { SliceAndDiceProjection } from './slice-and-dice-projection.js';

export const iveaProjection = new SliceAndDiceProjection('ivea');
