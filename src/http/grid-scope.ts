import { z } from './schemas/zod.js';
import { CollectionIdParam, type Link, type LinkTemplate } from './schemas/common.js';
import { DggrsIdParam, ZoneIdParam } from './schemas/dggs.js';
import type { Links } from './links.js';
import type { Dggrs } from '../domain/dggrs/dggrs.js';
import type { Collection } from '../domain/collection.js';
import type { ZonesService } from '../app/zones/zones-service.js';

/**
 * What the grid and zone routes share. Each comes in a bare (`/dggs/...`) and a collection-scoped
 * (`/collections/{collection_id}/dggs/...`) form with the same shapes; the scoped form adds
 * collection links, clamps zone lists to the collection's extent and links zones to data.
 */
const REL = 'https://www.opengis.net/def/rel/ogc/1.0';
export const rel = {
  dggrs: `${REL}/dggrs`,
  definition: `${REL}/dggrs-definition`,
  list: `${REL}/dggrs-list`,
  zoneInfo: `${REL}/dggrs-zone-info`,
  zoneQuery: `${REL}/dggrs-zone-query`,
  zoneData: `${REL}/dggrs-zone-data`,
  parent: `${REL}/dggrs-zone-parent`,
  child: `${REL}/dggrs-zone-child`,
  neighbor: `${REL}/dggrs-zone-neighbor`,
  geodata: `${REL}/geodata`,
  dataset: `${REL}/dataset`,
};

/** OGC API Tiles' link relations (in the http form OGC API Tiles writes them). */
export const TILE_REL = {
  tilesetsVector: 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector',
  tilingScheme: 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme',
  geodata: 'http://www.opengis.net/def/rel/ogc/1.0/geodata',
};

export const enc = encodeURIComponent;

export interface Scope {
  collection?: Collection;
  /** `''` or `/collections/{id}`. */
  prefix: string;
}

/**
 * One form of the grid routes: its parameter schemas and what its GETs declare. Operation ids end
 * with the suffixes of OGC 21-038r1 /req/operation-ids (`.dataset.getDGGRSList`...).
 */
export interface DggsForm {
  scoped: boolean;
  listParams: z.ZodObject<z.ZodRawShape>;
  gridParams: z.ZodObject<{ dggrs_id: typeof DggrsIdParam }>;
  zoneParams: z.ZodObject<{ dggrs_id: typeof DggrsIdParam; zone_id: typeof ZoneIdParam }>;
  /** The scope of a request by its path parameters. */
  scopeOf(params: object): Scope;
  /** What every GET of this form declares: `tail` after the base, `name` after the origin, the summary of each form. */
  get(tail: string, name: string, summary: { bare: string; scoped: string }): { method: 'get'; path: string; operationId: string; summary: string; tags: string[]; invalidStatus: 422 };
}

export function dggsForm(scoped: boolean, service: ZonesService): DggsForm {
  const collectionParam: z.ZodRawShape = scoped ? { collection_id: CollectionIdParam } : {};
  return {
    scoped,
    listParams: z.object(collectionParam),
    gridParams: z.object({ ...collectionParam, dggrs_id: DggrsIdParam }),
    zoneParams: z.object({ ...collectionParam, dggrs_id: DggrsIdParam, zone_id: ZoneIdParam }),
    get: (tail, name, summary) => ({
      method: 'get',
      path: `${scoped ? '/collections/{collection_id}/dggs' : '/dggs'}${tail}`,
      operationId: `${scoped ? '.collection' : '.dataset'}.${name}`,
      summary: scoped ? summary.scoped : summary.bare,
      tags: ['DGGS'],
      invalidStatus: 422,
    }),
    scopeOf: (params) => {
      const id = (params as { collection_id?: string }).collection_id;
      if (id === undefined) return { prefix: '' };
      const collection = service.collection(id);
      return { collection, prefix: `/collections/${enc(collection.id)}` };
    },
  };
}

export function gridPath(scope: Scope, grid: Pick<Dggrs, 'id'>): string {
  return `${scope.prefix}/dggs/${enc(grid.id)}`;
}

/** The tilesets of a grid, or of a collection's data on it (docs/tiles.md). */
export function tilesPath(scope: Scope, grid: Pick<Dggrs, 'id'>): string {
  return `${gridPath(scope, grid)}/tiles`;
}

/** The scope of a collection's own routes. */
export function collectionScope(collection: Collection): Scope {
  return { collection, prefix: `/collections/${enc(collection.id)}` };
}

export function crumbsFor(links: Links, scope: Scope, grid?: Dggrs, tail: [string, string][] = []): [string, string][] {
  const out: [string, string][] = [['Home', links.href('/')]];
  if (scope.collection) {
    out.push(['Collections', links.href('/collections', { f: 'html' })], [scope.collection.title, links.href(scope.prefix, { f: 'html' })]);
  }
  out.push(['Grids', links.href(`${scope.prefix}/dggs`, { f: 'html' })]);
  if (grid) out.push([grid.id, links.href(gridPath(scope, grid), { f: 'html' })]);
  out.push(...tail);
  out[out.length - 1] = [out[out.length - 1]![0], ''];
  return out;
}

export function contextLinks(links: Links, scope: Scope): Link[] {
  if (scope.collection) return [links.link(rel.geodata, scope.prefix, { type: 'application/json', title: scope.collection.title })];
  return [links.link(rel.dataset, '/', { type: 'application/json', title: 'Landing page' })];
}

export function zoneTemplates(links: Links, scope: Scope, grid: Dggrs): LinkTemplate[] {
  const base = links.href(gridPath(scope, grid));
  const out: LinkTemplate[] = [{ rel: rel.zoneInfo, title: 'Zone information', uriTemplate: `${base}/zones/{zoneId}` }];
  if (scope.collection) out.push({ rel: rel.zoneData, title: 'Zone data', uriTemplate: `${base}/zones/{zoneId}/data` });
  return out;
}

export function gridSummaryLinks(links: Links, scope: Scope, grid: Dggrs): Link[] {
  return [
    links.link('self', gridPath(scope, grid), { type: 'application/json', title: grid.title }),
    { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
  ];
}
