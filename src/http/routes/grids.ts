import { z } from '../schemas/zod.js';
import { DggrsIdResponse, DggsResponse } from '../schemas/dggs.js';
import { defineRoute, json, type AnyRoute } from '../route.js';
import { responses } from '../responses.js';
import { renderHtml } from '../html/render.js';
import { formatParam } from '../schemas/query.js';
import { offeredBy, type Format } from '../../formats/registry.js';
import type { Links } from '../links.js';
import type { ZonesService } from '../../app/zones/zones-service.js';
import type { Dggrs, ZoneDescription } from '../../domain/dggrs/dggrs.js';
import { tilesMap } from '../html/page-maps.js';
import { contextLinks, crumbsFor, enc, gridPath, gridSummaryLinks, rel, TILE_REL, tilesPath, zoneTemplates, type DggsForm, type Scope } from '../grid-scope.js';

/** The grids: their list and each grid's description, in JSON and as pages. */
const GRID_FORMATS = offeredBy('resource');
const gridQuery = z.object({ f: formatParam(GRID_FORMATS) });

function gridBody(links: Links, scope: Scope, grid: Dggrs, format: Format) {
  const path = gridPath(scope, grid);
  return {
    id: grid.id,
    title: grid.title,
    uri: grid.uri,
    description: grid.description,
    crs: [grid.crs],
    default_depth: grid.defaultDepth,
    max_refinement_level: grid.maxRefinementLevel,
    max_relative_depth: grid.maxRelativeDepth,
    linkTemplates: zoneTemplates(links, scope, grid),
    links: [
      ...links.selfAndAlternates(path, format, GRID_FORMATS, {}, grid.title),
      { href: grid.uri, rel: rel.definition, title: `Definition of ${grid.id}` },
      links.link(rel.zoneQuery, `${path}/zones`, { type: 'application/json', title: 'Zone list' }),
      links.link(rel.list, `${scope.prefix}/dggs`, { type: 'application/json', title: 'All grids' }),
      links.link(TILE_REL.tilesetsVector, tilesPath(scope, grid), { type: 'application/json', title: 'Vector tiles of the zones' }),
      ...contextLinks(links, scope),
    ],
  };
}


/**
 * The pentagons of a level: as many as at level 0, each the zone at a level-0 pentagon's centre
 * (they stay at the icosahedron's vertices), with its own area; levelInfo gives the hexagons'.
 */
function pentagonsAt(grid: Dggrs, centres: readonly ZoneDescription[], level: number): { pentagons?: number; pentagonAreaMetersSquare?: number } {
  if (!centres.length) return {};
  const d = grid.describeZone(grid.zoneFromPoint(centres[0]!.centroid[0], centres[0]!.centroid[1], level));
  return d.shape === 'pentagon' ? { pentagons: centres.length, pentagonAreaMetersSquare: d.areaMetersSquare } : {};
}

export function gridListRoute(form: DggsForm, service: ZonesService): AnyRoute {
  return defineRoute({
    ...form.get('', 'getDGGRSList', { bare: 'Grids (DGGRS) available', scoped: 'Grids available for a collection' }),
    params: form.listParams,
    query: gridQuery,
    formats: GRID_FORMATS,
    responses: responses({ description: 'The grids', schema: DggsResponse, formats: GRID_FORMATS }, [...(form.scoped ? [404, 406] : [406]), 422]),
    validators: 'request',
    handler: async ({ params, links, format }) => {
      const scope = form.scopeOf(params);
      const grids = service.listGrids();
      const path = `${scope.prefix}/dggs`;
      const body = {
        dggrs: grids.map((g) => ({ id: g.id, title: g.title, uri: g.uri, links: gridSummaryLinks(links, scope, g) })),
        links: [...links.selfAndAlternates(path, format, GRID_FORMATS, {}, 'Grids'), ...contextLinks(links, scope)],
      };
      if (format === 'html') {
        return renderHtml('dggs-list', {
          title: scope.collection ? `Grids of ${scope.collection.title}` : 'Grids',
          crumbs: crumbsFor(links, scope),
          links: body.links,
          grids: grids.map((g) => ({
            id: g.id,
            title: g.title,
            description: g.description,
            isDefault: g.id === service.defaultGrid.id,
            href: links.href(gridPath(scope, g), { f: 'html' }),
            zonesHref: links.href(`${gridPath(scope, g)}/zones`, { f: 'html' }),
          })),
        });
      }
      return json(body);
    },
  });
}

export function gridRoute(form: DggsForm, service: ZonesService): AnyRoute {
  return defineRoute({
    ...form.get('/{dggrs_id}', 'getDGGRS', { bare: 'Describe a grid (DGGRS)', scoped: 'Describe a grid for a collection' }),
    params: form.gridParams,
    query: gridQuery,
    formats: GRID_FORMATS,
    responses: responses({ description: 'The grid', schema: DggrsIdResponse, formats: GRID_FORMATS }, [404, 406, 422]),
    validators: 'request',
    handler: async ({ params, links, format }) => {
      const scope = form.scopeOf(params);
      const grid = service.grid(params.dggrs_id);
      const body = gridBody(links, scope, grid, format);
      return format === 'html' ? gridPage(links, scope, grid, body) : json(body);
    },
  });
}

function gridPage(links: Links, scope: Scope, grid: Dggrs, body: ReturnType<typeof gridBody>) {
  const level0 = grid.zonesInBBox(0, [-180, -90, 180, 90]);
  // Pentagons are the exception in hexagonal grids only (in a pentagonal grid every zone is one).
  const hexagonal = [...level0, ...grid.children(level0[0]!)].some((z) => grid.describeZone(z).shape === 'hexagon');
  const pentagons = hexagonal ? level0.map((z) => grid.describeZone(z)).filter((d) => d.shape === 'pentagon') : [];
  const levels = Array.from({ length: Math.min(grid.maxRefinementLevel, 15) + 1 }, (_, l) => ({ ...grid.levelInfo(l), ...pentagonsAt(grid, pentagons, l) }));
  return renderHtml('dggrs', {
    title: grid.title,
    crumbs: crumbsFor(links, scope, grid),
    links: body.links,
    grid: body,
    defaultLevel: grid.defaultLevel,
    zoneIdForm: grid.zoneIdForm,
    zonesHref: links.href(`${gridPath(scope, grid)}/zones`),
    levels,
    level0: level0.map((zid) => ({ id: zid, href: links.href(`${gridPath(scope, grid)}/zones/${enc(zid)}`, { f: 'html' }) })),
    // The grid's zones through its tiles; a collection's grid: its data on this grid.
    mapConfig: tilesMap(links, scope, grid.id),
  });
}
