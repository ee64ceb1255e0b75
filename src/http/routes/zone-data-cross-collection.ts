import type { Link } from '../schemas/common.js';
import { CrossCollectionRequest, CrossCollectionZoneDataQuery, DataResponse, GridZoneDataParams } from '../schemas/zone-data.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import type { Links } from '../links.js';
import { F_VALUE, mediaType, type Format } from '../../formats/registry.js';
import type { CrossCollectionSelection, ZoneDataService } from '../../app/zone-data/zone-data-service.js';
import { ZONE_DATA_FORMATS } from '../../formats/zone-data/encodings.js';
import { askedProfile, formatPlan, forward, refuseGetOnly, withOutline, type CrossCollectionZoneDataParams } from '../zone-data-query.js';
import { presentZoneData } from '../zone-data-presenter.js';

/** Fields of several collections for one zone, joined on zone id (a POST with the selections in its body). */
export function crossCollectionZoneDataRoute(service: ZoneDataService): AnyRoute {
  return defineRoute({
    method: 'post',
    path: '/dggs/{dggrs_id}/zones/{zone_id}/data',
    operationId: 'postCrossCollectionZoneData',
    summary: 'Fields of several collections for one zone, joined on zone id',
    description:
      'Reads the selected fields of each listed collection (parquet lake, raster, STAC alike) for the zone and its sub-zones at each `zone-depth`, concurrently, ' +
      'and joins them into one table keyed on zone id with columns `{alias|id}__{field}`. A sub-zone without data in a source has null in its columns. ' +
      '`properties`, `exclude-properties` and `cog-url` are refused with 400: fields are chosen per collection in the body. ' +
      'Errors: 422 for an invalid body (empty `collections` or `fields`, wrong types, one collection twice without distinct aliases) or a request over the size bounds; ' +
      '404 for an unknown collection; 400 for an unknown field (the hint lists the valid ones), a `filter` on a collection without rows (raster, STAC), or a malformed CQL2 filter (the hint gives the position).',
    tags: ['Zone data'],
    params: GridZoneDataParams,
    query: CrossCollectionZoneDataQuery,
    body: CrossCollectionRequest,
    invalidStatus: 422,
    formats: ZONE_DATA_FORMATS,
    defaultFormat: 'dggs-json',
    responses: responses({ description: 'The joined zone data', schema: DataResponse, formats: ZONE_DATA_FORMATS }, [400, 404, 406, 413, 415, 422, 503]),
    handler: async ({ params, query, body, format, acceptProfiles, links, req, signal }) => {
      refuseGetOnly(req.query ?? {});
      const plan = formatPlan(format, askedProfile(query.profile, acceptProfiles, format));
      const selections = body.collections.map((c) => ({ id: c.id, fields: c.fields, ...(c.alias != null ? { alias: c.alias } : {}), ...(c.filter != null ? { filter: c.filter } : {}) }));
      const data = await service.crossCollectionZoneData({
        dggrsId: params.dggrs_id,
        zoneId: params.zone_id,
        zoneDepth: query['zone-depth'],
        datetime: query.datetime,
        selections,
        ...withOutline(format, query),
        check: plan.check,
      }, signal);
      const path = `/dggs/${encodeURIComponent(params.dggrs_id)}/zones/${encodeURIComponent(params.zone_id)}/data`;
      return presentZoneData(service.grid(data.dggrsId), data, format, links, {
        signal,
        profile: plan.profile,
        path,
        query,
        title: `Zone ${params.zone_id} of ${params.dggrs_id}: ${selections.map((s) => s.alias ?? s.id).join(' + ')}`,
        crumbs: [
          ['Home', links.href('/')],
          ['Grids', links.href('/dggs', { f: 'html' })],
          [`Zone ${params.zone_id} data`, ''],
        ],
        self: crossCollectionLinks(links, path, query, format, selections),
        collections: selections.map((sel) => service.collection(sel.id)),
      });
    },
  });
}

/** The answer is to a POST: `self` names the resource posted to; each part links to the GET that gives it alone. */
function crossCollectionLinks(links: Links, path: string, query: CrossCollectionZoneDataParams, format: Format, selections: CrossCollectionSelection[]): Link[] {
  const self: Link[] = [{ href: links.href(path, { ...forward(query), f: F_VALUE[format] }), rel: 'self', type: mediaType(format), title: 'This cross-collection answer (POST)' }];
  for (const sel of selections) {
    const filter = sel.filter === undefined ? {} : typeof sel.filter === 'string' ? { filter: sel.filter } : { filter: JSON.stringify(sel.filter), 'filter-lang': 'cql2-json' };
    self.push(
      links.link('related', `/collections/${encodeURIComponent(sel.id)}${path}`, {
        type: mediaType('dggs-json'),
        title: `${sel.alias ?? sel.id}: these fields of ${sel.id} alone`,
        query: { ...forward(query), properties: sel.fields.join(','), ...filter },
      }),
    );
  }
  return self;
}
