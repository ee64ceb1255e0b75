import type { InFlightBytes } from '../../ports/remote-http.js';
import { ServiceBusyError } from './work-budget.js';

/**
 * Retry-After of a refusal: a body being received finishes, fails or times out meanwhile, which
 * gives its bytes back; a few seconds lets a flood of large answers drain.
 */
const RETRY_AFTER_SECONDS = 5;

/**
 * The process's one budget of remote response bytes being received at once (every cog-url and
 * configured raster, feature backend and STAC API body): a chunk that does not fit refuses its
 * request with 503 and Retry-After, so memory held by bodies in flight stays bounded however
 * many requests fetch together.
 */
export class InFlightBytesBudget implements InFlightBytes {
  private used = 0;

  /** `key` names the configuration of `limit` in refusals. */
  constructor(
    private readonly limit: number,
    private readonly key: string,
  ) {}

  /** Bytes held now (for tests and logs). */
  get held(): number {
    return this.used;
  }

  take(n: number): void {
    if (this.used + n > this.limit) {
      throw new ServiceBusyError(
        `Remote answers being received hold ${this.used} of the ${this.limit} bytes they may hold together (${this.key}); this one needs more. Retry after the Retry-After seconds, or read a raster from a host that honours Range requests.`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.used += n;
  }

  release(n: number): void {
    this.used -= n;
  }
}
