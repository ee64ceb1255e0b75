import type { ZoneFeatures } from '../../app/items/zone-features-service.js';
import type { Link } from '../schemas/common.js';
import type { Reply } from '../route.js';
import { mediaType } from '../../formats/registry.js';
import { bytesOf, pacedBytes } from '../../formats/paced-pieces.js';
import { profileUri } from '../../formats/zone-data/encoding.js';
import { ubjsonOfPieces } from '../../formats/ubjson.js';

/** The DGGS-JSON-FG profiles (OGC 21-038r1 /req/data-dggs-jsonfg), asked with `profile` beside geo+json. */
export const JSONFG_DGGS_PROFILES = ['jsonfg-dggs', 'jsonfg-dggs-plus', 'jsonfg-dggs-zoneids', 'jsonfg-dggs-zoneids-plus'] as const;
export type JsonFgDggsProfile = (typeof JSONFG_DGGS_PROFILES)[number];


const CONFORMS_TO = ['https://www.opengis.net/spec/json-fg-1/0.2/conf/core', 'https://www.opengis.net/spec/ogcapi-dggs-1/1.0/conf/data-dggs-jsonfg'];

/**
 * DGGS-JSON-FG: a JSON-FG feature collection whose `dggrs` (in place of `coordRefSys`), `zoneId` and
 * `depth` tell how `dggsPlace` coordinates resolve; `-plus` profiles add the CRS84 `geometry`. The
 * profile is named in `links` and in a `Link` header. Written feature by feature (bounded by the
 * service's feature count), with turns of the event loop in between.
 *
 * DGGS-UBJSON-FG (`geo-ubjson`, /req/data-dggs-ubjsonfg/content) is the same document in UBJSON,
 * transcoded from its text as DGGS-UBJSON is from DGGS-JSON (zone-data/ubjson.ts).
 */
export async function zoneFeaturesJsonFg(f: ZoneFeatures, profile: JsonFgDggsProfile, links: Link[], format: 'geojson' | 'geo-ubjson', signal?: AbortSignal): Promise<Reply> {
  const head = {
    type: 'FeatureCollection',
    conformsTo: CONFORMS_TO,
    links: [{ rel: 'profile', href: profileUri(profile), title: `DGGS-JSON-FG profile ${profile}` }, ...links],
    dggrs: `[ogc-dggrs:${f.grid.id}]`,
    zoneId: f.zoneId,
    depth: f.depth,
    numberReturned: f.features.length,
  };
  function* pieces(): Generator<string> {
    yield `${JSON.stringify(head).slice(0, -1)},"features":[`;
    for (let i = 0; i < f.features.length; i++) {
      const x = f.features[i]!;
      yield `${i ? ',' : ''}${JSON.stringify({
        type: 'Feature',
        geometry: x.geometry,
        place: null,
        time: x.time === null ? null : { instant: x.time },
        dggsPlace: x.dggsPlace,
        properties: x.properties,
      })}`;
    }
    yield ']}';
  }
  return {
    contentType: mediaType(format),
    headers: { Link: `<${profileUri(profile)}>; rel="profile"` },
    body: format === 'geo-ubjson' ? await ubjsonOfPieces(pieces(), signal) : await bytesOf(pacedBytes(pieces(), signal)),
  };
}
