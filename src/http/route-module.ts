import type { AnyRoute } from './route.js';
import type { ReportedCache } from '../ports/metrics.js';

/** A family of routes, the conformance classes it implements, and the caches of answers it keeps (reported in the metrics). */
export interface RouteModule {
  routes: AnyRoute[];
  conformance?: string[];
  caches?: ReportedCache[];
}
