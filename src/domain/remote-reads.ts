/**
 * What one client request has read from remote feature backends so far, over every scan it makes.
 * The use case creates one per client request and each scan of that request counts its pages and
 * features in it, so the paging bounds (`remoteBackends.maxPages`, `remoteBackends.maxFeatures`)
 * hold per request, however many scans the request takes (the selections of a cross-collection
 * body, the boxes of a zone query).
 */
export interface RemoteReads {
  pages: number;
  features: number;
}

/** Nothing read yet: one per client request. */
export function remoteReads(): RemoteReads {
  return { pages: 0, features: 0 };
}
