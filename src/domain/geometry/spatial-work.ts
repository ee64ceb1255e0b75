/**
 * The bound on the work of one spatial relation (relate.ts). The indexed method costs about the
 * pieces of each geometry near the other, but geometries built to defeat it still cost the product
 * of their sizes: many edges crowding one place (spikes from one point, lines through one point),
 * or two geometries crossing each other at every edge. Counting the steps (pieces visited, points
 * located) and stopping past the bound keeps any one test to about a tenth of a second (110 ms on a
 * slow 2-core machine), whatever the geometries, so a caller that yields between tests never
 * holds the event loop longer.
 */

/** Steps one relation may take. */
export const MAX_RELATION_STEPS = 500_000;

export class SpatialWorkError extends Error {
  override readonly name = 'SpatialWorkError';
  constructor() {
    super(
      `one spatial comparison needs more than ${MAX_RELATION_STEPS.toLocaleString('en-US')} steps (the bound): a geometry has many edges crowding one place, or two geometries cross each other at many edges. Simplify the filter's geometry.`,
    );
  }
}

/** The steps left to one relation; throws SpatialWorkError once they run out. */
export class StepMeter {
  private left = MAX_RELATION_STEPS;

  spend(steps: number): void {
    this.left -= steps;
    if (this.left < 0) throw new SpatialWorkError();
  }
}
