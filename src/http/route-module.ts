import type { AnyRoute } from './route.js';

/** A family of routes and the conformance classes it implements. */
export interface RouteModule {
  routes: AnyRoute[];
  conformance?: string[];
}
