import path from 'node:path';
import { Eta } from 'eta';
import type { Link } from '../schemas/common.js';
import type { Reply } from '../route.js';
import { FAVICON_SVG } from './favicon.js';
import { STYLE_PATH, assetPath } from './map-assets.js';
import { FORMAT_BY_NAME, FORMAT_RECORDS } from '../../formats/registry.js';

const eta = new Eta({ views: path.join(import.meta.dirname, 'templates'), autoEscape: true, cache: true, autoTrim: false });

export interface PageModel {
  title: string;
  /** Breadcrumb trail: [label, href] pairs, the last one being the current page. */
  crumbs: [string, string][];
  links?: Link[];
  [key: string]: unknown;
}

/** The format links of the breadcrumb bar show the format's short name (the media type stays in their title). */
function formatLabel(type: string | null | undefined): string {
  const mediaType = (type ?? '').split(';')[0]!.trim();
  const format = FORMAT_BY_NAME.get(mediaType);
  // A JSON Schema link (a collection's schema) is the one alternate that is not a response format.
  return format ? FORMAT_RECORDS[format].label : mediaType === 'application/schema+json' ? 'JSON Schema' : type || 'other';
}

/** The hexagon, inline so that no request is made for it (`/favicon.ico` serves it too). */
const FAVICON = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/**
 * What a page's interactive map draws (read by assets/map.js; see docs/maps.md). The style and the
 * library's URLs are added here.
 */
export interface MapConfig {
  /** [w, s, e, n] to fit the map to (west > east crosses the antimeridian); else the content's extent. */
  fit?: number[];
  /** GeoJSON drawn, in the page. */
  data?: object;
  /** GeoJSON fetched by the map. */
  dataUrl?: string;
  /** The property holding a feature's id (zoneID, zone_id, zoneId). */
  idProperty?: string;
  /** A feature's page: `{id}` is replaced with its id (a feature's `href` property wins). */
  hrefTemplate?: string;
  /** What the map shows, under it (the SVG's caption describes the SVG). */
  caption?: string;
  /** The colour of features without a `role` property: one of map.js's ROLE_COLOURS (zone, feature...). */
  role?: string;
  /** The name of the form field a drawn box fills. */
  drawBox?: string;
  /** A grid's vector tiles drawn as zone outlines (TileJSON of its bare tiles, layer `zones`): hover gives a zone's id. */
  outlines?: { tileJson: string };
  choropleth?: {
    fields: { name: string; title?: string; unit?: string; minimum?: number; maximum?: number }[];
    /** Colours from low to high, and the opacity of a zone with a value. */
    ramp: string[];
    opacity: number;
    /** A JSON Schema of the collection whose numeric properties are the fields (fetched by the map). */
    schemaUrl?: string;
    /** TileJSON of vector tiles (layer `zones`); else GeoJSON from `dataUrl`. */
    tileJson?: string;
    depths?: number[];
    depth?: number;
    /** Present: a datetime picker is shown, with this value. */
    datetime?: string;
  };
}

/** JSON inside <script>: `<` escaped so that no value can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Renders `templates/<view>.eta` inside the shared layout. */
export function renderHtml(view: string, model: PageModel, status = 200): Reply {
  const alternates = (model.links ?? [])
    .filter((l) => l.rel === 'alternate')
    .map((l) => ({ ...l, label: formatLabel(l.type) }));
  // Asset URLs hang off the home page's (the first crumb), as the layout's header links do.
  const home = (model.crumbs[0]?.[1] ?? '/').replace(/\/$/, '');
  const mapConfig = model.mapConfig as MapConfig | undefined;
  const map = mapConfig
    ? { css: home + assetPath('maplibre-gl.css'), script: home + assetPath('map.js'), config: scriptJson({ ...mapConfig, style: home + STYLE_PATH }) }
    : undefined;
  return { status, contentType: 'text/html', body: eta.render(view, { ...model, alternates, favicon: FAVICON, mapAssets: map }) };
}
