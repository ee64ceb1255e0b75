/** ISEA: Slice & Dice with the face centre as radial corner, i.e. Snyder's 1992 icosahedral equal-area projection. */
import { SliceAndDiceProjection } from './slice-and-dice-projection.js';

export const iseaProjection = new SliceAndDiceProjection('isea');
