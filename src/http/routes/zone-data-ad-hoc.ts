import { AdHocZoneDataQuery, DataResponse, GridZoneDataParams } from '../schemas/zone-data.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import type { ZoneDataService } from '../../app/zone-data/zone-data-service.js';
import { ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { askedProfile, formatPlan, withOutline, withSubset, zoneDataOptions } from '../zone-data-query.js';
import { presentZoneData } from '../zone-data-presenter.js';

/** Zonal statistics of a raster the client names by URL. */
export function adHocZoneDataRoute(service: ZoneDataService): AnyRoute {
  return defineRoute({
    method: 'get',
    path: '/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: '.dataset.getDGGRSZoneData',
    summary: 'Zonal statistics of the raster given by cog-url',
    description: 'Reads the Cloud-Optimized GeoTIFF at `cog-url` (public http(s) only, unless the operator allows more) and returns statistics per sub-zone. Without `cog-url` the answer is 400.',
    tags: ['Zone data'],
    params: GridZoneDataParams,
    query: AdHocZoneDataQuery,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'Zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 403, 404, 406, 413, 422, 503]),
    // Data answers, but a client's raster has no version the service knows without fetching it.
    validators: { source: async () => undefined },
    handler: async ({ params, query: asked, format, acceptProfiles, links, req, signal }) => {
      const query = withSubset(asked, req.url, false);
      const plan = formatPlan(format, askedProfile(query.profile, acceptProfiles, format));
      const data = await service.adHocZoneData(query['cog-url'], {
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        options: zoneDataOptions(query),
        ...withOutline(format, query),
        check: plan.check,
      }, signal);
      return presentZoneData(service.grid(data.dggrsId), data, format, links, {
        signal,
        profile: plan.profile,
        path: `/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`,
        query,
        title: `Zone ${params.zone_id} of ${params.dggrs_id} from a raster`,
        crumbs: [
          ['Home', links.href('/')],
          ['Grids', links.href('/dggs', { f: 'html' })],
          [`Zone ${params.zone_id} data`, ''],
        ],
      });
    },
  });
}
