import { UnavailableError } from '../../ports/errors.js';

/** limits.lakeQuerySeconds when not configured. */
export const DEFAULT_LAKE_QUERY_SECONDS = 30;

/**
 * Lake work ran past its time budget and was stopped: 503 with Retry-After. The time a lake query
 * takes depends on what else the lake is doing (its threads and query slots are shared), so the
 * same request may pass on a quieter service; the hint also says how to ask for less.
 */
export class LakeTimeBudgetError extends UnavailableError {
  constructor(
    seconds: number,
    retryAfterSeconds: number,
  ) {
    super(
      'Lake query too long',
      `The lake work of this request ran past its time budget of ${seconds} s (limits.lakeQuerySeconds) and was stopped. Retry after the Retry-After seconds, or ask for less: a smaller bbox, zone or zone-depth, a narrower datetime, or a filter the lake settles faster.`,
      retryAfterSeconds,
    );
  }
}

/**
 * The time one request's lake work may take. `run` hands the work a signal that aborts when the
 * caller's does (the client left, the job stopped) or when the budget has passed; past the
 * budget the work's rejection (the lake rejects with the signal's reason) is LakeTimeBudgetError.
 */
export class LakeTimeBudget {
  constructor(readonly seconds: number) {}

  async run<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const expired = new AbortController();
    const timer = setTimeout(() => expired.abort(new LakeTimeBudgetError(this.seconds, Math.max(1, Math.ceil(this.seconds)))), this.seconds * 1000);
    try {
      return await work(signal ? AbortSignal.any([signal, expired.signal]) : expired.signal);
    } catch (e) {
      if (expired.signal.aborted && !signal?.aborted) throw expired.signal.reason;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}
