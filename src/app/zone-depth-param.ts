import type { Dggrs } from '../domain/dggrs/dggrs.js';
import { InvalidZoneDepthError, parseZoneDepth } from '../domain/zone-depth.js';
import { ValidationError } from '../ports/errors.js';

/**
 * The relative depths a `zone-depth` parameter names, the grid's default depth when it is absent
 * or blank; a malformed one is the request's fault (422). Read alike by zone data and zone
 * features, which then bound the depths each by its own rule.
 */
export function zoneDepthParam(grid: Dggrs, text: string | undefined): number[] {
  try {
    return text === undefined || text.trim() === '' ? [grid.defaultDepth] : parseZoneDepth(text);
  } catch (e) {
    if (e instanceof InvalidZoneDepthError) throw new ValidationError('Invalid query parameter', e.message);
    throw e;
  }
}
